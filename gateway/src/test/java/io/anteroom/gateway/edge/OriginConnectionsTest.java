package io.anteroom.gateway.edge;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.gateway.Browser;
import io.anteroom.gateway.Harness;
import io.anteroom.gateway.TestOrigin;
import io.anteroom.objects.ManualScheduler;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gateway's origin connections ({@link OriginClient}) against an origin scripted byte by byte:
 * keep-alive reuse, connections the origin closes, interim responses, HEAD, bodies of unknown
 * length, and an origin that dies mid-body.
 */
class OriginConnectionsTest {

  @TempDir Path dataDir;

  private Harness gateway(ScriptedOrigin origin) throws Exception {
    // one event loop: every request of the test goes through the same loop's connections
    return new Harness(
        dataDir,
        "rooms: [ { id: shop, totalActiveUsers: 100, origin: \"http://127.0.0.1:"
            + origin.port()
            + "\" } ]",
        new TestOrigin(),
        new ManualScheduler(Harness.START),
        null,
        "dc1",
        1);
  }

  @Test
  void sequentialRequestsShareOneKeepAliveOriginConnection() throws Exception {
    try (var origin =
            ScriptedOrigin.answering("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", true);
        var h = gateway(origin)) {
      Browser user = h.browser();
      for (int i = 0; i < 10; i++) {
        HttpResponse<String> r = user.get("/page/" + i);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("ok");
      }
      assertThat(origin.connections.get()).isEqualTo(1);
    }
  }

  @Test
  void anOriginNamedByHostNameIsResolvedAndReached() throws Exception {
    try (var origin =
            ScriptedOrigin.answering("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nname", true);
        var h =
            new Harness(
                dataDir,
                "rooms: [ { id: shop, origin: \"http://localhost:" + origin.port() + "\" } ]",
                new TestOrigin())) {
      HttpResponse<String> r = h.browser().get("/");
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body()).isEqualTo("name");
    }
  }

  @Test
  void aConnectionTheOriginClosesIsNotUsedAgain() throws Exception {
    try (var origin =
            ScriptedOrigin.answering(
                "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 4\r\n\r\nonce", false);
        var h = gateway(origin)) {
      Browser user = h.browser();
      for (int i = 0; i < 3; i++) {
        HttpResponse<String> r = user.get("/");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("once");
      }
      assertThat(origin.connections.get()).isEqualTo(3);
    }
  }

  @Test
  void anInterimResponseIsNotTakenForTheAnswer() throws Exception {
    try (var origin =
            ScriptedOrigin.answering(
                "HTTP/1.1 100 Continue\r\n\r\n"
                    + "HTTP/1.1 201 Created\r\nContent-Length: 5\r\n\r\nfinal",
                true);
        var h = gateway(origin)) {
      HttpResponse<String> r = h.browser().get("/");
      assertThat(r.statusCode()).isEqualTo(201);
      assertThat(r.body()).isEqualTo("final");
    }
  }

  @Test
  void aHeadAnswerEndsWithoutBodyAndItsConnectionServesTheNextRequest() throws Exception {
    try (var origin =
            new ScriptedOrigin(
                (head, out) -> {
                  boolean isHead = head.startsWith("HEAD ");
                  // a HEAD answer announces the length of a body it does not send
                  out.write(
                      ascii(
                          "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\n" + (isHead ? "" : "body")));
                  return true;
                });
        var h = gateway(origin)) {
      Browser user = h.browser();
      assertThat(user.get("/").body()).isEqualTo("body"); // admitted
      String headReply =
          ProxyBehaviourTest.raw(
              h.gateway.port(),
              "HEAD / HTTP/1.1\r\nHost: shop\r\nCookie: "
                  + user.cookieHeader()
                  + "\r\nConnection: close\r\n\r\n");
      assertThat(headReply).startsWith("HTTP/1.1 200").containsIgnoringCase("content-length: 4");
      assertThat(headReply).endsWith("\r\n\r\n");
      assertThat(user.get("/").body()).isEqualTo("body");
      assertThat(origin.connections.get()).isEqualTo(1);
    }
  }

  @Test
  void aBodyOfUnknownLengthIsStreamedWhole() throws Exception {
    int size = 4 << 20;
    try (var origin =
            new ScriptedOrigin(
                (head, out) -> {
                  out.write(ascii("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"));
                  byte[] chunk = new byte[64 * 1024];
                  java.util.Arrays.fill(chunk, (byte) 'z');
                  for (int sent = 0; sent < size; sent += chunk.length) {
                    out.write(ascii(Integer.toHexString(chunk.length) + "\r\n"));
                    out.write(chunk);
                    out.write(ascii("\r\n"));
                  }
                  out.write(ascii("0\r\n\r\n"));
                  return true;
                });
        var h = gateway(origin)) {
      HttpResponse<String> r = h.browser().get("/big");
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body()).hasSize(size).matches("z+");
    }
  }

  @Test
  void anOriginThatDiesMidBodyCutsTheClientsResponseShortInsteadOfHanging() throws Exception {
    try (var origin =
            ScriptedOrigin.answering(
                "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\nonly ten..", false);
        var h = gateway(origin)) {
      Browser user = h.browser();
      try (var socket = new Socket("127.0.0.1", h.gateway.port())) {
        socket.setSoTimeout(10_000); // a timeout here fails the test: the client was left hanging
        socket
            .getOutputStream()
            .write(
                ascii(
                    "GET / HTTP/1.1\r\nHost: shop\r\nCookie: " + user.cookieHeader() + "\r\n\r\n"));
        byte[] all = socket.getInputStream().readAllBytes(); // until the gateway closes
        String reply = new String(all, StandardCharsets.ISO_8859_1);
        assertThat(reply).startsWith("HTTP/1.1 200");
        assertThat(reply.length() - reply.indexOf("\r\n\r\n") - 4).isLessThan(100_000);
      }
    }
  }

  @Test
  void anAnswerThatIsNotHttpGivesA502() throws Exception {
    try (var origin = ScriptedOrigin.answering("SSH-2.0-OpenSSH_9.2\r\n\r\n", false);
        var h = gateway(origin)) {
      HttpResponse<String> r = h.browser().get("/");
      assertThat(r.statusCode()).isEqualTo(502);
      assertThat(r.body()).contains("cannot be reached");
    }
  }

  @Test
  void anAnswerWithHeadersBeyondTheLimitGivesA502() throws Exception {
    try (var origin =
            new ScriptedOrigin(
                (head, out) -> {
                  out.write(
                      ascii(
                          "HTTP/1.1 200 OK\r\nX-Big: "
                              + "a".repeat(70_000)
                              + "\r\nContent-Length: 2\r\n\r\nok"));
                  return false;
                });
        var h = gateway(origin)) {
      HttpResponse<String> r = h.browser().get("/");
      assertThat(r.statusCode()).isEqualTo(502);
    }
  }

  @Test
  void aConnectionWhoseRequestBodyWasNotAllSentIsNotUsedAgain() throws Exception {
    // the origin answers on the head, without waiting for the body
    try (var origin =
            ScriptedOrigin.answering(
                "HTTP/1.1 413 Payload Too Large\r\nContent-Length: 3\r\n\r\nbig", true);
        var h = gateway(origin)) {
      Browser user = h.browser();
      assertThat(user.get("/").statusCode()).isEqualTo(413); // admitted, one origin connection
      try (var socket = new Socket("127.0.0.1", h.gateway.port())) {
        socket.setSoTimeout(10_000);
        OutputStream out = socket.getOutputStream();
        out.write(
            ascii(
                "POST /upload HTTP/1.1\r\nHost: shop\r\nCookie: "
                    + user.cookieHeader()
                    + "\r\nContent-Length: 1000000\r\n\r\n"
                    + "x".repeat(1000)));
        out.flush();
        InputStream in = socket.getInputStream();
        var reply = new StringBuilder();
        while (!reply.toString().endsWith("big")) {
          int b = in.read();
          assertThat(b).as("the early answer arrives").isNotNegative();
          reply.append((char) b);
        }
        assertThat(reply.toString()).startsWith("HTTP/1.1 413");
        // the body is still unfinished: its connection must not carry the next request
        assertThat(user.get("/next").statusCode()).isEqualTo(413);
      }
      assertThat(origin.connections.get()).isEqualTo(2);
      assertThat(origin.heads).last().asString().startsWith("GET /next ");
    }
  }

  @Test
  void aRequestThatNamedNoHostReachesTheOriginWithTheOriginsHost() throws Exception {
    try (var origin =
            ScriptedOrigin.answering("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", true);
        var h = gateway(origin)) {
      assertThat(ProxyBehaviourTest.raw(h.gateway.port(), "GET /old HTTP/1.0\r\n\r\n"))
          .startsWith("HTTP/1.0 200");
      assertThat(origin.heads.peek())
          .startsWith("GET /old HTTP/1.1\r\n")
          .containsIgnoringCase("\r\nHost: 127.0.0.1:" + origin.port() + "\r\n");
    }
  }

  @Test
  void headerValuesKeepTheirLatin1BytesBothWays() throws Exception {
    // obs-text (RFC 9110 §5.5): bytes 0x80-0xFF in a field value pass through unchanged
    try (var origin =
            ScriptedOrigin.answering(
                "HTTP/1.1 200 OK\r\nX-Menu: caf\u00e9\r\nContent-Length: 2\r\n\r\nok", true);
        var h = gateway(origin)) {
      String reply =
          ProxyBehaviourTest.raw(
              h.gateway.port(),
              "GET / HTTP/1.1\r\nHost: shop\r\nX-Name: na\u00efve \u00ff\r\nConnection: close\r\n\r\n");
      assertThat(reply).startsWith("HTTP/1.1 200").contains("\r\nX-Menu: caf\u00e9\r\n");
      assertThat(origin.heads.peek()).contains("\r\nX-Name: na\u00efve \u00ff\r\n");
    }
  }

  @Test
  void anHttp2RequestReachesTheOriginWithoutPseudoHeaders() throws Exception {
    try (var origin =
            ScriptedOrigin.answering("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", true);
        var h = gateway(origin)) {
      Browser user = h.browser();
      assertThat(user.get("/").statusCode()).isEqualTo(200); // admitted
      var h2 =
          java.net.http.HttpClient.newBuilder()
              .version(java.net.http.HttpClient.Version.HTTP_2)
              .build();
      for (int i = 0; i < 2; i++) { // the first upgrades (h2c), the second is an HTTP/2 stream
        HttpResponse<String> r =
            h2.send(
                java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create("http://127.0.0.1:" + h.gateway.port() + "/h2/" + i))
                    .header("Cookie", user.cookieHeader())
                    .timeout(java.time.Duration.ofSeconds(20))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.version()).isEqualTo(java.net.http.HttpClient.Version.HTTP_2);
      }
      assertThat(origin.heads).hasSize(3);
      for (String head : origin.heads) {
        assertThat(head.split("\r\n")).noneMatch(line -> line.startsWith(":"));
      }
    }
  }

  @Test
  void aClientThatReadsNothingStopsTheGatewayReadingTheOrigin() throws Exception {
    try (var origin =
            new ScriptedOrigin(
                (head, out) -> {
                  out.write(ascii("HTTP/1.1 200 OK\r\nContent-Length: 268435456\r\n\r\n"));
                  byte[] chunk = new byte[64 * 1024];
                  for (int i = 0; i < 4096; i++) {
                    out.write(chunk); // blocks once nobody reads: the test ends it by closing
                  }
                  return false;
                });
        var h = gateway(origin)) {
      Browser user = h.browser();
      try (var socket = new Socket("127.0.0.1", h.gateway.port())) {
        socket.setReceiveBufferSize(4096);
        socket
            .getOutputStream()
            .write(
                ascii(
                    "GET /big HTTP/1.1\r\nHost: shop\r\nCookie: "
                        + user.cookieHeader()
                        + "\r\n\r\n"));
        // nothing is read from the socket: the gateway's response queue fills and it must stop
        // reading the origin instead of buffering 256 MiB
        org.awaitility.Awaitility.await()
            .atMost(java.time.Duration.ofSeconds(30))
            .until(() -> h.proxy("shop").originClient().pausedReads() > 0);
      }
    }
  }

  @Test
  void anOriginThatReadsNoBodyStopsTheGatewayReadingTheClientsUpload() throws Exception {
    var release = new java.util.concurrent.CountDownLatch(1);
    try (var origin =
            new ScriptedOrigin(
                (head, out) -> {
                  try {
                    release.await(); // reads the head, never the body
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  return false;
                });
        var h = gateway(origin)) {
      Browser user = h.browser();
      try (var socket = new Socket("127.0.0.1", h.gateway.port())) {
        OutputStream out = socket.getOutputStream();
        out.write(
            ascii(
                "POST /upload HTTP/1.1\r\nHost: shop\r\nContent-Length: 268435456\r\nCookie: "
                    + user.cookieHeader()
                    + "\r\n\r\n"));
        Thread.ofVirtual()
            .start(
                () -> {
                  byte[] chunk = new byte[64 * 1024];
                  try {
                    for (int i = 0; i < 4096; i++) {
                      out.write(chunk); // blocks once nobody reads: the test ends it by closing
                    }
                  } catch (IOException e) {
                    // closed at the end of the test
                  }
                });
        // the origin reads nothing: the gateway must stop reading the client's body instead of
        // buffering 256 MiB on its way to the origin
        org.awaitility.Awaitility.await()
            .atMost(java.time.Duration.ofSeconds(30))
            .until(() -> h.proxy("shop").originClient().pausedUploads() > 0);
      } finally {
        release.countDown();
      }
    }
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  /**
   * An origin on 127.0.0.1 that answers every request head with {@code script}, which returns
   * whether to keep the connection open for the next request.
   */
  static final class ScriptedOrigin implements AutoCloseable {
    interface Script {
      boolean answer(String requestHead, OutputStream out) throws IOException;
    }

    final AtomicInteger connections = new AtomicInteger();

    /** Connections that ended: the gateway closed them, or the script did. */
    final AtomicInteger ended = new AtomicInteger();

    /** The request heads received, in order. */
    final java.util.Queue<String> heads = new java.util.concurrent.ConcurrentLinkedQueue<>();

    private final ServerSocket server;

    /**
     * An origin that answers every request head with {@code reply}, then keeps the connection open
     * for the next request ({@code keepOpen}) or closes it.
     */
    static ScriptedOrigin answering(String reply, boolean keepOpen) throws IOException {
      return new ScriptedOrigin(
          (head, out) -> {
            out.write(ascii(reply));
            return keepOpen;
          });
    }

    ScriptedOrigin(Script script) throws IOException {
      server = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
      Thread.ofVirtual()
          .start(
              () -> {
                while (!server.isClosed()) {
                  try {
                    Socket s = server.accept();
                    connections.incrementAndGet();
                    Thread.ofVirtual().start(() -> serve(s, script));
                  } catch (IOException e) {
                    return; // closed
                  }
                }
              });
    }

    int port() {
      return server.getLocalPort();
    }

    private void serve(Socket s, Script script) {
      try (s) {
        InputStream in = s.getInputStream();
        OutputStream out = s.getOutputStream();
        String head;
        while ((head = readHead(in)) != null) {
          heads.add(head);
          boolean more = script.answer(head, out);
          out.flush();
          if (!more) {
            return;
          }
        }
      } catch (IOException e) {
        // the gateway closed the connection
      } finally {
        ended.incrementAndGet();
      }
    }

    /** The request line and headers (requests here have no body), or null at the end. */
    private static String readHead(InputStream in) throws IOException {
      var head = new ByteArrayOutputStream();
      int b;
      while ((b = in.read()) >= 0) {
        head.write(b);
        if (head.size() >= 4) {
          byte[] h = head.toByteArray();
          int n = h.length;
          if (h[n - 4] == '\r' && h[n - 3] == '\n' && h[n - 2] == '\r' && h[n - 1] == '\n') {
            return head.toString(StandardCharsets.ISO_8859_1);
          }
        }
      }
      return null;
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }
}
