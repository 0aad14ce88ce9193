package io.anteroom.gateway.edge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.anteroom.gateway.edge.OriginConnectionsTest.ScriptedOrigin;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link OriginClient} alone, behind a one-loop Vert.x server that forwards every request with it:
 * its connection cap, the requests that wait for a connection, and a client that goes away.
 */
class OriginClientTest {

  private final Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
  private final AtomicInteger forwarded = new AtomicInteger();
  private OriginClient client;
  private HttpServer server;

  @AfterEach
  void close() throws Exception {
    if (client != null) {
      client.close();
    }
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  /** A server forwarding to {@code origin} with at most {@code max} origin connections. */
  private int forwardTo(ScriptedOrigin origin, long timeoutMillis, int max) throws Exception {
    client =
        new OriginClient(
            vertx, URI.create("http://127.0.0.1:" + origin.port()), timeoutMillis, max);
    server =
        vertx
            .createHttpServer()
            .requestHandler(
                request -> {
                  request.pause();
                  forwarded.incrementAndGet();
                  var headers = DefaultHttpHeadersFactory.headersFactory().newHeaders();
                  headers.set("Host", "origin");
                  client.send(
                      request,
                      new DefaultHttpRequest(
                          HttpVersion.HTTP_1_1, HttpMethod.GET, request.uri(), headers),
                      false,
                      response -> {},
                      failure ->
                          request
                              .response()
                              .setStatusCode(failure instanceof TimeoutException ? 504 : 502)
                              .end());
                })
            .listen(0, "127.0.0.1")
            .await(10, TimeUnit.SECONDS);
    return server.actualPort();
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  @Test
  void requestsBeyondTheConnectionCapWaitForAConnectionToComeBack() throws Exception {
    CountDownLatch answer = new CountDownLatch(1);
    try (var origin =
        new ScriptedOrigin(
            (head, out) -> {
              try {
                answer.await();
              } catch (InterruptedException e) {
                throw new java.io.IOException(e);
              }
              out.write(ascii("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"));
              return true;
            })) {
      int port = forwardTo(origin, 30_000, 2);
      HttpClient http = HttpClient.newHttpClient();
      List<CompletableFuture<HttpResponse<String>>> replies = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        replies.add(
            http.sendAsync(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/" + i))
                    .timeout(Duration.ofSeconds(20))
                    .build(),
                HttpResponse.BodyHandlers.ofString()));
      }
      // all five were handed to the client while the first two held both connections
      await().atMost(Duration.ofSeconds(10)).until(() -> forwarded.get() == 5);
      answer.countDown();
      for (var reply : replies) {
        assertThat(reply.get(10, TimeUnit.SECONDS).body()).isEqualTo("ok");
      }
      assertThat(origin.connections.get())
          .as("origin connections, heads " + origin.heads)
          .isEqualTo(2);
    }
  }

  @Test
  void aRequestThatFindsNoConnectionWithinTheTimeoutGetsA504() throws Exception {
    CountDownLatch done = new CountDownLatch(1);
    try (var origin =
        new ScriptedOrigin(
            (head, out) -> {
              // a long answer that keeps coming (so it never times out) until the test ends it
              out.write(ascii("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"));
              try {
                while (!done.await(20, TimeUnit.MILLISECONDS)) {
                  out.write(ascii("1\r\nx\r\n"));
                  out.flush();
                }
              } catch (InterruptedException e) {
                return false;
              }
              out.write(ascii("0\r\n\r\n"));
              return true;
            })) {
      int port = forwardTo(origin, 2_000, 1);
      HttpClient http = HttpClient.newHttpClient();
      var first =
          http.sendAsync(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/a"))
                  .timeout(Duration.ofSeconds(20))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      await().atMost(Duration.ofSeconds(10)).until(() -> origin.heads.size() == 1);
      // the one connection stays busy: the second request waits, then gives up with 504
      var second =
          http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/b"))
                  .timeout(Duration.ofSeconds(20))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(second.statusCode()).isEqualTo(504);
      assertThat(origin.heads).hasSize(1); // it never reached the origin
      done.countDown();
      assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }
  }

  /**
   * The gateway closes its origin client as it stops, after the drain, when Vert.x may not have
   * closed the clients' connections yet: a request still waiting on the origin then, or for a
   * connection to it, is cut off (its connection closed without a response), never answered with a
   * 502 (which blamed the site and counted as answered in the drain).
   */
  @Test
  void requestsUnansweredWhenTheClientClosesAreCutOffNotAnswered() throws Exception {
    try (var origin = new ScriptedOrigin((head, out) -> true)) { // answers nothing, ever
      int port = forwardTo(origin, 60_000, 1);
      try (var held = new java.net.Socket("127.0.0.1", port);
          var waiting = new java.net.Socket("127.0.0.1", port)) {
        held.getOutputStream().write(ascii("GET /held HTTP/1.1\r\nHost: a\r\n\r\n"));
        await().atMost(Duration.ofSeconds(10)).until(() -> origin.heads.size() == 1);
        // the one connection is busy: this one waits for it
        waiting.getOutputStream().write(ascii("GET /waiting HTTP/1.1\r\nHost: a\r\n\r\n"));
        await().atMost(Duration.ofSeconds(10)).until(() -> forwarded.get() == 2);

        client.close(); // both clients' connections still open

        assertThat(untilClosed(held)).as("what the held request got").isEmpty();
        assertThat(untilClosed(waiting)).as("what the waiting request got").isEmpty();
      }
      assertThat(origin.heads).hasSize(1);
    }
  }

  /**
   * What {@code socket} receives until the server closes (or resets) it; if it is still open after
   * 30 s (e.g. a response on a kept-alive connection), what it received followed by {@code [still
   * open]}.
   */
  private static String untilClosed(java.net.Socket socket) throws java.io.IOException {
    socket.setSoTimeout(30_000);
    var got = new java.io.ByteArrayOutputStream();
    byte[] buffer = new byte[1024];
    try {
      for (int n; (n = socket.getInputStream().read(buffer)) >= 0; ) {
        got.write(buffer, 0, n);
      }
    } catch (java.net.SocketTimeoutException e) {
      return got.toString(StandardCharsets.ISO_8859_1) + "[still open]";
    } catch (java.net.SocketException e) {
      // reset: closed all the same
    }
    return got.toString(StandardCharsets.ISO_8859_1);
  }

  @Test
  void aClientThatGoesAwayClosesItsOriginConnectionAtOnce() throws Exception {
    try (var origin = new ScriptedOrigin((head, out) -> true)) { // answers nothing, ever
      // an origin timeout of a minute: only the client's leaving can close the connection sooner
      int port = forwardTo(origin, 60_000, 4);
      try (var socket = new java.net.Socket("127.0.0.1", port)) {
        socket.getOutputStream().write(ascii("GET /x HTTP/1.1\r\nHost: a\r\n\r\n"));
        await().atMost(Duration.ofSeconds(10)).until(() -> origin.heads.size() == 1);
      }
      assertThat(origin.ended.get()).isZero();
      await().atMost(Duration.ofSeconds(10)).until(() -> origin.ended.get() == 1);
    }
  }
}
