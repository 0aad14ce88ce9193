package io.anteroom.gateway.demo;

import io.anteroom.gateway.edge.OriginProxy;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * The demo's built-in origin on 127.0.0.1:8081: a tiny shop page that says the visitor got in, with
 * a "leave" link answered with {@code Anteroom-Command: revoke}.
 */
public final class DemoOrigin implements AutoCloseable {

  private final Vertx vertx = Vertx.vertx();
  private final HttpServer server;

  public DemoOrigin(String host, int port) {
    try {
      server =
          vertx
              .createHttpServer()
              .requestHandler(
                  req -> {
                    var response =
                        req.response()
                            .putHeader("Content-Type", "text/html; charset=utf-8")
                            .putHeader("Cache-Control", "no-store");
                    if (req.path().equals("/leave")) {
                      response
                          .putHeader(OriginProxy.REVOKE_HEADER, "revoke")
                          .end(
                              page(
                                  "You left the shop",
                                  "Your session is over. <a href=\"/\">Come back</a> and you will be a new visitor."));
                      return;
                    }
                    response.end(
                        page(
                            "Welcome to the demo shop",
                            "You are in: the waiting room let you through at "
                                + Instant.now()
                                + ". Reload as you like; your session is renewed on every request."
                                + " <a href=\"/leave\">Leave the shop</a> to free your place."));
                  })
              .listen(port, host)
              .await(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      vertx.close();
      throw new IllegalStateException(
          "demo origin: cannot listen on " + host + ":" + port + " (" + e.getMessage() + ")", e);
    }
  }

  private static String page(String title, String text) {
    return "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\""
        + " content=\"width=device-width, initial-scale=1\"><title>"
        + title
        + "</title></head>"
        + "<body style=\"font:17px/1.5 system-ui,sans-serif;max-width:34rem;margin:2rem auto;"
        + "padding:0 1rem\"><h1>"
        + title
        + "</h1><p>"
        + text
        + "</p></body></html>";
  }

  public int port() {
    return server.actualPort();
  }

  @Override
  public void close() {
    try {
      vertx.close().await(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("demo origin did not close", e);
    }
  }
}
