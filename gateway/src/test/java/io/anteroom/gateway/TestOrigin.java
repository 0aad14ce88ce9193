package io.anteroom.gateway;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An in-process origin on 127.0.0.1: counts requests, echoes what it received, answers {@code
 * /revoke} with {@code Anteroom-Command: revoke}, says in {@code X-Origin-Saw-Pass} which {@code
 * Anteroom-Pass} it received ({@code none}), never answers {@code /hang} and answers {@code /held}
 * when the test releases it.
 */
public final class TestOrigin implements AutoCloseable {
  public final Vertx vertx = Vertx.vertx();
  public final AtomicInteger requests = new AtomicInteger();
  public final Map<String, String> lastHeaders = new ConcurrentHashMap<>();

  /** Every request received, as {@code "<Host header> <request-target>"}, in arrival order. */
  public final Queue<String> received = new ConcurrentLinkedQueue<>();

  /** Requests for {@code /held}, unanswered until {@link #releaseHeld}. */
  public final Queue<io.vertx.core.http.HttpServerRequest> held = new ConcurrentLinkedQueue<>();

  /** Answers every held request with 200 {@code released}. */
  public void releaseHeld() {
    for (var req = held.poll(); req != null; req = held.poll()) {
      var r = req;
      r.response().end("released");
    }
  }

  private static final Pattern USER = Pattern.compile(" /u/(\\d+)$");

  private final HttpServer server;

  public TestOrigin() throws Exception {
    server =
        vertx
            .createHttpServer()
            .requestHandler(
                req -> {
                  if (req.path().equals("/hang")) {
                    return; // never answers: the gateway's origin timeout must end it
                  }
                  if (req.path().equals("/held")) {
                    held.add(req); // answered by releaseHeld()
                    return;
                  }
                  requests.incrementAndGet();
                  received.add(req.getHeader("Host") + " " + req.uri());
                  lastHeaders.clear();
                  req.headers()
                      .forEach(e -> lastHeaders.put(e.getKey().toLowerCase(), e.getValue()));
                  req.body()
                      .onSuccess(
                          body -> {
                            var resp =
                                req.response()
                                    .putHeader("Content-Type", "text/plain")
                                    .putHeader("X-Origin-Method", req.method().name())
                                    .putHeader("X-Origin-Uri", req.uri())
                                    .putHeader(
                                        "X-Origin-Saw-Pass",
                                        String.valueOf(
                                            req.getHeader("Anteroom-Pass") == null
                                                ? "none"
                                                : req.getHeader("Anteroom-Pass")))
                                    .putHeader(
                                        "Connection",
                                        "close-not-really"); // a hop-by-hop-looking header name
                            if (req.path().equals("/public")) {
                              resp.putHeader("Cache-Control", "public, max-age=600, s-maxage=600");
                            }
                            if (req.path().equals("/revoke")) {
                              resp.putHeader("Anteroom-Command", "revoke");
                            }
                            resp.end("origin:" + req.path() + ":" + body.toString());
                          });
                })
            .listen(0, "127.0.0.1")
            .await(10, TimeUnit.SECONDS);
  }

  String url() {
    return "http://127.0.0.1:" + server.actualPort();
  }

  /** The users {@code N} whose requests for {@code /u/N} reached this origin. */
  public Set<Integer> users() {
    Set<Integer> out = new TreeSet<>();
    for (String line : received) {
      Matcher m = USER.matcher(line);
      if (m.find()) {
        out.add(Integer.parseInt(m.group(1)));
      }
    }
    return out;
  }

  public int port() {
    return server.actualPort();
  }

  @Override
  public void close() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }
}
