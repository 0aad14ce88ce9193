package io.anteroom.gateway.edge;

import io.anteroom.door.config.GatewayConfig.ConnectionLimits;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.timeout.IdleStateHandler;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.SocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one listener's connections within its {@link ConnectionLimits} (no cheap denial of
 * service): a thin shell over Vert.x around {@link ConnectionBudget} (how many) and {@link
 * HeadDeadline} (how long without a request head), plus an optional check of the connection's TCP
 * peer (the PROXY protocol's trusted proxies).
 *
 * <ul>
 *   <li>Before Vert.x has an HTTP connection (TLS handshake, PROXY header, the cleartext listener
 *       telling HTTP/1 from h2c and reading the first head), {@link #options} bounds each phase by
 *       the head deadline: the handshake and PROXY timeouts, and a read-idle timeout that sees no
 *       byte until the first head is complete.
 *   <li>When Vert.x hands over the HTTP connection, it is refused (closed at once) above the cap or
 *       from a refused peer; otherwise it is counted until it closes, its read-idle timeout is
 *       replaced by the plain idle timeout, and its {@link HeadDeadline} runs.
 *   <li>Each request stops the deadline until its response ends; then the next head is awaited.
 * </ul>
 *
 * <p>Invariants: the guard sets each request's {@code response().endHandler} and {@code
 * closeHandler}; the handlers behind it must not replace them (vert.x-web does only when a handler
 * calls {@code RoutingContext.addEndHandler}/{@code addBodyEndHandler}, which the admin API does
 * not). Requests of a refused connection never reach the handler.
 *
 * <p>Thread safety: one guard may serve several servers (one per event loop); each connection is
 * touched only on its own event loop, the shared state is a concurrent map and an atomic counter.
 */
public final class ListenerGuard {

  private static final Logger LOG = LoggerFactory.getLogger(ListenerGuard.class);

  /** The name Vert.x gives the idle-timeout handler in a connection's pipeline. */
  private static final String IDLE = "idle";

  private final Vertx vertx;
  private final ConnectionLimits limits;
  private final ConnectionBudget budget;
  private final Predicate<String> tcpPeerAccepted;
  private final Map<HttpConnection, HeadDeadline> deadlines = new ConcurrentHashMap<>();

  /**
   * {@code tcpPeerAccepted} judges the connection's real TCP peer (an IP literal); connections it
   * refuses are closed before any request is handled.
   */
  public ListenerGuard(Vertx vertx, ConnectionLimits limits, Predicate<String> tcpPeerAccepted) {
    this.vertx = vertx;
    this.limits = limits;
    this.budget = new ConnectionBudget(limits.maxConnections());
    this.tcpPeerAccepted = tcpPeerAccepted;
  }

  /** A guard that accepts every peer (no PROXY protocol). */
  public ListenerGuard(Vertx vertx, ConnectionLimits limits) {
    this(vertx, limits, peer -> true);
  }

  /**
   * {@code base} with the timeouts of {@code limits}: idle timeout, and the head deadline for the
   * phases before an HTTP connection exists (TLS handshake, PROXY header, first head).
   */
  public static HttpServerOptions options(HttpServerOptions base, ConnectionLimits limits) {
    int head = limits.requestHeadTimeoutMillis();
    return new HttpServerOptions(base)
        .setIdleTimeoutUnit(TimeUnit.MILLISECONDS)
        .setIdleTimeout(limits.idleTimeoutSeconds() * 1000)
        .setReadIdleTimeout(head)
        .setSslHandshakeTimeout(head)
        .setSslHandshakeTimeoutUnit(TimeUnit.MILLISECONDS)
        .setProxyProtocolTimeout(head)
        .setProxyProtocolTimeoutUnit(TimeUnit.MILLISECONDS);
  }

  /** Installs the guard and {@code handler} on {@code server} (before it listens). */
  public HttpServer guard(HttpServer server, Handler<HttpServerRequest> handler) {
    return server.connectionHandler(this::accept).requestHandler(r -> request(r, handler));
  }

  /** Connections counted now (for tests and metrics). */
  public int openConnections() {
    return budget.open();
  }

  private static long now() {
    return System.nanoTime() / 1_000_000;
  }

  private void accept(HttpConnection connection) {
    SocketAddress peer = connection.remoteAddress(true);
    String ip = peer == null ? null : peer.hostAddress();
    if (!tcpPeerAccepted.test(ip)) {
      LOG.debug("closing a connection from {}: not a trusted proxy", ip);
      connection.close();
      return;
    }
    if (!budget.tryOpen()) {
      LOG.debug("closing a connection from {}: {} connections open", ip, budget.max());
      connection.close();
      return;
    }
    idleTimeoutOnly(connection);
    HeadDeadline deadline = new HeadDeadline(limits.requestHeadTimeoutMillis(), now());
    deadlines.put(connection, deadline);
    connection.closeHandler(
        v -> {
          deadlines.remove(connection);
          budget.closed();
        });
    schedule(connection, deadline);
  }

  /**
   * The read-idle timeout guarded the phase before the HTTP connection existed; from now on a
   * request may wait for its origin longer than the head deadline, so only the idle timeout stays.
   * (Vert.x offers no public access to the pipeline: its server connections expose their channel
   * through the internal {@code HttpServerConnection}; a test checks a request outliving the head
   * deadline is still answered.)
   */
  private void idleTimeoutOnly(HttpConnection connection) {
    if (connection instanceof io.vertx.core.http.impl.HttpServerConnection internal) {
      ChannelPipeline pipeline = internal.channelHandlerContext().pipeline();
      if (pipeline.get(IDLE) instanceof IdleStateHandler) {
        pipeline.replace(
            IDLE,
            IDLE,
            new IdleStateHandler(0, 0, limits.idleTimeoutSeconds() * 1000L, TimeUnit.MILLISECONDS));
      }
    }
  }

  private void schedule(HttpConnection connection, HeadDeadline deadline) {
    long delay = deadline.timerDelay(now());
    if (delay != HeadDeadline.NO_TIMER) {
      vertx.setTimer(delay, id -> fire(connection, deadline));
    }
  }

  private void fire(HttpConnection connection, HeadDeadline deadline) {
    if (deadlines.get(connection) != deadline) {
      return; // closed meanwhile
    }
    if (deadline.expired(now())) {
      LOG.debug(
          "closing a connection from {}: no request head within {} ms",
          connection.remoteAddress(),
          limits.requestHeadTimeoutMillis());
      connection.close();
    } else {
      schedule(connection, deadline);
    }
  }

  private void request(HttpServerRequest request, Handler<HttpServerRequest> handler) {
    HttpConnection connection = request.connection();
    HeadDeadline deadline = deadlines.get(connection);
    if (deadline == null) {
      connection.close(); // refused in accept: its first request is never handled
      return;
    }
    deadline.requestStarted();
    Handler<Void> ended =
        new Handler<>() {
          private boolean done;

          @Override
          public void handle(Void v) {
            if (!done) {
              done = true;
              deadline.requestEnded(now());
              schedule(connection, deadline);
            }
          }
        };
    request.response().endHandler(ended).closeHandler(ended);
    handler.handle(request);
  }
}
