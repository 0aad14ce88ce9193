package io.anteroom.gateway.edge;

import io.anteroom.gateway.Gateway;
import io.anteroom.gateway.admission.CoordinatedRoomGate;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.util.List;

/**
 * One instance of the public listener: an {@link HttpServer} created on this verticle's own
 * event-loop context. {@link Gateway} deploys one instance per event loop on the same host:port;
 * Vert.x then hands the accepted connections to the instances in turn, so every core serves public
 * traffic (and {@link CoordinatedRoomGate} gets one worker shard per event loop).
 *
 * <p>Invariants: {@code servers} is a thread-safe list shared by all instances; each instance adds
 * its server once it listens, from its own event loop, and the gateway reads the list only after
 * the deployment has completed (drain and shutdown close every server in it).
 */
public final class PublicListener extends VerticleBase {

  static final HttpServerOptions OPTIONS =
      new HttpServerOptions()
          .setMaxHeaderSize(16 * 1024)
          .setMaxInitialLineLength(8 * 1024)
          .setCompressionSupported(false)
          .setIdleTimeout(120);

  private final Handler<HttpServerRequest> handler;
  private final int port;
  private final String host;
  private final List<HttpServer> servers;

  public PublicListener(
      Handler<HttpServerRequest> handler, int port, String host, List<HttpServer> servers) {
    this.handler = handler;
    this.port = port;
    this.host = host;
    this.servers = servers;
  }

  @Override
  public Future<?> start() {
    return vertx
        .createHttpServer(new HttpServerOptions(OPTIONS))
        .requestHandler(handler)
        .listen(port, host)
        .onSuccess(servers::add);
  }
}
