package io.anteroom.gateway.edge;

import io.anteroom.door.config.GatewayConfig.ConnectionLimits;
import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one listener's connections within its {@link ConnectionLimits} (no cheap denial of
 * service): a thin shell over Netty and Vert.x around the pure decisions of {@link
 * ConnectionBudget} or {@link EvictingBudget} (how many) and {@link HeadDeadline} (how long without
 * a request head), plus an optional check of the connection's TCP peer (the PROXY protocol's
 * trusted proxies).
 *
 * <ul>
 *   <li>At accept, on the acceptor thread before any byte is read ({@link GuardedTransport} hands
 *       the channel over), a connection is counted or refused (closed at once), and its head
 *       deadline starts: one absolute deadline for everything before its first request (TLS
 *       handshake, PROXY header, telling HTTP/1 from h2c, the head itself), which bytes arriving do
 *       not extend.
 *   <li>A refused TCP peer (the PROXY protocol from anyone but a trusted proxy) is closed at
 *       accept, before it is counted.
 *   <li>Each request stops the deadline until its response ends; then the next head must arrive
 *       within the same time (the keep-alive deadline, as absolute as the first).
 *   <li>The connection is counted until its channel closes.
 * </ul>
 *
 * <p>The public listener refuses newcomers at its cap ({@link ConnectionBudget}); the admin
 * listener closes the oldest connection on which no request carried the token instead ({@link
 * EvictingBudget}), so idle or slow connections cannot lock an operator out.
 *
 * <p>Invariants: the guard sets each request's {@code response().endHandler}, which the handlers
 * behind it must not replace (vert.x-web does only when a handler calls {@code
 * RoutingContext.addEndHandler}/{@code addBodyEndHandler}, which the admin API does not); Vert.x
 * calls it also when the connection closes under an unfinished response, so the guard's {@code
 * closeHandler} is only a second way to the same count, and handlers may replace it (the edge's
 * long polls and the origin client do). Requests of a connection the guard did not admit never
 * reach the handler.
 *
 * <p>Thread safety: one guard may serve several servers (one per event loop); each connection's
 * state is touched only on its channel's event loop (Vert.x serves a channel on its own loop), the
 * budgets are thread-safe.
 */
public final class ListenerGuard {

  private static final Logger LOG = LoggerFactory.getLogger(ListenerGuard.class);

  private static final AttributeKey<Tracked> TRACKED =
      AttributeKey.valueOf(ListenerGuard.class.getName());

  /** One admitted connection: its channel and its head deadline (used on its event loop only). */
  private static final class Tracked {
    final Channel channel;
    final HeadDeadline deadline;

    Tracked(Channel channel, HeadDeadline deadline) {
      this.channel = channel;
      this.deadline = deadline;
    }
  }

  private final GuardedTransport transport;
  private final ConnectionLimits limits;
  private final Predicate<String> tcpPeerAccepted;
  private final Predicate<HttpServerRequest> vouches;
  private final ConnectionBudget refusing;
  private final EvictingBudget<Tracked> evicting;
  private final LongSupplier clockMillis = () -> System.nanoTime() / 1_000_000;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicLong answered = new AtomicLong();
  private final AtomicLong unanswered = new AtomicLong();

  /** Whether {@link #listen} registered this guard with the transport (guarded by this). */
  private boolean registered;

  private ListenerGuard(
      GuardedTransport transport,
      ConnectionLimits limits,
      Predicate<String> tcpPeerAccepted,
      Predicate<HttpServerRequest> vouches) {
    this.transport = transport;
    this.limits = limits;
    this.tcpPeerAccepted = tcpPeerAccepted;
    this.vouches = vouches;
    this.refusing = vouches == null ? new ConnectionBudget(limits.maxConnections()) : null;
    this.evicting = vouches == null ? null : new EvictingBudget<>(limits.maxConnections());
  }

  /**
   * A guard that refuses newcomers at the cap (the public listener); {@code tcpPeerAccepted} judges
   * the connection's real TCP peer (an IP literal): connections it refuses are closed before any
   * request is handled.
   */
  public static ListenerGuard refusing(
      GuardedTransport transport, ConnectionLimits limits, Predicate<String> tcpPeerAccepted) {
    return new ListenerGuard(transport, limits, tcpPeerAccepted, null);
  }

  /**
   * A guard that, at the cap, closes the oldest connection on which no request was {@code vouched}
   * for (carried the admin token) to admit a newcomer (the admin listener).
   */
  public static ListenerGuard evicting(
      GuardedTransport transport, ConnectionLimits limits, Predicate<HttpServerRequest> vouched) {
    return new ListenerGuard(transport, limits, peer -> true, vouched);
  }

  /**
   * {@code base} with the idle timeout of {@code limits}; the TLS handshake and the PROXY header
   * are bounded by Vert.x with the head deadline too (the guard's own deadline covers them anyway).
   */
  public static HttpServerOptions options(HttpServerOptions base, ConnectionLimits limits) {
    int head = limits.requestHeadTimeoutMillis();
    return new HttpServerOptions(base)
        .setIdleTimeoutUnit(TimeUnit.MILLISECONDS)
        .setIdleTimeout(limits.idleTimeoutSeconds() * 1000)
        .setSslHandshakeTimeout(head)
        .setSslHandshakeTimeoutUnit(TimeUnit.MILLISECONDS)
        .setProxyProtocolTimeout(head)
        .setProxyProtocolTimeoutUnit(TimeUnit.MILLISECONDS);
  }

  /**
   * Creates a server with {@code options} serving {@code handler} behind this guard, on {@code
   * vertx}'s current context, and listens on {@code host}:{@code port}. Every server of one
   * listener (the public listener's, one per event loop, share a port) listens through here.
   */
  public Future<HttpServer> listen(
      Vertx vertx,
      HttpServerOptions options,
      String host,
      int port,
      Handler<HttpServerRequest> handler) {
    HttpServerOptions o = new HttpServerOptions(options).setHost(host).setPort(port);
    synchronized (this) {
      if (!registered) {
        transport.register(host, port, this);
        registered = true;
      }
    }
    return vertx
        .createHttpServer(o)
        .connectionHandler(this::connected)
        .requestHandler(r -> request(r, handler))
        .listen();
  }

  /** Connections counted now (for tests and metrics). */
  public int openConnections() {
    return refusing != null ? refusing.open() : evicting.open();
  }

  /** Requests handed to the handler whose response has not ended and whose connection is open. */
  public int requestsInFlight() {
    return inFlight.get();
  }

  /** Requests whose response ended (was sent whole) since the guard was made. */
  public long requestsAnswered() {
    return answered.get();
  }

  /** Requests whose connection closed before their response ended, since the guard was made. */
  public long requestsUnanswered() {
    return unanswered.get();
  }

  /**
   * A connection just accepted, on the listener's acceptor thread before the channel is registered
   * with its event loop ({@link GuardedTransport}): whether it is admitted. The caller closes a
   * refused one at once and drops it, so it never reaches an event loop, let alone Vert.x. An
   * admitted one is counted until its channel closes, and its head deadline runs from now.
   */
  boolean admit(Channel channel) {
    String ip = ip(channel);
    if (!tcpPeerAccepted.test(ip)) {
      LOG.debug("closing a connection from {}: not a trusted proxy", ip);
      return false;
    }
    Tracked tracked = new Tracked(channel, new HeadDeadline(head(), clockMillis.getAsLong()));
    if (refusing != null) {
      if (!refusing.tryOpen()) {
        LOG.debug(
            "closing a connection from {}: {} connections open", peer(channel), refusing.max());
        return false;
      }
      channel.closeFuture().addListener(f -> refusing.closed());
    } else {
      EvictingBudget.Admission<Tracked> admission = evicting.open(tracked);
      if (!admission.admitted()) {
        LOG.debug(
            "closing a connection from {}: {} connections open, each has sent the admin token",
            peer(channel),
            evicting.max());
        return false;
      }
      channel.closeFuture().addListener(f -> evicting.closed(tracked));
      if (admission.evicted() != null) {
        Channel old = admission.evicted().channel;
        LOG.debug(
            "closing a connection from {} for a newcomer: {} connections open, none of its"
                + " requests carried the admin token",
            peer(old),
            evicting.max());
        old.close();
      }
    }
    channel.attr(TRACKED).set(tracked);
    return true;
  }

  /**
   * An admitted connection is registered with its event loop (before Vert.x sees it): its head
   * deadline's timer is armed there.
   */
  void registered(Channel channel) {
    Tracked tracked = channel.attr(TRACKED).get();
    if (tracked == null) {
      channel.close(); // not admitted (cannot happen: GuardedTransport drops those)
      return;
    }
    schedule(tracked);
  }

  private int head() {
    return limits.requestHeadTimeoutMillis();
  }

  private static Object peer(Channel channel) {
    return channel.remoteAddress();
  }

  /** The TCP peer's IP literal, or null. */
  private static String ip(Channel channel) {
    return channel.remoteAddress() instanceof InetSocketAddress a && a.getAddress() != null
        ? a.getAddress().getHostAddress()
        : null;
  }

  /** The guard's record of a connection Vert.x serves, or null if it never admitted it. */
  private static Tracked tracked(HttpConnection connection) {
    if (connection instanceof io.vertx.core.http.impl.HttpServerConnection internal) {
      return internal.channelHandlerContext().channel().attr(TRACKED).get();
    }
    return null;
  }

  /** Vert.x speaks HTTP on a connection (with h2c: after its first head). */
  private void connected(HttpConnection connection) {
    if (tracked(connection) == null) {
      // never admitted at accept: the listener was not guarded (a bug); serve nothing
      LOG.error("closing a connection from {}: not guarded at accept", connection.remoteAddress());
      connection.close();
    }
  }

  private void schedule(Tracked tracked) {
    long delay = tracked.deadline.timerDelay(clockMillis.getAsLong());
    if (delay != HeadDeadline.NO_TIMER) {
      tracked.channel.eventLoop().schedule(() -> fire(tracked), delay, TimeUnit.MILLISECONDS);
    }
  }

  private void fire(Tracked tracked) {
    if (!tracked.channel.isOpen()) {
      return;
    }
    if (tracked.deadline.expired(clockMillis.getAsLong())) {
      LOG.debug(
          "closing a connection from {}: no request head within {} ms",
          peer(tracked.channel),
          head());
      tracked.channel.close();
    } else {
      schedule(tracked);
    }
  }

  private void request(HttpServerRequest request, Handler<HttpServerRequest> handler) {
    HttpConnection connection = request.connection();
    Tracked tracked = tracked(connection);
    if (tracked == null) {
      connection.close(); // not admitted: its requests are never handled
      return;
    }
    if (evicting != null && vouches.test(request)) {
      evicting.vouch(tracked);
    }
    HeadDeadline deadline = tracked.deadline;
    deadline.requestStarted();
    inFlight.incrementAndGet();
    Handler<Boolean> ended =
        new Handler<>() {
          private boolean done;

          @Override
          public void handle(Boolean responseEnded) {
            if (!done) {
              done = true;
              inFlight.decrementAndGet();
              (responseEnded ? answered : unanswered).incrementAndGet();
              deadline.requestEnded(clockMillis.getAsLong());
              schedule(tracked);
            }
          }
        };
    // Vert.x calls the end handler also when the connection closes under an unfinished response
    // (before the close handler): only an end on an open connection is an answer
    request
        .response()
        .endHandler(v -> ended.handle(!request.response().closed()))
        .closeHandler(v -> ended.handle(false));
    handler.handle(request);
  }
}
