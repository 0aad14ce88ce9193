package io.anteroom.door;

import io.anteroom.door.Answer.Header;
import io.anteroom.door.Answer.Pass;
import io.anteroom.door.Answer.Respond;
import io.anteroom.door.admission.RoomGate.QueueView;
import io.anteroom.door.admission.RoomGate.Verdict;
import io.anteroom.door.config.GatewayConfig.RoomSettings;
import io.anteroom.door.config.PageLanguages;
import io.anteroom.door.proof.DoorCheck;
import io.anteroom.door.proof.Invitations;
import io.anteroom.door.queue.ChallengeResponder;
import io.anteroom.door.queue.DrawResponder;
import io.anteroom.door.queue.InvitationResponder;
import io.anteroom.door.queue.LanguageChooser;
import io.anteroom.door.queue.PageTexts;
import io.anteroom.door.queue.QueuePacing;
import io.anteroom.door.queue.QueueResponder;
import io.anteroom.door.ticket.TicketCookie;
import io.anteroom.room.Ticket;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The one place that writes every answer the door gives itself (queue page or JSON, challenge, 429,
 * 400) and that turns a room's verdict into a pass: status, headers and body, JSON or HTML decided
 * in {@link #wantsJson} only. Every answer carries {@code Anteroom-Throttle}; none may be stored by
 * a cache ({@code Cache-Control: no-store}).
 */
final class Answers {

  static final String THROTTLE_HEADER = "Anteroom-Throttle";
  static final String POLL_HEADER = "Anteroom-Poll";
  private static final String JSON = "application/json";
  private static final String HTML = "text/html; charset=utf-8";
  private static final String TEXT = "text/plain; charset=utf-8";
  private static final Header NO_STORE = new Header("Cache-Control", "no-store");
  private static final Header THROTTLED = new Header(THROTTLE_HEADER, "1");
  private static final Header UNTHROTTLED = new Header(THROTTLE_HEADER, "0");
  private static final Runnable NOTHING = () -> {};

  /**
   * Every answer the door writes depends on the request's {@code Accept} (JSON or HTML) and {@code
   * Accept-Language}.
   */
  private static final Header VARY = new Header("Vary", "Accept, Accept-Language");

  /** {@code Content-Language} of each built-in language. */
  private static final Map<String, Header> CONTENT_LANGUAGE =
      PageLanguages.BUILT_IN.stream()
          .collect(
              java.util.stream.Collectors.toUnmodifiableMap(
                  l -> l, l -> new Header("Content-Language", l)));

  /**
   * The language of answers to requests that reach no room (400): any built-in one, else English.
   */
  private static final LanguageChooser ANY_LANGUAGE =
      new LanguageChooser(PageLanguages.BUILT_IN, PageLanguages.DEFAULT);

  private final Clock clock;

  Answers(Clock clock) {
    this.clock = clock;
  }

  /** The language of the door's answer to the visit: the one place that decides. */
  static String language(Visit v) {
    return v.room.responder().language(v.facts.header("Accept-Language"));
  }

  /** {@code Content-Language} and {@code Vary} of an answer in {@code language}. */
  private static void languageHeaders(String language, List<Header> headers) {
    headers.add(CONTENT_LANGUAGE.get(language));
    headers.add(VARY);
  }

  /** Whether the client asked for JSON and the room answers JSON: the one place that decides. */
  static boolean wantsJson(Visit v) {
    return v.room.responder().wantsJson(v.facts.header("Accept"));
  }

  /**
   * 400 with its reason; the connection is closed after it (HTTP/1). The first sentence is in the
   * language of {@code acceptLanguage}; the reason, a protocol detail for whoever debugs the
   * client, stays in English.
   */
  static Respond badRequest(String reason, String acceptLanguage) {
    String language = ANY_LANGUAGE.choose(acceptLanguage);
    return new Respond(
        400,
        List.of(
            new Header("Content-Type", TEXT),
            CONTENT_LANGUAGE.get(language),
            VARY,
            NO_STORE,
            UNTHROTTLED),
        utf8(
            "400 Bad Request: "
                + PageTexts.of(language).text("badRequest")
                + " ("
                + reason
                + ")\n"),
        true,
        null,
        "bad_request",
        null,
        NOTHING);
  }

  /** The ids of the rooms with draws that serve {@code host} in {@code snapshot}, in id order. */
  static List<String> drawingRooms(Rooms.Snapshot snapshot, String host) {
    var ids = new ArrayList<String>();
    for (RoomRuntime r : snapshot.byId().values()) {
      if (r.draws() && serves(snapshot, r, host)) {
        ids.add(r.settings().id());
      }
    }
    ids.sort(null);
    return ids;
  }

  /** The public list of draws, and the first instant after which it reads differently. */
  record DrawsList(Respond answer, Instant validUntil) {}

  /**
   * The public list of the draws of {@code rooms} ({@link DrawResponder#DRAWS_PATH}; {@link
   * #drawingRooms}): every draw's commitment, and its secret once it is over. JSON, not stored by
   * caches (a secret appears at its time). Valid until the earliest {@code revealAt} still ahead
   * ({@link DrawsCache}).
   */
  static DrawsList draws(Rooms.Snapshot snapshot, List<String> rooms, Instant now) {
    var list = new ArrayList<Map<String, Object>>();
    for (String id : rooms) {
      RoomRuntime r = snapshot.byId().get(id);
      list.addAll(DrawResponder.list(r.settings(), r.gate().draws(), now));
    }
    list.sort(
        java.util.Comparator.comparing((Map<String, Object> m) -> (String) m.get("room"))
            .thenComparing(m -> (String) m.get("from")));
    Instant validUntil = Instant.MAX;
    for (Map<String, Object> m : list) {
      Instant reveal = Instant.parse((String) m.get("revealAt"));
      if (reveal.isAfter(now) && reveal.isBefore(validUntil)) {
        validUntil = reveal;
      }
    }
    return new DrawsList(
        new Respond(
            200,
            List.of(new Header("Content-Type", JSON), NO_STORE, UNTHROTTLED),
            DrawResponder.listJson(list),
            false,
            null,
            "draws",
            null,
            NOTHING),
        validUntil);
  }

  private static boolean serves(Rooms.Snapshot snapshot, RoomRuntime room, String host) {
    for (var route : room.settings().routes()) {
      if (snapshot.router().route(host, route.path()) == room) {
        return true;
      }
    }
    return false;
  }

  /** A request that matched no room: to the default origin. */
  static Pass noRoom(io.anteroom.door.match.RequestTarget target, long now) {
    return new Pass(null, target, null, null, List.of(), List.of(), "no_room", null, now);
  }

  /** A request that skips its room (a bypass rule, a suspended room): counted, never judged. */
  static Pass skip(Visit v, String why) {
    v.room.meters().bypassed().inc();
    return new Pass(v.room, v.target, null, null, List.of(), List.of(), why, null, v.now);
  }

  /** The answer to the room's verdict on the visit. */
  Answer verdict(Visit v, Verdict verdict) {
    RoomRuntime room = v.room;
    Ticket logged = verdict.ticket() != null ? verdict.ticket() : v.ticket;
    return switch (verdict.outcome()) {
      case ADMIT_SESSION -> {
        room.meters().admittedReturning().inc();
        // a renewal that changes no count and shortens the session by at most S/60 keeps the
        // user's cookie: a page's burst of requests is not re-sealed request by request
        Ticket renewed = verdict.ticket();
        if (v.ticket != null && v.ticket.unused()) {
          room.gate().passUsed(v.now); // the first use of a pass admitted by a status poll
        }
        boolean keep = !v.reseal && Ticket.renewalCanWait(v.ticket, renewed, session(room, v.now));
        yield pass(v, keep ? null : renewed, renewed, "session", logged);
      }
      case ADMIT -> {
        room.meters().admittedNew().inc();
        if (v.facts.header(POLL_HEADER) != null && wantsJson(v)) {
          // the page's own status poll: tell the script to reload instead of fetching the page
          // from the origin twice
          yield queue(v, verdict, false, "admitted", logged);
        }
        // admitted on a request that reaches the origin: the pass is used now, and the cookie says
        // so (its next request is not a first use)
        room.gate().passUsed(v.now);
        Ticket used = verdict.ticket().markedUsed();
        yield pass(v, used, used, "admitted", logged);
      }
      case PASS_THROUGH -> {
        room.meters().admittedNew().inc();
        yield pass(v, verdict.ticket(), null, "passthrough", logged);
      }
      case QUEUE -> {
        room.meters().queued().inc();
        yield queue(v, verdict, true, "queued", logged);
      }
      case REJECT -> reject(v, logged);
    };
  }

  private static Pass pass(Visit v, Ticket seal, Ticket session, String decision, Ticket logged) {
    long at = passedAt(v, session);
    return new Pass(
        v.room,
        v.target,
        seal,
        session,
        v.setCookies,
        signedPass(v, session, at),
        decision,
        logged,
        at);
  }

  /**
   * When the door lets the visit through: the request's reading of the clock, or the session's last
   * check-in when that is later (an admission decided after a call to the coordinator is dated by
   * the call's answer), so that nothing dated by it comes before the admission.
   */
  private static long passedAt(Visit v, Ticket session) {
    return session == null ? v.now : Math.max(v.now, session.lastCheckInTime().toEpochMilli());
  }

  /**
   * The {@code Anteroom-Pass} header for an admitted user's request: the room, the event in force,
   * a pass id stable for the user (never its cookie), when it was admitted and until when the pass
   * holds (never past the session), signed at {@code at}; none for a request that is let through
   * unadmitted (a room that passes everyone through).
   */
  private static List<Header> signedPass(Visit v, Ticket admitted, long at) {
    if (admitted == null || admitted.acceptedAt() == null) {
      return List.of();
    }
    RoomSettings s = v.room.settings();
    String event =
        s.events().isEmpty()
            ? null
            : s.eventAt(Instant.ofEpochMilli(v.now)).map(e -> e.window().name()).orElse(null);
    long sessionEnds =
        admitted.lastCheckInTime().toEpochMilli() + sessionMinutes(s, v.now) * 60_000L;
    return List.of(
        new Header(
            Door.PASS_HEADER,
            v.passes.passFor(
                s.id(),
                event,
                v.account,
                admitted.id(),
                admitted.acceptedAt().toEpochMilli(),
                sessionEnds,
                at)));
  }

  /** The session duration S in force at {@code now} (a running event may set its own). */
  private static Duration session(RoomRuntime room, long now) {
    return Duration.ofMinutes(sessionMinutes(room.settings(), now));
  }

  /** {@link #session} in minutes, without an allocation when the room has no events. */
  private static long sessionMinutes(RoomSettings s, long now) {
    RoomSettings inForce = s.events().isEmpty() ? s : s.at(Instant.ofEpochMilli(now));
    return inForce.limits().sessionDurationMinutes();
  }

  /**
   * The queue page or JSON; {@code inWaitingRoom} false for an admitted user's status poll. Sets
   * the verdict's ticket (null: leaves the user's cookie as it is, see {@link Verdict}).
   */
  Respond queue(Visit v, Verdict verdict, boolean inWaitingRoom, String decision, Ticket logged) {
    // the monitored operation is the door's own work for a status request (render and write), not
    // the counter call before it, which is the coordinator's load
    long started = System.nanoTime();
    RoomRuntime room = v.room;
    QueuePacing pacing = room.pacing();
    long now = clock.millis();
    QueueView q = verdict.queue() != null ? verdict.queue() : QueueView.unknown(now);
    boolean throttle = pacing.throttle(v.now);
    int refresh = pacing.refreshIntervalSeconds();
    boolean json = wantsJson(v);
    String language = language(v);
    // a waiting user's answer has the room's queueingStatusCode; an admitted user's status poll is
    // a plain 200
    int status = inWaitingRoom ? room.settings().queuePage().queueingStatusCode() : 200;
    var headers = new ArrayList<Header>(v.setCookies.size() + 7);
    cookies(v, headers);
    if (verdict.ticket() != null) {
      headers.add(new Header(TicketCookie.SET_COOKIE, room.cookie().set(verdict.ticket())));
    }
    if (status == 429) {
      headers.add(new Header("Retry-After", Integer.toString(refresh)));
    }
    headers.add(NO_STORE);
    headers.add(throttle ? THROTTLED : UNTHROTTLED);
    headers.add(new Header("Content-Type", json ? JSON : HTML));
    languageHeaders(language, headers);
    Map<String, Object> receipt =
        room.draws() && inWaitingRoom
            ? DrawResponder.receipt(
                room.settings(),
                room.gate().draws(),
                verdict.ticket() != null ? verdict.ticket() : v.ticket,
                Instant.ofEpochMilli(now))
            : null;
    byte[] body =
        room.responder()
            .body(
                json,
                language,
                now,
                inWaitingRoom,
                q,
                room.settings().switches().queueAll(),
                refresh,
                throttle,
                receipt);
    return new Respond(
        status,
        headers,
        body,
        false,
        room.settings().id(),
        decision,
        logged,
        () -> pacing.recordQueueStatus(System.nanoTime() - started));
  }

  /** The endless queue of a client that keeps failing its challenges (or replays an answer). */
  Respond endlessQueue(Visit v) {
    return queue(
        v,
        new Verdict(
            io.anteroom.door.admission.RoomGate.Outcome.QUEUE, null, QueueView.unknown(v.now)),
        true,
        "challenge",
        v.ticket);
  }

  /** A challenge to solve: the page, or the queue JSON with a {@code proofOfWork} member. */
  static Respond challenge(Visit v, DoorCheck.Challenge c, String cookieName, int ttl) {
    return pageOrQueueJson(
        v,
        200,
        true,
        "proofOfWork",
        () -> ChallengeResponder.json(c, cookieName, ttl),
        language -> ChallengeResponder.html(c, cookieName, ttl, language),
        "challenge");
  }

  /**
   * An answer the door writes itself to a request that gets no place yet: its own HTML page, or the
   * queue JSON ({@code inWaitingRoom} as given) with one member of its own; {@code no-store}, the
   * throttle header, the visit's pending cookies, nothing counted.
   */
  private static Respond pageOrQueueJson(
      Visit v,
      int status,
      boolean inWaitingRoom,
      String member,
      java.util.function.Supplier<Object> memberJson,
      java.util.function.Function<String, String> html,
      String decision) {
    RoomRuntime room = v.room;
    QueuePacing pacing = room.pacing();
    boolean throttle = pacing.throttle(v.now);
    String language = language(v);
    var headers = new ArrayList<Header>(v.setCookies.size() + 5);
    cookies(v, headers);
    headers.add(NO_STORE);
    headers.add(throttle ? THROTTLED : UNTHROTTLED);
    languageHeaders(language, headers);
    byte[] body;
    if (wantsJson(v)) {
      QueueResponder responder = room.responder();
      Map<String, Object> fields =
          responder.fields(
              language,
              inWaitingRoom,
              QueueView.unknown(v.now),
              room.settings().switches().queueAll(),
              pacing.refreshIntervalSeconds(),
              throttle);
      fields.put(member, memberJson.get());
      headers.add(new Header("Content-Type", JSON));
      body = utf8(responder.json(fields));
    } else {
      headers.add(new Header("Content-Type", HTML));
      body = utf8(html.apply(language));
    }
    return new Respond(
        status, headers, body, false, room.settings().id(), decision, v.ticket, NOTHING);
  }

  /**
   * 403 for a request an invite-only room turns away ({@code refused}: no token, or why the one
   * given was not accepted): the page, or the queue JSON ({@code inWaitingRoom: false}) with an
   * {@code invitation} member. No ticket, nothing counted.
   */
  static Respond invitation(Visit v, Invitations.Refusal refused) {
    return pageOrQueueJson(
        v,
        403,
        false,
        "invitation",
        () -> InvitationResponder.json(refused),
        language -> InvitationResponder.html(refused, language),
        "invitation");
  }

  /**
   * 403 for a request whose assertion of its account was missing (a room that requires accounts) or
   * not accepted: the page, or the queue JSON ({@code inWaitingRoom: false}) with an {@code
   * account} member. No ticket, nothing counted.
   */
  static Respond account(
      Visit v, io.anteroom.door.proof.Accounts.Refusal refused, boolean required, String header) {
    return pageOrQueueJson(
        v,
        403,
        false,
        "account",
        () -> io.anteroom.door.queue.AccountResponder.json(refused, required, header),
        language -> io.anteroom.door.queue.AccountResponder.html(refused, language),
        "account");
  }

  /** {@code answer} with one more {@code Set-Cookie}. */
  static Answer withCookie(Answer answer, String setCookie) {
    return switch (answer) {
      case Pass p -> {
        var cookies = new ArrayList<String>(p.setCookies().size() + 1);
        cookies.addAll(p.setCookies());
        cookies.add(setCookie);
        yield new Pass(
            p.room(),
            p.target(),
            p.seal(),
            p.session(),
            List.copyOf(cookies),
            p.originHeaders(),
            p.decision(),
            p.ticket(),
            p.at());
      }
      case Respond r -> {
        var headers = new ArrayList<Header>(r.headers().size() + 1);
        headers.addAll(r.headers());
        headers.add(new Header(TicketCookie.SET_COOKIE, setCookie));
        yield new Respond(
            r.status(),
            List.copyOf(headers),
            r.body(),
            r.closeConnection(),
            r.roomId(),
            r.decision(),
            r.ticket(),
            r::written);
      }
    };
  }

  /**
   * 307 to the request's own target with the account's place (its ticket cookie and account
   * cookie): another browser of the account made the account's place first.
   */
  static Respond toOwnPlace(Visit v, String ticketCookie, String accountCookie) {
    String location =
        v.target.query() == null ? v.target.path() : v.target.path() + "?" + v.target.query();
    var headers = new ArrayList<Header>(6);
    headers.add(new Header(TicketCookie.SET_COOKIE, ticketCookie));
    headers.add(new Header(TicketCookie.SET_COOKIE, accountCookie));
    headers.add(new Header("Location", location));
    headers.add(NO_STORE);
    headers.add(v.room.pacing().throttle(v.now) ? THROTTLED : UNTHROTTLED);
    headers.add(new Header("Content-Type", TEXT));
    return new Respond(
        307,
        headers,
        utf8("307: your account already has its place in line; this is it.\n"),
        false,
        v.room.settings().id(),
        "account",
        v.ticket,
        NOTHING);
  }

  /**
   * 429 for {@code queueingMethod: reject}. No {@code Set-Cookie}: the request held no admitted
   * ticket of its own, but the user's jar may have received one meanwhile (two requests of one page
   * load); clearing it would end that admission.
   */
  Respond reject(Visit v, Ticket logged) {
    RoomRuntime room = v.room;
    room.meters().rejected().inc();
    QueuePacing pacing = room.pacing();
    int retry = pacing.refreshIntervalSeconds();
    boolean throttle = pacing.throttle(v.now);
    String language = language(v);
    var headers = new ArrayList<Header>(v.setCookies.size() + 6);
    cookies(v, headers);
    headers.add(new Header("Retry-After", Integer.toString(retry)));
    headers.add(NO_STORE);
    headers.add(throttle ? THROTTLED : UNTHROTTLED);
    languageHeaders(language, headers);
    byte[] body;
    if (wantsJson(v)) {
      QueueResponder responder = room.responder();
      var fields =
          responder.fields(
              language,
              false,
              QueueView.unknown(clock.millis()),
              room.settings().switches().queueAll(),
              retry,
              throttle);
      headers.add(new Header("Content-Type", JSON));
      body = utf8(responder.json(fields));
    } else {
      headers.add(new Header("Content-Type", TEXT));
      PageTexts texts = PageTexts.of(language);
      body =
          utf8(
              "429 Too Many Requests: "
                  + texts.format("rejectText", texts.count("seconds", retry))
                  + "\n");
    }
    return new Respond(
        429, headers, body, false, room.settings().id(), "rejected", logged, NOTHING);
  }

  /**
   * The human check to do: the page with the provider's widget, or the queue JSON with a {@code
   * humanCheck} member; {@code refused} ({@code failed}, {@code unavailable}) when a token was not
   * accepted.
   */
  static Respond humanCheck(
      Visit v,
      io.anteroom.door.config.GatewayConfig.HumanCheck h,
      String cookieName,
      String refused) {
    return pageOrQueueJson(
        v,
        200,
        true,
        "humanCheck",
        () -> io.anteroom.door.queue.HumanCheckResponder.json(h, cookieName, refused),
        language ->
            io.anteroom.door.queue.HumanCheckResponder.html(h, cookieName, refused, language),
        "challenge");
  }

  /**
   * 403 for a request a {@code block} rule matches: a short page, or for JSON {@code {"error":
   * "blocked", ...}}; no ticket, no place in line, no {@code Set-Cookie}.
   */
  Respond blocked(Visit v) {
    PageTexts texts = PageTexts.of(language(v));
    return refusal(
        v, texts, 403, "blocked", null, texts.text("blockedTitle"), texts.text("blockedText"));
  }

  /**
   * 429 for a client address prefix over its {@code addressLimit}: a short page, or for JSON {@code
   * {"error": "tooManyNewVisitors", ..., "retryAfterSeconds": n}}, with {@code Retry-After}; no
   * ticket.
   */
  Respond tooManyNewIdentities(Visit v, int retryAfterSeconds) {
    PageTexts texts = PageTexts.of(language(v));
    return refusal(
        v,
        texts,
        429,
        "tooManyNewVisitors",
        retryAfterSeconds,
        texts.text("tooManyTitle"),
        texts.format("tooManyText", texts.count("seconds", retryAfterSeconds)));
  }

  /**
   * A refusal the door writes itself (block, too many new visitors): status, optional {@code
   * Retry-After}, a small HTML page or JSON {@code {"error": code, "message": ...,
   * "retryAfterSeconds": ...}}.
   */
  private Respond refusal(
      Visit v,
      PageTexts texts,
      int status,
      String code,
      Integer retryAfter,
      String title,
      String text) {
    RoomRuntime room = v.room;
    boolean throttle = room.pacing().throttle(v.now);
    var headers = new ArrayList<Header>(7);
    if (retryAfter != null) {
      headers.add(new Header("Retry-After", Integer.toString(retryAfter)));
    }
    headers.add(NO_STORE);
    headers.add(throttle ? THROTTLED : UNTHROTTLED);
    languageHeaders(texts.language(), headers);
    byte[] body;
    if (wantsJson(v)) {
      var o = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
      o.put("error", code).put("message", text);
      if (retryAfter != null) {
        o.put("retryAfterSeconds", retryAfter);
      }
      headers.add(new Header("Content-Type", JSON));
      body = utf8(o.toString());
    } else {
      headers.add(new Header("Content-Type", HTML));
      body =
          utf8(
              "<!doctype html><html lang=\""
                  + texts.language()
                  + "\" dir=\""
                  + texts.dir()
                  + "\"><head><meta charset=\"utf-8\">"
                  + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                  + "<title>"
                  + title
                  + "</title></head><body><main><h1>"
                  + title
                  + "</h1><p>"
                  + text
                  + "</p></main></body></html>\n");
    }
    return new Respond(status, headers, body, false, room.settings().id(), code, v.ticket, NOTHING);
  }

  private static void cookies(Visit v, List<Header> headers) {
    for (String c : v.setCookies) {
      headers.add(new Header(TicketCookie.SET_COOKIE, c));
    }
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
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
    CacheControlMemo memo = lastCacheControl;
    if (memo.origin().equals(origin)) {
      return memo.made();
    }
    String made = madePrivate(origin);
    lastCacheControl = new CacheControlMemo(origin, made);
    return made;
  }

  /** An origin's {@code Cache-Control} and what {@link #privateCacheControl} made of it. */
  private record CacheControlMemo(String origin, String made) {}

  /**
   * The last origin {@code Cache-Control} made private, shared by all threads (immutable: a racing
   * read sees this memo or an older one): an application sends the same few values again and again.
   */
  private static CacheControlMemo lastCacheControl = new CacheControlMemo("", "private");

  private static String madePrivate(String origin) {
    var kept = new ArrayList<String>();
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
}
