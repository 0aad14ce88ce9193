package io.anteroom.gateway.edge;

import io.anteroom.door.admission.CoordinatedRoomGate;
import io.anteroom.door.config.GatewayConfig.PublicListenerSettings;
import io.anteroom.door.route.ClientAddress;
import io.anteroom.gateway.Gateway;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.PemKeyCertOptions;
import java.util.List;

/**
 * One instance of the public listener: an {@link HttpServer} created on this verticle's own
 * event-loop context. {@link Gateway} deploys one instance per event loop on the same host:port;
 * Vert.x then hands the accepted connections to the instances in turn, so every core serves public
 * traffic (and {@link CoordinatedRoomGate} gets one worker shard per event loop).
 *
 * <p>HTTP/1.1 and h2c in cleartext; with {@code tls}, HTTPS with ALPN (h2 and HTTP/1.1). With
 * {@code proxyProtocol}, every connection must start with a PROXY header (v1 or v2); its claimed
 * address is the request's peer, believed because the {@link ListenerGuard} closes connections
 * whose TCP peer is not a trusted proxy.
 *
 * <p>Invariants: {@code servers} is a thread-safe list shared by all instances; each instance adds
 * its server once it listens, from its own event loop, and the gateway reads the list only after
 * the deployment has completed (drain and shutdown close every server in it). One {@link
 * ListenerGuard} serves all instances, so the connection cap counts the whole listener.
 */
public final class PublicListener extends VerticleBase {

  /**
   * Strict thread mode: every request's response is written on its connection's event loop (the
   * gatekeeper answers asynchronous decisions through {@code runOnContext}, the origin client runs
   * on the same loop), so Vert.x writes straight to the channel instead of through a queue that
   * other threads may fill (an A/B gave 3 of 4 rounds ahead); a write from another thread throws.
   */
  static final HttpServerOptions OPTIONS =
      new HttpServerOptions()
          .setMaxHeaderSize(16 * 1024)
          .setMaxInitialLineLength(8 * 1024)
          .setCompressionSupported(false)
          .setStrictThreadMode(true);

  private final Handler<HttpServerRequest> handler;
  private final int port;
  private final String host;
  private final List<HttpServer> servers;
  private final HttpServerOptions options;
  private final ListenerGuard guard;

  public PublicListener(
      Handler<HttpServerRequest> handler,
      int port,
      String host,
      List<HttpServer> servers,
      HttpServerOptions options,
      ListenerGuard guard) {
    this.handler = handler;
    this.port = port;
    this.host = host;
    this.servers = servers;
    this.options = options;
    this.guard = guard;
  }

  /** The server options of the public listener with these settings. */
  public static HttpServerOptions options(PublicListenerSettings settings) {
    HttpServerOptions o = ListenerGuard.options(OPTIONS, settings.limits());
    settings
        .tls()
        .ifPresent(
            tls ->
                o.setSsl(true)
                    .setUseAlpn(true)
                    .setKeyCertOptions(
                        new PemKeyCertOptions()
                            .setCertPath(tls.certFile().toString())
                            .setKeyPath(tls.keyFile().toString())));
    return o.setUseProxyProtocol(settings.proxyProtocol());
  }

  /**
   * The guard of the public listener: with the PROXY protocol, only connections from {@code
   * clients}' trusted proxies are served.
   */
  public static ListenerGuard guard(
      GuardedTransport transport, PublicListenerSettings settings, ClientAddress clients) {
    return ListenerGuard.refusing(
        transport,
        settings.limits(),
        settings.proxyProtocol() ? clients::mayNameClient : peer -> true);
  }

  @Override
  public Future<?> start() {
    return guard.listen(vertx, options, host, port, handler).onSuccess(servers::add);
  }
}
