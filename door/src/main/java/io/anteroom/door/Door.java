package io.anteroom.door;

import io.anteroom.door.Answer.Pass;
import io.anteroom.door.admission.RoomGate;
import io.anteroom.door.match.RequestTarget;
import io.anteroom.door.match.RequestTargetResult;
import io.anteroom.door.queue.DrawResponder;
import io.anteroom.door.queue.HeldPolls;
import io.anteroom.door.route.ClientAddress;
import io.anteroom.door.ticket.TicketCookie;
import io.anteroom.pass.PassIssuer;
import io.anteroom.room.Ticket;
import java.time.Clock;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * The waiting room's door, for any server: request facts in, an {@link Answer} out. Every server
 * adapter (the Vert.x gateway, the Servlet filter) maps its request to {@link RequestFacts}, calls
 * {@link #enter}, and either lets the request through on a {@link Answer.Pass} (proxy, or continue
 * the filter chain; then {@link #onOriginResponse} on the origin's response) or writes the {@link
 * Answer.Respond} as it is.
 *
 * <p>The stages, in their fixed order: route (the one normalised target; ambiguous targets and,
 * when a room is scoped to a host, requests without a host are 400; the room by host and path
 * prefix; the public list of the rooms' draws, {@link DrawResponder#DRAWS_PATH}, is answered here),
 * then the room's own chain ({@code Stages}): suspended, bypass rules, the ticket opened once, the
 * proof of work, admission; every answer written by {@code Answers}.
 *
 * <pre>{@code
 * Door door = new Door(rooms, Clock.systemUTC(), PassIssuer.builder(PassKeys.openOrCreate(dataDir)).build());
 * door.enter(facts, Runnable::run).thenAccept(answer -> {
 *   switch (answer) {
 *     case Answer.Pass pass -> forwardToOrigin(pass);      // then door.onOriginResponse(...)
 *     case Answer.Respond r -> write(r.status(), r.headers(), r.body());
 *   }
 * });
 * }</pre>
 *
 * <p>Invariants: an admitted user with a live session is answered synchronously (a completed stage:
 * decrypt, renew, no lock, no remote call); others may be answered later, on any thread. A failed
 * decision never admits. Thread-safe; holds no state of its own per request.
 */
public final class Door {

  /**
   * Request headers the door reserves for what it tells the origin: a client's own are never
   * forwarded (lower case).
   */
  public static final Set<String> RESERVED_REQUEST_HEADERS = Set.of("anteroom-pass");

  /** The response header the origin sends to command the room ({@code revoke}). */
  public static final String COMMAND_HEADER = "Anteroom-Command";

  /** The header every answer and every passed response carries: 1 while the room throttles. */
  public static final String THROTTLE_HEADER = Answers.THROTTLE_HEADER;

  /** The request header that carries the signed pass to the origin ({@link PassIssuer}). */
  public static final String PASS_HEADER = io.anteroom.pass.PassVerifier.HEADER;

  /**
   * The request header of the queue page's push poll ({@link #watch}): the {@code lastUpdated} of
   * the room state its page shows, in epoch milliseconds.
   */
  public static final String WATCH_HEADER = "Anteroom-Watch";

  private final Rooms rooms;
  private final Clock clock;
  private final PassIssuer passes;
  private final HeldPolls held;
  private final DrawsCache draws = new DrawsCache();

  /** The gates whose new states wake held polls (each listened to once). */
  private final Set<RoomGate> listening = ConcurrentHashMap.newKeySet();

  /**
   * The door of {@code rooms}, judging requests at {@code clock}'s time; every request it lets
   * through for an admitted user carries a pass signed by {@code passes} ({@link #PASS_HEADER}).
   */
  public Door(Rooms rooms, Clock clock, PassIssuer passes) {
    this(rooms, clock, passes, new HeldPolls(HeldPolls.DEFAULT_MAX));
  }

  /** As above, holding the queue pages' push polls in {@code held}. */
  public Door(Rooms rooms, Clock clock, PassIssuer passes, HeldPolls held) {
    this.rooms = rooms;
    this.clock = clock;
    this.passes = passes;
    this.held = held;
    rooms.onDeleted(
        gate -> { // what the push kept of a deleted room goes with it
          listening.remove(gate);
          held.forget(gate);
        });
  }

  /**
   * Whether {@code request} is a push poll of the queue page: the adapter then calls {@link
   * #watch}.
   */
  public static boolean isWatch(RequestFacts request) {
    return request.header(WATCH_HEADER) != null;
  }

  /** The push polls held by this door. */
  public HeldPolls heldPolls() {
    return held;
  }

  /**
   * A push poll of the queue page (a request with {@link #WATCH_HEADER}): never sent to the origin,
   * never decided by the room, never setting a cookie. A waiting user's poll is held (at most
   * {@code maxHeldPolls} per gateway, else {@code 503}) until a newer room state than its page's
   * lets its bucket enter ({@link io.anteroom.door.queue.EntryRule}); then its page reloads, and
   * that request goes through {@link #enter} like any refresh. The adapter times held polls out
   * ({@link Watch#expire}) and drops those whose client left ({@link Watch#cancel}). A poll without
   * a waiting ticket of a room is told to stop (the page keeps refreshing); an admitted ticket's,
   * or a suspended room's, to reload.
   */
  public Watch watch(RequestFacts request) {
    if (!(request.target() instanceof RequestTarget target)) {
      return Watch.now(null, null, Watch.Reply.NO_PUSH);
    }
    Rooms.Snapshot snapshot = rooms.snapshot();
    if (target.host() == null && snapshot.router().hostScoped()) {
      return Watch.now(null, null, Watch.Reply.NO_PUSH);
    }
    RoomRuntime room = snapshot.router().route(target.host(), target.path());
    if (room == null) {
      return Watch.now(null, null, Watch.Reply.NO_PUSH);
    }
    String id = room.settings().id();
    if (room.settings().switches().suspended()) {
      return Watch.now(id, null, Watch.Reply.ENTER);
    }
    String value = Visit.cookie(request, room.cookie().name());
    TicketCookie.Opened opened = value == null ? null : room.cookie().openValue(value);
    if (opened == null) {
      return Watch.now(id, null, Watch.Reply.NO_PUSH);
    }
    Ticket ticket = opened.ticket();
    if (ticket.acceptedAt() != null) {
      return Watch.now(id, ticket, Watch.Reply.ENTER);
    }
    RoomGate gate = room.gate();
    if (listening.add(gate)) {
      gate.onNewState(state -> held.onState(gate, state));
    }
    HeldPolls.Poll poll =
        held.hold(
            gate,
            ticket.bucketId(),
            seenMillis(request.header(WATCH_HEADER)),
            () -> rooms.get(id).map(r -> paused(r.settings())).orElse(true));
    if (poll == null) {
      return Watch.now(id, ticket, Watch.Reply.FULL);
    }
    Watch watch = Watch.held(id, ticket, poll);
    if (rooms.get(id).map(r -> r.gate() != gate).orElse(true)) {
      // the room was deleted (or replaced) while this poll was being held: its listener may have
      // run before the poll was in, so nothing would answer it and the gate would stay here
      poll.release();
      listening.remove(gate);
      held.forget(gate);
      return watch;
    }
    held.check(poll, gate.lastState()); // a state applied before the poll was held
    return watch;
  }

  /**
   * Whether the room lets nobody in now whatever its free slots: its queue-all switch, or a
   * scheduled event's pre-queue.
   */
  private boolean paused(io.anteroom.door.config.GatewayConfig.RoomSettings settings) {
    if (settings.switches().queueAll()) {
      return true;
    }
    if (settings.events().isEmpty()) {
      return false;
    }
    java.time.Instant now = clock.instant();
    return settings.eventAt(now).map(e -> e.window().prequeueAt(now)).orElse(false);
  }

  /** The header's epoch milliseconds; 0 (any state is newer) when it is not a number. */
  private static long seenMillis(String header) {
    try {
      return Long.parseLong(header.trim());
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /**
   * The answer to one request. {@code resume} runs the rest of the request's stages when one of
   * them had to wait (a proof-of-work claim at the coordinator): the adapter's way back to the
   * request's own thread (an event loop), or {@code Runnable::run}.
   */
  public CompletionStage<Answer> enter(RequestFacts request, Executor resume) {
    RequestTarget target;
    switch (request.target()) {
      case RequestTarget t -> target = t;
      case RequestTargetResult.Rejected r -> {
        return CompletableFuture.completedFuture(
            Answers.badRequest(r.reason(), request.header("Accept-Language")));
      }
    }
    Rooms.Snapshot snapshot = rooms.snapshot();
    if (target.host() == null && snapshot.router().hostScoped()) {
      // without a host the request could be any site's: never let it reach a host-scoped room's
      // origin unjudged (HTTP/1.0 without Host, an empty Host)
      return CompletableFuture.completedFuture(
          Answers.badRequest(
              "the request names no host (send a Host header)", request.header("Accept-Language")));
    }
    if (target.path().equals(DrawResponder.DRAWS_PATH)) {
      return CompletableFuture.completedFuture(draws.answer(snapshot, target.host(), clock));
    }
    RoomRuntime room = snapshot.router().route(target.host(), target.path());
    long now = clock.millis(); // the request's one reading of the clock: every step dates by it
    if (room == null) {
      return CompletableFuture.completedFuture(Answers.noRoom(target, now));
    }
    return room.entrance()
        .enter(new Visit(request, target, room, now, resume, rooms.clients(), passes));
  }

  /**
   * Completes the origin's response to a passed request, before it is sent: {@code
   * Anteroom-Throttle}; the origin's latency and status (meters, origin protection); the ticket
   * sealed into the cookie; a session the origin ends with {@code Anteroom-Command: revoke} (the
   * header itself is removed, the cookie cleared); and {@code Cache-Control} made private whenever
   * the response carries or renews a user's ticket.
   *
   * @param tookNanos how long the origin took to answer, from the moment the adapter forwarded the
   *     request (after {@link #enter}); the response is dated by the pass's {@link Pass#at} plus
   *     this (its throttle decision, a revocation), with no second reading of the clock
   */
  public void onOriginResponse(Pass pass, OriginResponse response, long tookNanos) {
    RoomRuntime room = pass.room();
    if (room == null) {
      response.set(THROTTLE_HEADER, "0");
      return;
    }
    room.meters().origin().update(tookNanos);
    if (room.protection() != null) {
      room.protection().record(response.status(), tookNanos);
    }
    // the request's reading of the clock and the origin's time: no second reading per request
    long now = pass.at() + tookNanos / 1_000_000;
    response.set(THROTTLE_HEADER, room.pacing().throttle(now) ? "1" : "0");
    String command = response.header(COMMAND_HEADER);
    if (command != null) {
      response.remove(COMMAND_HEADER);
      if (command.trim().equalsIgnoreCase("revoke")) {
        room.meters().revoked().inc();
        if (pass.session() != null) {
          room.gate().revoke(pass.session(), now);
        }
        response.add(TicketCookie.SET_COOKIE, room.cookie().clear());
        response.set(
            "Cache-Control", Answers.privateCacheControl(response.header("Cache-Control")));
        return;
      }
    }
    if (pass.seal() != null) {
      response.add(TicketCookie.SET_COOKIE, room.cookie().set(pass.seal()));
    }
    if (pass.seal() != null || pass.session() != null) {
      // an admitted user's page stays out of shared caches whether or not its cookie was
      // re-sealed on this response
      response.set("Cache-Control", Answers.privateCacheControl(response.header("Cache-Control")));
    }
  }

  /** Who clients are (the peer, or what a trusted proxy says). */
  public ClientAddress clients() {
    return rooms.clients();
  }

  /** The rooms this door judges. */
  public Rooms rooms() {
    return rooms;
  }

  /**
   * The origin's {@code Cache-Control} made safe for a response that carries a user's ticket (see
   * {@link #onOriginResponse}).
   */
  public static String privateCacheControl(String origin) {
    return Answers.privateCacheControl(origin);
  }
}
