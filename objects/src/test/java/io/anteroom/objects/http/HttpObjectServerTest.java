package io.anteroom.objects.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.anteroom.objects.ObjectId;
import io.anteroom.objects.ObjectTransport;
import io.anteroom.objects.ObjectTransportException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The HTTP server and transport as a pair, in front of a fake in-test transport. */
class HttpObjectServerTest {
  private static final ObjectId ID = ObjectId.fromName("fake", "one");
  static final SharedSecret SECRET =
      SharedSecret.of(
          "test", "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII));

  /**
   * A stand-in for a runtime's local transport: "next" returns a counter value, "echo" its
   * argument, "hang" never replies; every delivery is counted per method.
   */
  static final class FakeTransport implements ObjectTransport {
    final AtomicLong counter = new AtomicLong();
    final Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
    final List<CompletableFuture<byte[]>> hanging = new CopyOnWriteArrayList<>();
    final List<String> namespaces = new CopyOnWriteArrayList<>();

    @Override
    public CompletableFuture<byte[]> call(
        String namespace, ObjectId id, String method, byte[] args) {
      namespaces.add(namespace);
      deliveries.computeIfAbsent(method, m -> new AtomicInteger()).incrementAndGet();
      return switch (method) {
        case "next" ->
            CompletableFuture.supplyAsync(
                () -> ByteBuffer.allocate(8).putLong(counter.getAndIncrement()).array());
        case "echo" -> CompletableFuture.completedFuture(args);
        case "hang" -> {
          CompletableFuture<byte[]> never = new CompletableFuture<>();
          hanging.add(never);
          yield never;
        }
        case "reject" ->
            CompletableFuture.failedFuture(
                new IllegalArgumentException("no method reject(String) on this object"));
        default -> throw new IllegalArgumentException("no method " + method);
      };
    }

    int delivered(String method) {
      AtomicInteger n = deliveries.get(method);
      return n == null ? 0 : n.get();
    }
  }

  private final FakeTransport fake = new FakeTransport();
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    fake.hanging.forEach(f -> f.complete(new byte[0]));
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  private HttpObjectServer serve(HttpObjectServer.Builder builder) {
    HttpObjectServer server = builder.start();
    toClose.add(server);
    return server;
  }

  private HttpObjectServer serve() {
    return serve(
        HttpObjectServer.builder(fake).export("fake", "name with spaces/ü").secret(SECRET));
  }

  private HttpObjectTransport connect(HttpObjectServer server, Duration timeout) {
    HttpObjectTransport transport =
        HttpObjectTransport.builder(server.uri()).secret(SECRET).timeout(timeout).build();
    toClose.add(transport);
    return transport;
  }

  @Test
  void repliesAreTheTransportsBytesUnchanged() {
    HttpObjectTransport transport = connect(serve(), Duration.ofSeconds(30));
    byte[] args = new byte[70_000];
    for (int i = 0; i < args.length; i++) args[i] = (byte) i;

    assertThat(transport.call("fake", ID, "echo", args).join()).isEqualTo(args);
    assertThat(transport.call("fake", ID, "echo", new byte[0]).join()).isEmpty();
  }

  @Test
  void namespacesAndMethodsWithAnyCharactersRoundTripThroughThePath() {
    HttpObjectTransport transport = connect(serve(), Duration.ofSeconds(30));

    transport.call("name with spaces/ü", ID, "echo", new byte[] {1}).join();

    assertThat(fake.namespaces).containsExactly("name with spaces/ü");
  }

  @Test
  void sixtyFourConcurrentCallersGetUniqueNumbersOverHttp() throws Exception {
    HttpObjectTransport transport = connect(serve(), Duration.ofSeconds(30));
    Set<Long> seen = ConcurrentHashMap.newKeySet();
    AtomicInteger duplicates = new AtomicInteger();
    int callers = 64, callsEach = 50;
    List<Thread> threads = new ArrayList<>();
    for (int c = 0; c < callers; c++) {
      threads.add(
          Thread.ofVirtual()
              .start(
                  () -> {
                    for (int i = 0; i < callsEach; i++) {
                      long n =
                          ByteBuffer.wrap(transport.call("fake", ID, "next", new byte[0]).join())
                              .getLong();
                      if (!seen.add(n)) duplicates.incrementAndGet();
                    }
                  }));
    }
    for (Thread t : threads) t.join();

    assertThat(duplicates).hasValue(0);
    assertThat(seen).hasSize(callers * callsEach);
    assertThat(fake.delivered("next")).isEqualTo(callers * callsEach);
  }

  @Test
  void connectionRefusedIsAClearTransportExceptionSayingTheCallWasNotSent() throws IOException {
    int port = io.anteroom.testkit.FreePorts.take(); // free, and below the ephemeral range
    HttpObjectTransport transport =
        HttpObjectTransport.builder(URI.create("http://127.0.0.1:" + port)).build();
    toClose.add(transport);

    assertThatThrownBy(() -> transport.call("fake", ID, "next", new byte[0]).join())
        .hasCauseInstanceOf(ObjectTransportException.class)
        .cause()
        .hasMessageContaining("http://127.0.0.1:" + port)
        .hasMessageContaining("the call was not sent")
        .hasMessageContaining("not retried");
  }

  @Test
  void aReplySlowerThanTheTimeoutFailsClearlyAndIsNeverRetried() {
    HttpObjectTransport transport = connect(serve(), Duration.ofMillis(300));

    assertThatThrownBy(() -> transport.call("fake", ID, "hang", new byte[0]).join())
        .cause()
        .isInstanceOf(ObjectTransportException.class)
        .hasMessageStartingWith("no reply within 300 ms from http://127.0.0.1:")
        .hasMessageContaining("/objects/fake/" + ID + "/hang")
        .hasMessageContaining("the call may or may not have run; not retried");

    // the transport stays usable, and by the time a later call came back the slow one had one
    // delivery
    assertThat(transport.call("fake", ID, "echo", new byte[] {7}).join()).containsExactly(7);
    assertThat(fake.delivered("hang")).isEqualTo(1);
  }

  @Test
  void aTransportFailureOfTheServerSideBecomesAnHttpErrorSayingTheCallWasNotRun() {
    HttpObjectTransport transport = connect(serve(), Duration.ofSeconds(30));

    assertThatThrownBy(() -> transport.call("fake", ID, "reject", new byte[0]).join())
        .cause()
        .isInstanceOf(ObjectTransportException.class)
        .hasMessageContaining("HTTP 400 from http://")
        .hasMessageContaining("no method reject(String) on this object")
        .hasMessageContaining("the call was not run");
  }

  @Test
  void unknownNamespaceIs404AndNeverReachesTheTransport() {
    HttpObjectTransport transport = connect(serve(), Duration.ofSeconds(30));

    assertThatThrownBy(() -> transport.call("nope", ID, "next", new byte[0]).join())
        .cause()
        .isInstanceOf(ObjectTransportException.class)
        .hasMessageContaining("HTTP 404")
        .hasMessageContaining("unknown namespace \"nope\"");
    assertThat(fake.delivered("next")).isZero();
  }

  @Test
  void malformedRequestsAre400WithAPlainMessage() throws Exception {
    HttpObjectServer server = serve();
    String base = server.uri() + "/objects/fake/";

    assertThat(post(base + "not-an-id/next", new byte[0]))
        .satisfies(r -> assertThat(r.statusCode()).isEqualTo(400))
        .satisfies(r -> assertThat(r.body()).contains("32 hex digits"));
    assertThat(post(base + ID, new byte[0]))
        .satisfies(r -> assertThat(r.statusCode()).isEqualTo(400))
        .satisfies(
            r -> assertThat(r.body()).contains("expected POST /objects/{namespace}/{id}/{method}"));
    assertThat(rawPost(server.actualPort(), "/objects/fake/" + ID + "/bad%zzescape", 0, 0))
        .startsWith("HTTP/1.1 400")
        .contains("bad percent-escape in the method");
    assertThat(post(base + ID + "/", new byte[0]))
        .satisfies(r -> assertThat(r.statusCode()).isEqualTo(400))
        .satisfies(r -> assertThat(r.body()).contains("the method is empty"));
    assertThat(fake.deliveries).isEmpty();
  }

  @Test
  void otherPathsAre404AndOtherVerbsAre405() throws Exception {
    HttpObjectServer server = serve();
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    HttpResponse<String> notFound =
        http.send(
            HttpRequest.newBuilder(URI.create(server.uri() + "/elsewhere")).build(),
            HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> get =
        http.send(
            HttpRequest.newBuilder(URI.create(server.uri() + "/objects/fake/" + ID + "/next"))
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(notFound.statusCode()).isEqualTo(404);
    assertThat(get.statusCode()).isEqualTo(405);
    assertThat(get.headers().firstValue("Allow")).hasValue("POST");
    assertThat(fake.deliveries).isEmpty();
  }

  @Test
  void aBodyAboveTheLimitIs413WhetherDeclaredOrStreamed() throws Exception {
    // unauthenticated loopback mode: the raw requests below are not signed
    HttpObjectServer server =
        serve(HttpObjectServer.builder(fake).export("fake").maxBodyBytes(1_000));
    String url = server.uri() + "/objects/fake/" + ID + "/echo";

    HttpResponse<String> declared = post(url, new byte[1_001]);
    String streamed = rawPost(server.actualPort(), "/objects/fake/" + ID + "/echo", 3, 600);
    HttpResponse<String> atLimit = post(url, new byte[1_000]);

    assertThat(declared.statusCode()).isEqualTo(413);
    assertThat(declared.body()).contains("the limit is 1000 bytes");
    assertThat(streamed).startsWith("HTTP/1.1 413").contains("more than 1000 bytes sent");
    assertThat(atLimit.statusCode()).isEqualTo(200);
    assertThat(fake.delivered("echo")).isEqualTo(1);
  }

  @Test
  void closeWaitsForACallInFlightToSendItsReply() {
    HttpObjectServer server = serve();
    HttpObjectTransport transport = connect(server, Duration.ofSeconds(30));
    CompletableFuture<byte[]> inFlight = transport.call("fake", ID, "hang", new byte[0]);
    org.awaitility.Awaitility.await().until(() -> fake.hanging.size() == 1);

    Thread closer = Thread.ofVirtual().start(server::close);
    fake.hanging.getFirst().complete(new byte[] {42});

    assertThat(inFlight.join()).containsExactly(42);
    org.awaitility.Awaitility.await().until(() -> !closer.isAlive());
  }

  @Test
  void aStopLogsOneLineWhenTheDrainBeginsAndOneWithTheCallsItDrained() {
    var logged =
        new ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent>();
    var logger =
        (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(HttpObjectServer.class);
    // the operator's lines only: the DEBUG timing lines of each connection and call aside
    logged.addFilter(
        new ch.qos.logback.core.filter.Filter<>() {
          @Override
          public ch.qos.logback.core.spi.FilterReply decide(
              ch.qos.logback.classic.spi.ILoggingEvent e) {
            return e.getLevel().isGreaterOrEqual(ch.qos.logback.classic.Level.INFO)
                ? ch.qos.logback.core.spi.FilterReply.NEUTRAL
                : ch.qos.logback.core.spi.FilterReply.DENY;
          }
        });
    logged.start();
    logger.addAppender(logged);
    try {
      HttpObjectServer server = serve();
      int port = server.actualPort();
      HttpObjectTransport transport = connect(server, Duration.ofSeconds(30));
      CompletableFuture<byte[]> inFlight = transport.call("fake", ID, "hang", new byte[0]);
      org.awaitility.Awaitility.await().until(() -> fake.hanging.size() == 1);

      Thread closer = Thread.ofVirtual().start(server::close);
      org.awaitility.Awaitility.await().until(() -> !logged.list.isEmpty());
      fake.hanging.getFirst().complete(new byte[] {42});
      assertThat(inFlight.join()).containsExactly(42);
      org.awaitility.Awaitility.await().until(() -> !closer.isAlive());

      List<String> lines = logged.list.stream().map(e -> e.getFormattedMessage()).toList();
      assertThat(lines).hasSize(2);
      assertThat(lines.get(0))
          .isEqualTo(
              "object server on port "
                  + port
                  + " stopping: no new connections; draining 1 call in flight for up to 30 s");
      assertThat(lines.get(1))
          .startsWith(
              "object server on port "
                  + port
                  + " drained: 1 call answered during the drain, 0 cut off, in ");
    } finally {
      logger.detachAppender(logged);
    }
  }

  @Test
  void closingTheTransportFailsCallsInFlightAndRefusesNewOnes() {
    HttpObjectTransport transport =
        HttpObjectTransport.builder(serve().uri()).secret(SECRET).build();
    CompletableFuture<byte[]> inFlight = transport.call("fake", ID, "hang", new byte[0]);
    org.awaitility.Awaitility.await().until(() -> fake.hanging.size() == 1);

    transport.close();

    assertThatThrownBy(inFlight::join)
        .cause()
        .isInstanceOf(ObjectTransportException.class)
        .hasMessageContaining("the call may or may not have run; not retried");
    assertThatThrownBy(() -> transport.call("fake", ID, "echo", new byte[0]).join())
        .cause()
        .isInstanceOf(ObjectTransportException.class)
        .hasMessageContaining("is closed")
        .hasMessageContaining("was not sent");
  }

  @Test
  void builderRejectsNonsenseWithClearMessages() {
    assertThatThrownBy(() -> HttpObjectTransport.builder(URI.create("ftp://x:1")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be http://host:port or https://host:port");
    assertThatThrownBy(() -> HttpObjectTransport.builder(URI.create("http://user@x:1")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be only scheme://host:port");
    assertThatThrownBy(() -> HttpObjectTransport.builder(URI.create("http://x:1/api")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must have no path");
    assertThatThrownBy(() -> HttpObjectTransport.builder(URI.create("http://x:1")).poolSize(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("poolSize must be at least 1");
    assertThatThrownBy(() -> HttpObjectServer.builder(fake).port(70_000))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("between 0 and 65535");
  }

  private static HttpResponse<String> post(String url, byte[] body)
      throws IOException, InterruptedException {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .build()
        .send(
            HttpRequest.newBuilder(URI.create(url))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }

  /**
   * Sends a POST over a raw socket (for requests that well-behaved clients refuse to send) and
   * returns the whole response; {@code chunks} > 0 sends a chunked body without Content-Length.
   */
  private static String rawPost(int port, String rawPath, int chunks, int chunkSize)
      throws IOException {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      OutputStream out = socket.getOutputStream();
      String head =
          "POST "
              + rawPath
              + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
              + (chunks > 0 ? "Transfer-Encoding: chunked\r\n\r\n" : "Content-Length: 0\r\n\r\n");
      out.write(head.getBytes(StandardCharsets.US_ASCII));
      for (int i = 0; i < chunks; i++) {
        out.write((Integer.toHexString(chunkSize) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(new byte[chunkSize]);
        out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
      }
      if (chunks > 0) out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
