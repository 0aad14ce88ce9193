package io.anteroom.gateway.edge;

import io.anteroom.door.Answer;
import io.anteroom.door.Door;
import io.anteroom.door.OriginResponse;
import io.anteroom.door.RequestFacts;
import io.anteroom.door.Rooms;
import io.anteroom.door.Watch;
import io.anteroom.door.match.RequestTarget;
import io.anteroom.door.match.RequestTargetResult;
import io.netty.buffer.Unpooled;
import io.netty.util.AsciiString;
import io.vertx.core.Context;
import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.internal.buffer.BufferInternal;
import io.vertx.core.net.HostAndPort;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * The public listener's request handler: the Vert.x adapter of the {@link Door}. It maps the
 * request to the door's {@link RequestFacts} (the one normalised target, parsed once here), then
 * either proxies a {@link Answer.Pass} to the room's origin ({@link OriginProxy}; the door
 * completes the origin's response) or writes the door's {@link Answer.Respond} as it is. Every rule
 * is the door's; this class only speaks Vert.x.
 *
 * <p>Invariants: the admitted path (valid admitted cookie) is synchronous on the event loop: the
 * door answers at once, the request is proxied; no lock, no remote call. Other users are decided
 * asynchronously while the request body is paused; the answer is written back on the request's own
 * event-loop context, and a stage that had to wait continues there too.
 */
public final class Gatekeeper implements Handler<HttpServerRequest> {

  private static final AsciiString THROTTLE = AsciiString.cached(Door.THROTTLE_HEADER);
  private static final AsciiString ON = AsciiString.cached("1");
  private static final AsciiString OFF = AsciiString.cached("0");

  private final Door door;
  private final Function<io.anteroom.door.RoomRuntime, OriginProxy> origins;
  private final OriginProxy defaultProxy;

  /** Null while the access log is off: then the gatekeeper does no work for it. */
  private final AccessLog accessLog;

  /** How long a push poll of the queue page is held before it is answered "not yet". */
  private final long pollHoldMillis;

  /**
   * {@code origins}: the proxy of a room's origin; {@code defaultProxy}: the origin of requests
   * that match no room. {@code accessLog}: write one line per request on {@value AccessLog#LOGGER}.
   */
  public Gatekeeper(
      Door door,
      Function<io.anteroom.door.RoomRuntime, OriginProxy> origins,
      OriginProxy defaultProxy,
      boolean accessLog) {
    this(
        door,
        origins,
        defaultProxy,
        accessLog,
        io.anteroom.door.queue.HeldPolls.DEFAULT_HOLD_SECONDS);
  }

  /** As above, holding push polls for at most {@code pollHoldSeconds}. */
  public Gatekeeper(
      Door door,
      Function<io.anteroom.door.RoomRuntime, OriginProxy> origins,
      OriginProxy defaultProxy,
      boolean accessLog,
      int pollHoldSeconds) {
    this.door = door;
    this.origins = origins;
    this.defaultProxy = defaultProxy;
    this.accessLog = accessLog ? new AccessLog(door.clients()) : null;
    this.pollHoldMillis = pollHoldSeconds * 1000L;
  }

  /** The facts of one Vert.x request; its target is parsed once. */
  private static final class Facts implements RequestFacts {
    private final HttpServerRequest request;
    final RequestTargetResult target;

    Facts(HttpServerRequest request) {
      this.request = request;
      this.target = Gatekeeper.target(request);
    }

    @Override
    public RequestTargetResult target() {
      return target;
    }

    @Override
    public String method() {
      return request.method().name();
    }

    @Override
    public String header(String name) {
      return request.getHeader(name);
    }

    @Override
    public List<String> headers(String name) {
      return request.headers().getAll(name);
    }

    @Override
    public String peerAddress() {
      return peer(request);
    }
  }

  @Override
  public void handle(HttpServerRequest request) {
    AccessLog.Entry log = accessLog == null ? null : accessLog.begin(request);
    Facts facts = new Facts(request);
    if (log != null && facts.target instanceof RequestTarget t) {
      log.path(t.path());
    }
    Context context = io.vertx.core.Vertx.currentContext();
    if (Door.isWatch(facts)) {
      watch(request, facts, context, log);
      return;
    }
    Executor resume = command -> context.runOnContext(v -> command.run());
    CompletableFuture<Answer> answered = door.enter(facts, resume).toCompletableFuture();
    if (answered.isDone() && !answered.isCompletedExceptionally()) {
      answer(request, answered.join(), log); // the hot path: no pause, no hop
      return;
    }
    request.pause();
    answered.whenComplete(
        (answer, failure) ->
            context.runOnContext(
                v -> {
                  if (failure != null) {
                    // the door never fails a request on purpose: this is a defect, not a decision
                    request.resume();
                    request.response().setStatusCode(500).end();
                    return;
                  }
                  answer(request, answer, log);
                }));
  }

  /**
   * A push poll of the queue page ({@link Door#watch}): answered at once, or held on this
   * connection until the door wakes it, {@code pollHoldMillis} pass (a timer on the request's event
   * loop) or the client leaves (its place among the held polls is freed at once). Never proxied.
   */
  private void watch(HttpServerRequest request, Facts facts, Context context, AccessLog.Entry log) {
    Watch watch = door.watch(facts);
    CompletableFuture<Answer.Respond> answered = watch.answer().toCompletableFuture();
    if (answered.isDone()) {
      answer(request, answered.join(), log);
      return;
    }
    request.pause();
    long timer = context.owner().setTimer(pollHoldMillis, id -> watch.expire());
    request.response().closeHandler(v -> watch.cancel());
    answered.whenComplete(
        (answer, failure) ->
            context.runOnContext(
                v -> {
                  context.owner().cancelTimer(timer);
                  if (request.response().closed() || request.response().ended()) {
                    return; // the client left
                  }
                  answer(request, answer, log);
                }));
  }

  private void answer(HttpServerRequest request, Answer answer, AccessLog.Entry log) {
    if (log != null) {
      log.decided(answer.roomId(), answer.decision()).ticket(answer.ticket());
    }
    switch (answer) {
      case Answer.Pass pass -> forward(request, pass);
      case Answer.Respond respond -> respond(request, respond);
    }
  }

  /** Writes the door's own answer; any request body is drained and dropped. */
  private static void respond(HttpServerRequest request, Answer.Respond r) {
    request.resume();
    HttpServerResponse response = request.response().setStatusCode(r.status());
    MultiMap headers = response.headers();
    for (Answer.Header h : r.headers()) {
      headers.add(h.name(), h.value());
    }
    if (r.closeConnection() && request.version() != HttpVersion.HTTP_2) {
      headers.add("Connection", "close"); // HTTP/2 has no connection-specific headers
    }
    // the body's bytes as they are (often the same array for every queued user): wrapped, not
    // copied
    response.end(BufferInternal.buffer(Unpooled.wrappedBuffer(r.body())));
    r.written();
  }

  /** Proxies a pass to its origin; the door completes the origin's response. */
  private void forward(HttpServerRequest request, Answer.Pass pass) {
    if (!pass.setCookies().isEmpty()) {
      var headers = request.response().headers();
      for (String c : pass.setCookies()) {
        headers.add(io.anteroom.door.ticket.TicketCookie.SET_COOKIE, c);
      }
    }
    OriginProxy origin = pass.room() == null ? defaultProxy : origins.apply(pass.room());
    long started = System.nanoTime();
    origin.forward(
        request,
        pass.target(),
        pass.originHeaders(),
        response ->
            door.onOriginResponse(
                pass, new ProxiedResponse(response), System.nanoTime() - started));
  }

  /**
   * The origin's response as the door edits it: header values handed to Netty as {@link
   * AsciiString}s ({@link OriginProxy#ascii}), which its encoder writes in one block.
   */
  private record ProxiedResponse(HttpServerResponse response) implements OriginResponse {
    @Override
    public int status() {
      return response.getStatusCode();
    }

    @Override
    public String header(String name) {
      return response.headers().get(name);
    }

    @Override
    public void set(String name, String value) {
      if (name == Door.THROTTLE_HEADER) {
        response.headers().set(THROTTLE, value.equals("1") ? ON : OFF);
        return;
      }
      response.headers().set(name, OriginProxy.ascii(value));
    }

    @Override
    public void add(String name, String value) {
      response.headers().add(name, OriginProxy.ascii(value));
    }

    @Override
    public void remove(String name) {
      response.headers().remove(name);
    }
  }

  /** The peer's IP address, or null if unknown. */
  static String peer(HttpServerRequest request) {
    return request.remoteAddress() == null ? null : request.remoteAddress().hostAddress();
  }

  /**
   * The request's one normalised target (RFC 9112 §3.2: several {@code Host} headers are refused;
   * HTTP/2 names its host in {@code :authority}).
   */
  static RequestTargetResult target(HttpServerRequest request) {
    List<String> hosts = request.headers().getAll("Host");
    if (hosts.size() > 1) {
      return SEVERAL_HOSTS;
    }
    String authority = null;
    if (request.version() == HttpVersion.HTTP_2) {
      HostAndPort a = request.authority();
      authority = a == null ? null : a.port() < 0 ? a.host() : a.host() + ":" + a.port();
    }
    return RequestTarget.parse(request.uri(), hosts.isEmpty() ? null : hosts.getFirst(), authority);
  }

  private static final RequestTargetResult.Rejected SEVERAL_HOSTS =
      new RequestTargetResult.Rejected("several Host headers");

  /** The proxies of the rooms' origins, one per origin address, built on first use. */
  public static final class Origins implements Function<io.anteroom.door.RoomRuntime, OriginProxy> {
    private final Function<java.net.URI, OriginProxy> create;
    private final java.net.URI defaultOrigin;
    private final ConcurrentHashMap<java.net.URI, OriginProxy> byUri = new ConcurrentHashMap<>();

    /**
     * Proxies on {@code vertx}'s event loops; {@code defaultOrigin} for rooms without an origin of
     * their own and requests that match no room.
     */
    public Origins(
        io.vertx.core.Vertx vertx,
        java.net.URI defaultOrigin,
        int timeoutSeconds,
        io.anteroom.door.route.ClientAddress clients) {
      this.defaultOrigin = defaultOrigin;
      this.create = u -> new OriginProxy(vertx, u, timeoutSeconds, clients);
      of(defaultOrigin);
    }

    /** The proxy of requests that match no room. */
    public OriginProxy defaultProxy() {
      return of(defaultOrigin);
    }

    @Override
    public OriginProxy apply(io.anteroom.door.RoomRuntime room) {
      return of(room.settings().routing().origin().orElse(defaultOrigin));
    }

    /** The proxy of {@code uri}'s origin. */
    public OriginProxy of(java.net.URI uri) {
      OriginProxy p = byUri.get(uri);
      return p != null ? p : byUri.computeIfAbsent(uri, create);
    }

    /** Closes every proxy built. */
    public void close() {
      byUri.values().forEach(OriginProxy::close);
    }
  }

  /** The rooms the door judges (for tests and the admin API). */
  Rooms rooms() {
    return door.rooms();
  }
}
