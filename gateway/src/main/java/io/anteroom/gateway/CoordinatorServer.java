package io.anteroom.gateway;

import static io.anteroom.gateway.CoordinatorProtocol.JSON;

import io.anteroom.room.RoomConfig;
import io.anteroom.room.WorkerReport;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import java.io.IOException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves a {@link Coordination} (the coordinating state of every room) to remote gateways with
 * {@link CoordinatorProtocol}. The {@code anteroom coordinator} process.
 *
 * <p>Each request is decoded, handed to the coordination once and answered when its stage
 * completes, on the request's event loop; nothing here retries or holds state of its own.
 */
final class CoordinatorServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorServer.class);
  private static final int MAX_BODY = 4 * 1024 * 1024;

  private final Vertx vertx;
  private final HttpServer server;

  CoordinatorServer(Coordination coordination, String host, int port) {
    this.vertx = Vertx.vertx();
    try {
      this.server = vertx.createHttpServer()
          .requestHandler(req -> handle(coordination, req))
          .listen(port, host).await(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      vertx.close();
      throw new IllegalStateException("coordinator: cannot listen on " + host + ":" + port + " ("
          + e.getMessage() + "); is another process using the port?", e);
    }
  }

  int port() {
    return server.actualPort();
  }

  private void handle(Coordination c, HttpServerRequest req) {
    String[] parts = req.path().split("/");
    if (req.path().equals("/health")) {
      req.response().end("ok\n");
      return;
    }
    if (parts.length < 3 || !parts[1].equals("rooms")) {
      text(req, 404, "unknown path " + req.path() + "; see CoordinatorProtocol");
      return;
    }
    String roomId = parts[2];
    String action = parts.length > 3 ? parts[3] : "";
    String method = req.method().name();
    switch (method + " " + action) {
      case "PUT " -> body(req, b -> c.configure(JSON.readValue(b.getBytes(), RoomConfig.class))
          .thenApply(v -> (Object) null));
      case "POST reports" -> body(req, b -> c.report(roomId,
          JSON.readValue(b.getBytes(), WorkerReport.class)).thenApply(s -> (Object) s));
      case "POST take" -> body(req, b -> {
        var take = JSON.readValue(b.getBytes(), CoordinatorProtocol.Take.class);
        if (!take.key().roomId().equals(roomId)) {
          throw new IllegalArgumentException("counter key of room " + take.key().roomId()
              + " sent to room " + roomId);
        }
        return c.take(take.key(), take.limit()).thenApply(g -> (Object) g);
      });
      case "DELETE " -> body(req, b -> c.remove(roomId).thenApply(v -> (Object) null));
      default -> text(req, 405, method + " " + req.path() + " is not part of the protocol");
    }
  }

  private interface Call {
    CompletionStage<Object> apply(Buffer body) throws IOException;
  }

  private void body(HttpServerRequest req, Call call) {
    String length = req.getHeader("Content-Length");
    if (length != null && Long.parseLong(length) > MAX_BODY) {
      text(req, 413, "body above " + MAX_BODY + " bytes");
      return;
    }
    var context = vertx.getOrCreateContext();
    req.body().onFailure(e -> text(req, 400, "cannot read the body: " + e.getMessage()))
        .onSuccess(b -> {
          CompletionStage<Object> stage;
          try {
            stage = call.apply(b);
          } catch (IOException | IllegalArgumentException e) {
            text(req, 400, "malformed request: " + e.getMessage());
            return;
          }
          stage.whenComplete((result, failure) -> context.runOnContext(v -> {
            if (failure != null) {
              LOG.warn("coordinator call {} failed", req.path(), failure);
              text(req, 409, String.valueOf(failure.getMessage()));
            } else if (result == null) {
              req.response().setStatusCode(204).end();
            } else {
              try {
                req.response().putHeader("Content-Type", "application/json")
                    .end(Buffer.buffer(JSON.writeValueAsBytes(result)));
              } catch (IOException e) {
                text(req, 500, "cannot encode the reply: " + e.getMessage());
              }
            }
          }));
        });
  }

  private static void text(HttpServerRequest req, int status, String message) {
    req.response().setStatusCode(status).putHeader("Content-Type", "text/plain; charset=utf-8")
        .end(message + "\n");
  }

  @Override
  public void close() {
    try {
      vertx.close().await(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.warn("coordinator did not close in time", e);
    }
  }
}
