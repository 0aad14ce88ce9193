package io.anteroom.gateway.edge;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.filter.ThresholdFilter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.anteroom.gateway.Browser;
import io.anteroom.gateway.Harness;
import io.anteroom.gateway.TestOrigin;
import io.vertx.core.Vertx;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

public class ProxyBehaviourTest {

  @TempDir Path dataDir;

  private static final String ROOM = "rooms: [ { id: shop, totalActiveUsers: 100 } ]";

  @Test
  void methodPathQueryHeadersAndBodyReachTheOriginWithForwardedHeaders() throws Exception {
    try (var h = new Harness(dataDir, ROOM)) {
      byte[] body = new byte[1 << 20];
      java.util.Arrays.fill(body, (byte) 'x');
      var request =
          HttpRequest.newBuilder(URI.create(h.url() + "/cart/items?sku=42&qty=2"))
              .header("X-Custom", "kept")
              .header("X-Forwarded-For", "203.0.113.9")
              .POST(HttpRequest.BodyPublishers.ofByteArray(body))
              .build();
      HttpResponse<String> r = h.client.send(request, HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.headers().firstValue("x-origin-method")).contains("POST");
      assertThat(r.headers().firstValue("x-origin-uri")).contains("/cart/items?sku=42&qty=2");
      assertThat(r.body()).isEqualTo("origin:/cart/items:" + "x".repeat(1 << 20));
      assertThat(h.origin.lastHeaders)
          .containsEntry("x-custom", "kept")
          .containsEntry("x-forwarded-for", "127.0.0.1") // the client's own is not believed
          .containsEntry("x-forwarded-proto", "http")
          .containsEntry("x-forwarded-host", "127.0.0.1:" + h.gateway.port());
      assertThat(r.headers().firstValue("anteroom-throttle")).contains("0");
    }
  }

  @Test
  void aResponseThatSetsATicketIsNeverStorableByASharedCache() throws Exception {
    try (var h = new Harness(dataDir, ROOM)) {
      Browser user = h.browser();
      for (String path : new String[] {"/public", "/public", "/plain"}) {
        // a minute apart: every renewal is sealed (one in the cookie's minute may wait)
        h.scheduler.advance(java.time.Duration.ofSeconds(61));
        HttpResponse<String> r = user.get(path);
        assertThat(Browser.reachedOrigin(r)).isTrue();
        assertThat(r.headers().allValues("set-cookie")).as(path).isNotEmpty();
        String cacheControl = String.join(", ", r.headers().allValues("cache-control"));
        assertThat(cacheControl).as(path).contains("private").doesNotContain("public", "s-maxage");
      }
      assertThat(String.join(", ", user.get("/public").headers().allValues("cache-control")))
          .as("the origin's other directives stay")
          .isEqualTo("private, max-age=600");
    }
  }

  @Test
  void hopByHopHeadersAreNotForwarded() throws Exception {
    try (var h = new Harness(dataDir, ROOM)) {
      String reply =
          raw(
              h.gateway.port(),
              "GET /x HTTP/1.1\r\nHost: shop\r\n"
                  + "Keep-Alive: timeout=5\r\nProxy-Authorization: Basic Zm9vOmJhcg==\r\n"
                  + "X-End-To-End: yes\r\nConnection: close\r\n\r\n");
      assertThat(reply).startsWith("HTTP/1.1 200");
      assertThat(h.origin.lastHeaders)
          .containsEntry("x-end-to-end", "yes")
          .doesNotContainKeys("keep-alive", "proxy-authorization");
    }
  }

  @Test
  void headersNamedByConnectionAreNotForwarded() throws Exception {
    try (var h = new Harness(dataDir, ROOM)) {
      String reply =
          raw(
              h.gateway.port(),
              "GET /x HTTP/1.1\r\nHost: shop\r\n"
                  + "X-Hop-Only: secret\r\nX-End-To-End: yes\r\nConnection: close, X-Hop-Only\r\n\r\n");
      assertThat(reply).startsWith("HTTP/1.1 200");
      assertThat(h.origin.lastHeaders)
          .containsEntry("x-end-to-end", "yes")
          .doesNotContainKeys("x-hop-only");
    }
  }

  @Test
  void anOriginThatRefusesConnectionsGivesA502PlainPage() throws Exception {
    // below the ephemeral range: no server of the test (all on port 0) can be given it meanwhile
    int closedPort = io.anteroom.testkit.FreePorts.take();
    var origin = new TestOrigin();
    try (var h =
        new Harness(
            dataDir,
            "rooms: [ { id: shop, origin: \"http://127.0.0.1:" + closedPort + "\" } ]",
            origin)) {
      HttpResponse<String> r = h.browser().get("/");
      assertThat(r.statusCode()).isEqualTo(502);
      assertThat(r.headers().firstValue("content-type"))
          .hasValueSatisfying(v -> assertThat(v).startsWith("text/plain"));
      assertThat(r.body()).contains("cannot be reached");
    }
  }

  @Test
  void anOriginThatDoesNotAnswerInTimeGivesA504() throws Exception {
    try (var h = new Harness(dataDir, ROOM)) { // originTimeoutSeconds: 1
      HttpResponse<String> r = h.browser().get("/hang");
      assertThat(r.statusCode()).isEqualTo(504);
      assertThat(r.body()).contains("did not answer in time");
    }
  }

  @Test
  void malformedRequestsAreRefusedWith400() throws Exception {
    try (var h = new Harness(dataDir, ROOM)) {
      assertThat(raw(h.gateway.port(), "THIS IS NOT HTTP\r\n\r\n"))
          .matches("(?s)HTTP/1.[01] 400.*");
      assertThat(h.origin.requests.get()).isZero();
    }
  }

  @Test
  void oversizedHeadersAreRefusedWith431() throws Exception {
    try (var h = new Harness(dataDir, ROOM)) {
      String reply =
          raw(
              h.gateway.port(),
              "GET / HTTP/1.1\r\nHost: shop\r\nX-Big: "
                  + "a".repeat(20_000)
                  + "\r\nConnection: close\r\n\r\n");
      assertThat(reply).startsWith("HTTP/1.1 431");
      assertThat(h.origin.requests.get()).isZero();
    }
  }

  /**
   * A WebSocket upgrade passes through for an admitted user (a text echoed by the origin), and the
   * tunnel's end is ordinary (a tab closed, the origin done): it logs no ERROR. Vert.x logs the
   * tunnel's end on the origin side when that connection's close is handled, which happens on the
   * gateway before it closes the other side or right after it closes the origin's.
   */
  @ParameterizedTest(name = "closed by the {0}")
  @ValueSource(strings = {"browser", "origin"})
  void webSocketUpgradesPassThroughForAdmittedUsersAndTheirEndLogsNoError(String closer)
      throws Exception {
    var errors = new ListAppender<ILoggingEvent>();
    var threshold = new ThresholdFilter();
    threshold.setLevel("ERROR");
    threshold.start();
    errors.addFilter(threshold);
    errors.start();
    var root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.addAppender(errors);
    var originClosed = new CompletableFuture<Void>();
    Vertx wsVertx = Vertx.vertx();
    var wsServer =
        wsVertx
            .createHttpServer()
            .webSocketHandler(
                ws -> {
                  ws.closeHandler(v -> originClosed.complete(null));
                  ws.textMessageHandler(
                      m -> {
                        if (m.equals("bye")) {
                          ws.close();
                        } else {
                          ws.writeTextMessage("echo:" + m);
                        }
                      });
                })
            .listen(0, "127.0.0.1")
            .await(10, TimeUnit.SECONDS);
    try (var h =
        new Harness(
            dataDir,
            "rooms: [ { id: shop, origin: \"http://127.0.0.1:" + wsServer.actualPort() + "\" } ]",
            new TestOrigin())) {
      var received = new CompletableFuture<String>();
      var browserClosed = new CompletableFuture<Void>();
      WebSocket ws =
          h.client
              .newWebSocketBuilder()
              .connectTimeout(Duration.ofSeconds(10))
              .buildAsync(
                  URI.create("ws://127.0.0.1:" + h.gateway.port() + "/live"),
                  new WebSocket.Listener() {
                    @Override
                    public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
                      received.complete(data.toString());
                      w.request(1);
                      return null;
                    }

                    @Override
                    public CompletionStage<?> onClose(WebSocket w, int status, String reason) {
                      browserClosed.complete(null);
                      return null;
                    }

                    @Override
                    public void onError(WebSocket w, Throwable error) {
                      browserClosed.complete(null);
                    }
                  })
              .get(10, TimeUnit.SECONDS);
      ws.sendText("hi", true);
      assertThat(received.get(10, TimeUnit.SECONDS)).isEqualTo("echo:hi");

      if (closer.equals("browser")) {
        ws.abort();
      } else {
        ws.sendText("bye", true);
        browserClosed.get(10, TimeUnit.SECONDS);
      }
      originClosed.get(10, TimeUnit.SECONDS);

      assertThat(errors.list).extracting(ILoggingEvent::getFormattedMessage).isEmpty();
    } finally {
      root.detachAppender(errors);
      wsVertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aWebSocketUpgradeToAnOriginThatRefusesTheConnectionGetsA502() throws Exception {
    int closedPort = io.anteroom.testkit.FreePorts.take();
    try (var h =
        new Harness(
            dataDir,
            "rooms: [ { id: shop, origin: \"http://127.0.0.1:" + closedPort + "\" } ]",
            new TestOrigin())) {
      String reply =
          raw(
              h.gateway.port(),
              "GET /live HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\n"
                  + "Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
                  + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n");
      assertThat(reply).startsWith("HTTP/1.1 502");
    }
  }

  @Test
  void shutdownDrainsARequestInFlight() throws Exception {
    var slowOrigin = Vertx.vertx();
    var server =
        slowOrigin
            .createHttpServer()
            .requestHandler(req -> slowOrigin.setTimer(400, t -> req.response().end("origin:slow")))
            .listen(0, "127.0.0.1")
            .await(10, TimeUnit.SECONDS);
    var h =
        new Harness(
            dataDir,
            "rooms: [ { id: shop, origin: \"http://127.0.0.1:" + server.actualPort() + "\" } ]");
    try {
      var inFlight = h.browser().getAsync("/");
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> h.room("shop").meters().admittedNew().getCount() == 1);
      h.gateway.close();
      HttpResponse<String> r = inFlight.get(10, TimeUnit.SECONDS);
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body()).isEqualTo("origin:slow");
    } finally {
      h.origin.close();
      slowOrigin.close().await(10, TimeUnit.SECONDS);
    }
  }

  /** Sends raw bytes and returns what came back until the server closed or 5 s passed. */
  public static String raw(int port, String request) throws Exception {
    try (var socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(5000);
      OutputStream out = socket.getOutputStream();
      out.write(request.getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      InputStream in = socket.getInputStream();
      var sb = new StringBuilder();
      byte[] buf = new byte[8192];
      try {
        int n;
        while ((n = in.read(buf)) > 0) {
          sb.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
          if (sb.indexOf("\r\n\r\n") > 0 && !sb.toString().contains("Transfer-Encoding")) {
            break;
          }
        }
      } catch (java.net.SocketTimeoutException e) {
        // the server kept the connection open: what arrived is the answer
      }
      return sb.toString();
    }
  }
}
