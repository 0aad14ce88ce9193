package io.anteroom.gateway.edge;

import io.anteroom.gateway.admission.RoomGate;
import io.anteroom.gateway.admission.RoomGate.Outcome;
import io.anteroom.gateway.admission.RoomGate.QueueView;
import io.anteroom.gateway.admission.RoomGate.Verdict;
import io.anteroom.gateway.config.GatewayConfig.RoomSettings;
import io.anteroom.gateway.match.RequestTarget;
import io.anteroom.gateway.match.RequestTargetResult;
import io.anteroom.gateway.proof.DoorCheck;
import io.anteroom.gateway.queue.ChallengeResponder;
import io.anteroom.gateway.queue.QueuePacing;
import io.anteroom.gateway.queue.QueueResponder;
import io.anteroom.gateway.ticket.TicketBytes;
import io.anteroom.gateway.ticket.TicketCookie;
import io.netty.buffer.Unpooled;
import io.vertx.core.Context;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.internal.buffer.BufferInternal;
import io.vertx.core.net.HostAndPort;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The public listener's request handler: route to a room, skip bypassed traffic, open the ticket
 * cookie ({@link TicketCookie}), and either proxy (admitted) or answer from the queue (HTML, JSON,
 * or 429 for {@code reject}). Every response carries {@code Anteroom-Throttle}.
 *
 * <p>Every request is judged on one {@link RequestTarget}, parsed once here: routing, bypass rules
 * and the forwarded request all use its normalised host and path, so no spelling of a path or host
 * reaches an origin while skipping its room. Ambiguous targets, several {@code Host} headers, and
 * (when any room is scoped to a host) requests that name no host get 400.
 *
 * <p>Invariants: the admitted path (valid admitted cookie) is synchronous on the event loop:
 * decrypt, renew ({@link RoomGate#decide}), re-encrypt unless the renewal can wait ({@link
 * TicketBytes#renewalCanWait}), proxy; no lock, no remote call. Other users are decided
 * asynchronously by {@link RoomGate#decide} while the request body is paused; the answer is written
 * back on the request's own event-loop context. A gate failure never admits: the user sees the
 * queue page.
 */
public final class Gatekeeper implements Handler<HttpServerRequest> {

  private static final Logger LOG = LoggerFactory.getLogger(Gatekeeper.class);
  static final String THROTTLE_HEADER = "Anteroom-Throttle";
  static final String POLL_HEADER = "Anteroom-Poll";

  // the proxied response's own headers, as AsciiStrings (see OriginProxy.ascii)
  private static final io.netty.util.AsciiString THROTTLE =
      io.netty.util.AsciiString.cached(THROTTLE_HEADER);
  private static final io.netty.util.AsciiString ON = io.netty.util.AsciiString.cached("1");
  private static final io.netty.util.AsciiString OFF = io.netty.util.AsciiString.cached("0");
  private static final io.netty.util.AsciiString SET_COOKIE =
      io.netty.util.AsciiString.of(TicketCookie.SET_COOKIE);
  private static final io.netty.util.AsciiString CACHE_CONTROL =
      io.netty.util.AsciiString.cached("Cache-Control");

  private final Rooms rooms;
  private final Clock clock;

  /** Null while the access log is off: then the gatekeeper does no work for it. */
  private final AccessLog accessLog;

  public Gatekeeper(Rooms rooms, Clock clock) {
    this(rooms, clock, false);
  }

  /** {@code accessLog}: write one line per request on {@value AccessLog#LOGGER}. */
  public Gatekeeper(Rooms rooms, Clock clock, boolean accessLog) {
    this.rooms = rooms;
    this.clock = clock;
    this.accessLog = accessLog ? new AccessLog(rooms.clients()) : null;
  }

  @Override
  public void handle(HttpServerRequest request) {
    AccessLog.Entry log = accessLog == null ? null : accessLog.begin(request);
    RequestTarget target;
    switch (target(request)) {
      case RequestTarget t -> target = t;
      case RequestTargetResult.Rejected r -> {
        if (log != null) {
          log.decided(null, "bad_request");
        }
        badRequest(request, r.reason());
        return;
      }
    }
    if (log != null) {
      log.path(target.path());
    }
    Rooms.Snapshot snapshot = rooms.snapshot();
    if (target.host() == null && snapshot.router().hostScoped()) {
      // without a host the request could be any site's: never let it reach a host-scoped room's
      // origin unjudged (HTTP/1.0 without Host, an empty Host)
      if (log != null) {
        log.decided(null, "bad_request");
      }
      badRequest(request, "the request names no host (send a Host header)");
      return;
    }
    RoomRuntime room = snapshot.router().route(target.host(), target.path());
    if (room == null) {
      if (log != null) {
        log.decided(null, "no_room");
      }
      forward(request, target, null, rooms.defaultProxy(), null, null);
      return;
    }
    RoomSettings s = room.settings();
    if (s.suspended()
        || !room.bypass().isEmpty()
            && room.bypass().bypasses(facts(request, target, rooms.clients()))) {
      if (log != null) {
        log.decided(s.id(), s.suspended() ? "suspended" : "bypass");
      }
      room.meters().bypassed().mark();
      forward(request, target, room, room.origin(), null, null);
      return;
    }
    long now = clock.millis();
    byte[] ticket = room.cookie().open(request);
    if (log != null) {
      log.ticket(s.id(), ticket);
    }
    if (ticket == null && room.door() != null) {
      Door door = door(room, s, now);
      if (door != null) {
        atTheDoor(request, target, room, s, door, now, log);
        return;
      }
    }
    decide(request, target, room, s, ticket, now, log);
  }

  /** The room's decision on the request's ticket (null: a new user), then the answer. */
  private void decide(
      HttpServerRequest request,
      RequestTarget target,
      RoomRuntime room,
      RoomSettings s,
      byte[] ticket,
      long now,
      AccessLog.Entry log) {
    CompletableFuture<Verdict> decided = room.gate().decide(ticket, now).toCompletableFuture();
    if (decided.isDone() && !decided.isCompletedExceptionally()) {
      Verdict verdict = decided.join();
      if (log != null) {
        log.decided(s.id(), decision(verdict.outcome())).ticket(s.id(), verdict.ticket());
      }
      answer(request, target, room, ticket, now, verdict); // the hot path: no pause, no hop
      return;
    }
    request.pause();
    Context context = io.vertx.core.Vertx.currentContext();
    decided.whenComplete(
        (verdict, failure) ->
            context.runOnContext(
                v -> {
                  if (failure != null) {
                    LOG.warn(
                        "room {}: admission decision failed, queueing the user", s.id(), failure);
                  }
                  Verdict v2 =
                      failure == null
                          ? verdict
                          : new Verdict(
                              Outcome.queued(
                                  s.at(java.time.Instant.ofEpochMilli(now)).queueingMethod()),
                              ticket,
                              QueueView.unknown(now));
                  if (log != null) {
                    log.decided(s.id(), decision(v2.outcome())).ticket(s.id(), v2.ticket());
                  }
                  answer(request, target, room, ticket, now, v2);
                }));
  }

  /** The proof-of-work check in force for a new user now, or null when none applies. */
  private record Door(DoorCheck check, String cookieName) {}

  private static Door door(RoomRuntime room, RoomSettings s, long now) {
    // the check in force now: the room's, or the running event's (pre-queue included)
    var inForce =
        s.events().isEmpty() ? s.proofOfWork() : s.at(Instant.ofEpochMilli(now)).proofOfWork();
    if (!inForce.enabled()) {
      return null;
    }
    DoorCheck check =
        inForce.equals(room.door().settings())
            ? room.door()
            : room.door().withSettings(s.id(), s.generation(), inForce);
    return new Door(check, ChallengeResponder.cookieName(s.id(), s.cookieSuffix()));
  }

  /**
   * The proof-of-work check of a new user ({@link DoorCheck}): a challenge or the endless queue is
   * answered here; an answer that holds on this gateway is then claimed at the room's coordinator
   * (so it admits once in the whole deployment), and the room decides on the user (the answer
   * cookie is cleared). A claim refused as a replay gets a fresh challenge.
   */
  private void atTheDoor(
      HttpServerRequest request,
      RequestTarget target,
      RoomRuntime room,
      RoomSettings s,
      Door door,
      long now,
      AccessLog.Entry log) {
    String answer = request.getHeader(ChallengeResponder.ANSWER_HEADER);
    boolean fromCookie = false;
    if (answer == null) {
      answer = TicketCookie.scan(request, door.cookieName());
      fromCookie = answer != null;
    }
    String client = rooms.clients().of(request);
    String binding = client == null ? "" : client;
    int ttl = door.check().settings().challengeTtlSeconds();
    switch (door.check().decide(answer, binding, now)) {
      case DoorCheck.Pass p -> {
        if (fromCookie) { // used once: a later request must not send it again
          request
              .response()
              .headers()
              .add(
                  TicketCookie.SET_COOKIE,
                  door.cookieName() + "=; Max-Age=0; Path=/; SameSite=Lax");
        }
        CompletableFuture<Boolean> claimed =
            room.gate().claimChallenge(p.nonce(), p.expiresAtMillis()).toCompletableFuture();
        if (claimed.isDone()) {
          afterClaim(request, target, room, s, door, binding, claimed.join(), now, ttl, log);
          return;
        }
        request.pause();
        Context context = io.vertx.core.Vertx.currentContext();
        claimed.whenComplete(
            (first, failure) ->
                context.runOnContext(
                    v ->
                        afterClaim(
                            request,
                            target,
                            room,
                            s,
                            door,
                            binding,
                            failure != null || first,
                            now,
                            ttl,
                            log)));
      }
      case DoorCheck.Challenge c -> {
        logChallenge(s, log);
        challenge(request, room, c, door.cookieName(), ttl, now);
      }
      case DoorCheck.EndlessQueue e -> {
        logChallenge(s, log);
        queueResponse(
            request, room, new Verdict(Outcome.QUEUE, null, QueueView.unknown(now)), true);
      }
    }
  }

  private void afterClaim(
      HttpServerRequest request,
      RequestTarget target,
      RoomRuntime room,
      RoomSettings s,
      Door door,
      String binding,
      boolean first,
      long now,
      int ttl,
      AccessLog.Entry log) {
    if (first) {
      decide(request, target, room, s, null, now, log);
      return;
    }
    logChallenge(s, log);
    switch (door.check().replayed(binding, now)) {
      case DoorCheck.Challenge c -> challenge(request, room, c, door.cookieName(), ttl, now);
      default ->
          queueResponse(
              request, room, new Verdict(Outcome.QUEUE, null, QueueView.unknown(now)), true);
    }
  }

  private static void logChallenge(RoomSettings s, AccessLog.Entry log) {
    if (log != null) {
      log.decided(s.id(), "challenge");
    }
  }

  /** The access log's word for an outcome. */
  private static String decision(Outcome outcome) {
    return switch (outcome) {
      case ADMIT_SESSION -> "session";
      case ADMIT -> "admitted";
      case PASS_THROUGH -> "passthrough";
      case QUEUE -> "queued";
      case REJECT -> "rejected";
    };
  }

  /** A challenge to solve: the page, or the queue JSON with a {@code proofOfWork} member. */
  private void challenge(
      HttpServerRequest request,
      RoomRuntime room,
      DoorCheck.Challenge c,
      String cookieName,
      int ttl,
      long now) {
    RoomSettings s = room.settings();
    request.resume(); // drain and drop any body: it never reaches the origin
    QueuePacing pacing = room.pacing();
    boolean throttle = pacing.throttle();
    HttpServerResponse response = request.response();
    response.putHeader("Cache-Control", "no-store");
    response.putHeader(THROTTLE_HEADER, throttle ? "1" : "0");
    if (room.responder().wantsJson(request.getHeader("Accept"))) {
      var fields =
          room.responder()
              .fields(
                  true,
                  QueueView.unknown(now),
                  s.queueAll(),
                  pacing.refreshIntervalSeconds(),
                  throttle);
      fields.put("proofOfWork", ChallengeResponder.json(c, cookieName, ttl));
      response.putHeader("Content-Type", "application/json").end(room.responder().json(fields));
    } else {
      response
          .putHeader("Content-Type", "text/html; charset=utf-8")
          .end(ChallengeResponder.html(c, cookieName, ttl));
    }
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

  private static void badRequest(HttpServerRequest request, String reason) {
    request.resume();
    HttpServerResponse response =
        request
            .response()
            .setStatusCode(400)
            .putHeader("Content-Type", "text/plain; charset=utf-8")
            .putHeader("Cache-Control", "no-store")
            .putHeader(THROTTLE_HEADER, "0");
    if (request.version() != HttpVersion.HTTP_2) {
      response.putHeader("Connection", "close"); // HTTP/2 has no connection-specific headers
    }
    response.end("400 Bad Request: " + reason + "\n");
  }

  /** {@code sent}: the ticket the request's cookie held (null: none); {@code now}: when decided. */
  private void answer(
      HttpServerRequest request,
      RequestTarget target,
      RoomRuntime room,
      byte[] sent,
      long now,
      Verdict verdict) {
    boolean poll = request.getHeader(POLL_HEADER) != null;
    switch (verdict.outcome()) {
      case ADMIT_SESSION -> {
        room.meters().admittedReturning().mark();
        // a renewal that changes no count and shortens the session by at most S/60 keeps the
        // user's cookie: a page's burst of requests is not re-sealed request by request
        byte[] renewed = verdict.ticket();
        boolean keepCookie = TicketBytes.renewalCanWait(sent, renewed, sessionMillis(room, now));
        forward(request, target, room, room.origin(), keepCookie ? null : renewed, renewed);
      }
      case ADMIT -> {
        room.meters().admittedNew().mark();
        if (poll && room.responder().wantsJson(request.getHeader("Accept"))) {
          // the page's own status poll: tell the script to reload instead of fetching the page
          // from the origin twice
          queueResponse(request, room, verdict, false);
        } else {
          forward(request, target, room, room.origin(), verdict.ticket(), verdict.ticket());
        }
      }
      case PASS_THROUGH -> {
        room.meters().admittedNew().mark();
        forward(request, target, room, room.origin(), verdict.ticket(), null);
      }
      case QUEUE -> {
        room.meters().queued().mark();
        queueResponse(request, room, verdict, true);
      }
      case REJECT -> reject(request, room);
    }
  }

  /** The session duration S in force at {@code now} (a running event may set its own). */
  private static long sessionMillis(RoomRuntime room, long now) {
    RoomSettings s = room.settings();
    RoomSettings inForce = s.events().isEmpty() ? s : s.at(Instant.ofEpochMilli(now));
    return inForce.sessionDurationMinutes() * 60_000L;
  }

  private void queueResponse(
      HttpServerRequest request, RoomRuntime room, Verdict verdict, boolean inWaitingRoom) {
    // the monitored operation is the gateway's own work for a status request (render and
    // write), not the counter call before it, which is the coordinator's load
    long started = System.nanoTime();
    RoomSettings s = room.settings();
    request.resume(); // drain and drop any body: a queued request never reaches the origin
    QueuePacing pacing = room.pacing();
    QueueView q = verdict.queue() != null ? verdict.queue() : QueueView.unknown(clock.millis());
    boolean throttle = pacing.throttle();
    long now = clock.millis();
    int refresh = pacing.refreshIntervalSeconds();
    HttpServerResponse response = request.response();
    if (verdict.ticket() != null) { // null: leave the cookie the user has (see Verdict)
      response.headers().add(TicketCookie.SET_COOKIE, room.cookie().set(verdict.ticket()));
    }
    response.putHeader("Cache-Control", "no-store");
    response.putHeader(THROTTLE_HEADER, throttle ? "1" : "0");
    QueueResponder responder = room.responder();
    boolean json = responder.wantsJson(request.getHeader("Accept"));
    byte[] body = responder.body(json, now, inWaitingRoom, q, s.queueAll(), refresh, throttle);
    response
        .putHeader("Content-Type", json ? "application/json" : "text/html; charset=utf-8")
        // the body's bytes as they are (often the same array for every queued user): wrapped, not
        // copied
        .end(BufferInternal.buffer(Unpooled.wrappedBuffer(body)));
    pacing.recordQueueStatus(System.nanoTime() - started);
  }

  private void reject(HttpServerRequest request, RoomRuntime room) {
    room.meters().rejected().mark();
    request.resume();
    RoomSettings s = room.settings();
    HttpServerResponse response = request.response();
    // no Set-Cookie: the request held no admitted ticket of its own, but the user's jar may have
    // received one meanwhile (two requests of one page load); clearing it would end that admission
    int retry = room.pacing().refreshIntervalSeconds();
    response
        .setStatusCode(429)
        .putHeader("Retry-After", Integer.toString(retry))
        .putHeader("Cache-Control", "no-store")
        .putHeader(THROTTLE_HEADER, room.pacing().throttle() ? "1" : "0");
    if (room.responder().wantsJson(request.getHeader("Accept"))) {
      var fields =
          room.responder()
              .fields(
                  false,
                  QueueView.unknown(clock.millis()),
                  s.queueAll(),
                  retry,
                  room.pacing().throttle());
      response.putHeader("Content-Type", "application/json").end(room.responder().json(fields));
    } else {
      response
          .putHeader("Content-Type", "text/plain; charset=utf-8")
          .end(
              "429 Too Many Requests: the site is full right now. Please try again in "
                  + retry
                  + " seconds.\n");
    }
  }

  /**
   * Proxies to the origin. {@code ticket} (if not null) is sealed into the cookie; {@code
   * sessionTicket} is the admitted ticket a revocation by the origin ends. A response with either
   * is marked private ({@link #privateCacheControl}).
   */
  private void forward(
      HttpServerRequest request,
      RequestTarget target,
      RoomRuntime room,
      OriginProxy origin,
      byte[] ticket,
      byte[] sessionTicket) {
    long started = System.nanoTime();
    origin.forward(
        request,
        target,
        response -> onOriginResponse(room, response, ticket, sessionTicket, started));
  }

  private void onOriginResponse(
      RoomRuntime room,
      HttpServerResponse response,
      byte[] ticket,
      byte[] sessionTicket,
      long started) {
    var headers = response.headers();
    if (room == null) {
      headers.set(THROTTLE, OFF);
      return;
    }
    long took = System.nanoTime() - started;
    room.meters().origin().update(took, java.util.concurrent.TimeUnit.NANOSECONDS);
    if (room.protection() != null) {
      room.protection().record(response.getStatusCode(), took);
    }
    headers.set(THROTTLE, room.pacing().throttle() ? ON : OFF);
    String command = headers.get(OriginProxy.REVOKE_HEADER);
    if (command != null) {
      headers.remove(OriginProxy.REVOKE_HEADER);
      if (command.trim().equalsIgnoreCase("revoke")) {
        room.meters().revoked().mark();
        if (sessionTicket != null) {
          room.gate().revoke(sessionTicket, clock.millis());
        }
        headers.add(SET_COOKIE, OriginProxy.ascii(room.cookie().clear()));
        headers.set(
            CACHE_CONTROL, OriginProxy.ascii(privateCacheControl(headers.get(CACHE_CONTROL))));
        return;
      }
    }
    if (ticket != null) {
      headers.add(SET_COOKIE, OriginProxy.ascii(room.cookie().set(ticket)));
    }
    if (ticket != null || sessionTicket != null) {
      // an admitted user's page stays out of shared caches whether or not its cookie was
      // re-sealed on this response
      headers.set(
          CACHE_CONTROL, OriginProxy.ascii(privateCacheControl(headers.get(CACHE_CONTROL))));
    }
  }

  /**
   * The origin's {@code Cache-Control} made safe for a response that carries a user's ticket: a
   * shared cache storing it would hand that ticket to every later visitor. {@code public} and
   * {@code s-maxage} are dropped and {@code private} added, unless {@code private} or {@code
   * no-store} is already there; the origin's other directives are kept.
   */
  static String privateCacheControl(String origin) {
    if (origin == null || origin.isBlank()) {
      return "private";
    }
    var kept = new java.util.ArrayList<String>();
    boolean safe = false;
    for (String part : origin.split(",")) {
      String directive = part.strip();
      String name = directive.toLowerCase(java.util.Locale.ROOT);
      if (name.isEmpty() || name.equals("public") || name.startsWith("s-maxage")) {
        continue;
      }
      safe |= name.equals("private") || name.startsWith("private=") || name.equals("no-store");
      kept.add(directive);
    }
    if (!safe) {
      kept.addFirst("private");
    }
    return String.join(", ", kept);
  }

  private static BypassMatcher.Request facts(
      HttpServerRequest request, RequestTarget target, ClientAddress clients) {
    return new BypassMatcher.Request() {
      @Override
      public String path() {
        return target.path();
      }

      @Override
      public String header(String name) {
        return request.getHeader(name);
      }

      @Override
      public String cookie(String name) {
        return TicketCookie.scan(request, name);
      }

      @Override
      public String clientIp() {
        return clients.of(request);
      }
    };
  }
}
