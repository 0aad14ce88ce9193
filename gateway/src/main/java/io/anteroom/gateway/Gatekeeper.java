package io.anteroom.gateway;

import io.anteroom.gateway.GatewayConfig.RoomSettings;
import io.anteroom.gateway.RoomGate.Outcome;
import io.anteroom.gateway.RoomGate.QueueView;
import io.anteroom.gateway.RoomGate.Verdict;
import io.vertx.core.Context;
import io.vertx.core.Handler;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.CookieSameSite;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.time.Clock;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The public listener's request handler: route to a room, skip bypassed traffic, open the ticket
 * cookie, and either proxy (admitted) or answer from the queue (HTML, JSON, or 429 for
 * {@code reject}). Every response carries {@code Anteroom-Throttle}.
 *
 * <p>Invariants: the admitted path (valid admitted cookie) is synchronous on the event loop:
 * decrypt, {@link RoomGate#renewAdmitted}, re-encrypt, proxy; no lock, no remote call. Other
 * users are decided asynchronously by {@link RoomGate#decide} while the request body is paused;
 * the answer is written back on the request's own event-loop context. A gate failure never
 * admits: the user sees the queue page.
 */
final class Gatekeeper implements Handler<HttpServerRequest> {

  private static final Logger LOG = LoggerFactory.getLogger(Gatekeeper.class);
  static final String THROTTLE_HEADER = "Anteroom-Throttle";
  static final String POLL_HEADER = "Anteroom-Poll";
  private static final CharSequence SET_COOKIE = io.netty.util.AsciiString.cached("Set-Cookie");

  private final Rooms rooms;
  private final TicketCodec codec;
  private final Clock clock;

  Gatekeeper(Rooms rooms, TicketCodec codec, Clock clock) {
    this.rooms = rooms;
    this.codec = codec;
    this.clock = clock;
  }

  @Override
  public void handle(HttpServerRequest request) {
    RoomRuntime room = rooms.snapshot().router().route(request.getHeader("Host"), request.path());
    if (room == null) {
      forward(request, null, rooms.defaultProxy(), null, null);
      return;
    }
    RoomSettings s = room.settings();
    if (s.suspended() || !room.bypass().isEmpty() && room.bypass().bypasses(facts(request))) {
      room.meters().bypassed().mark();
      forward(request, room, room.origin(), null, null);
      return;
    }
    long now = clock.millis();
    String cookie = cookieValue(request, s.cookieName());
    byte[] ticket = cookie == null ? null : codec.open(s.id(), cookie).orElse(null);
    CompletableFuture<Verdict> decided = room.gate().decide(ticket, now).toCompletableFuture();
    if (decided.isDone() && !decided.isCompletedExceptionally()) {
      answer(request, room, decided.join()); // the hot path: no pause, no hop
      return;
    }
    request.pause();
    Context context = io.vertx.core.Vertx.currentContext();
    decided.whenComplete((verdict, failure) -> context.runOnContext(v -> {
      if (failure != null) {
        LOG.warn("room {}: admission decision failed, queueing the user", s.id(), failure);
      }
      answer(request, room, failure == null ? verdict
          : new Verdict(Outcome.QUEUE, ticket, new QueueView(false, 0, 0, 0, 0, now, true)));
    }));
  }

  private void answer(HttpServerRequest request, RoomRuntime room, Verdict verdict) {
    RoomSettings s = room.settings();
    boolean poll = request.getHeader(POLL_HEADER) != null;
    switch (verdict.outcome()) {
      case ADMIT_SESSION -> {
        room.meters().admittedReturning().mark();
        forward(request, room, room.origin(), verdict.ticket(), verdict.ticket());
      }
      case ADMIT -> {
        room.meters().admittedNew().mark();
        if (poll && room.responder().wantsJson(request.getHeader("Accept"))) {
          // the page's own status poll: tell the script to reload instead of fetching the page
          // from the origin twice
          queueResponse(request, room, verdict, false);
        } else {
          forward(request, room, room.origin(), verdict.ticket(), verdict.ticket());
        }
      }
      case QUEUE -> {
        if (s.queueingMethod().equals("reject")) {
          reject(request, room);
        } else if (s.queueingMethod().equals("passthrough")) {
          room.meters().admittedNew().mark();
          forward(request, room, room.origin(), verdict.ticket(), null);
        } else {
          room.meters().queued().mark();
          queueResponse(request, room, verdict, true);
        }
      }
      case REJECT -> reject(request, room);
    }
  }

  private void queueResponse(HttpServerRequest request, RoomRuntime room, Verdict verdict,
      boolean inWaitingRoom) {
    // the monitored operation is the gateway's own work for a status request (render and
    // write), not the counter call before it, which is the coordinator's load
    long started = System.nanoTime();
    RoomSettings s = room.settings();
    request.resume(); // drain and drop any body: a queued request never reaches the origin
    QueuePacing pacing = room.pacing();
    QueueView q = verdict.queue() != null ? verdict.queue()
        : new QueueView(false, 0, 0, 0, 0, clock.millis(), false);
    boolean throttle = pacing.throttle();
    var fields = room.responder().fields(inWaitingRoom, q, s.queueAll(),
        pacing.refreshIntervalSeconds(), throttle);
    HttpServerResponse response = request.response();
    setTicket(response, s, verdict.ticket());
    response.putHeader("Cache-Control", "no-store");
    response.putHeader(THROTTLE_HEADER, throttle ? "1" : "0");
    if (room.responder().wantsJson(request.getHeader("Accept"))) {
      response.putHeader("Content-Type", "application/json").end(room.responder().json(fields));
    } else {
      response.putHeader("Content-Type", "text/html; charset=utf-8")
          .end(room.responder().html(fields, q.lastUpdatedMillis()));
    }
    pacing.recordQueueStatus(System.nanoTime() - started);
  }

  private void reject(HttpServerRequest request, RoomRuntime room) {
    room.meters().rejected().mark();
    request.resume();
    RoomSettings s = room.settings();
    HttpServerResponse response = request.response();
    clearTicket(response, s);
    int retry = room.pacing().refreshIntervalSeconds();
    response.setStatusCode(429).putHeader("Retry-After", Integer.toString(retry))
        .putHeader("Cache-Control", "no-store")
        .putHeader(THROTTLE_HEADER, room.pacing().throttle() ? "1" : "0");
    if (room.responder().wantsJson(request.getHeader("Accept"))) {
      var fields = room.responder().fields(false,
          new QueueView(false, 0, 0, 0, 0, clock.millis(), true), s.queueAll(), retry,
          room.pacing().throttle());
      response.putHeader("Content-Type", "application/json").end(room.responder().json(fields));
    } else {
      response.putHeader("Content-Type", "text/plain; charset=utf-8")
          .end("429 Too Many Requests: the site is full right now. Please try again in " + retry
              + " seconds.\n");
    }
  }

  /**
   * Proxies to the origin. {@code ticket} (if not null) is sealed into the cookie;
   * {@code sessionTicket} is the admitted ticket a revocation by the origin ends.
   */
  private void forward(HttpServerRequest request, RoomRuntime room, OriginProxy origin,
      byte[] ticket, byte[] sessionTicket) {
    long started = System.nanoTime();
    origin.forward(request, response -> onOriginResponse(room, response, ticket, sessionTicket,
        started));
  }

  private void onOriginResponse(RoomRuntime room, HttpServerResponse response, byte[] ticket,
      byte[] sessionTicket, long started) {
    var headers = response.headers();
    if (room == null) {
      headers.set(THROTTLE_HEADER, "0");
      return;
    }
    long took = System.nanoTime() - started;
    room.meters().origin().update(took, java.util.concurrent.TimeUnit.NANOSECONDS);
    if (room.protection() != null) {
      room.protection().record(response.getStatusCode(), took);
    }
    headers.set(THROTTLE_HEADER, room.pacing().throttle() ? "1" : "0");
    RoomSettings s = room.settings();
    String command = headers.get(OriginProxy.REVOKE_HEADER);
    if (command != null) {
      headers.remove(OriginProxy.REVOKE_HEADER);
      if (command.trim().equalsIgnoreCase("revoke")) {
        room.meters().revoked().mark();
        if (sessionTicket != null) {
          room.gate().revoke(sessionTicket, clock.millis());
        }
        headers.add("Set-Cookie", clearCookie(s).encode());
        return;
      }
    }
    if (ticket != null) {
      headers.add(SET_COOKIE, ascii(ticketCookie(s, ticket)));
    }
  }

  private void setTicket(HttpServerResponse response, RoomSettings s, byte[] ticket) {
    if (ticket == null) {
      clearTicket(response, s);
    } else {
      response.headers().add(SET_COOKIE, ascii(ticketCookie(s, ticket)));
    }
  }

  private static void clearTicket(HttpServerResponse response, RoomSettings s) {
    response.headers().add("Set-Cookie", clearCookie(s).encode());
  }

  /**
   * The {@code Set-Cookie} value carrying {@code ticket}, in the form Vert.x's cookie encoder
   * writes ({@code name=value; Path=/; [Secure; ]HTTPOnly; SameSite=X}), built directly: this is
   * on every admitted response, and the sealed value is base64url, which needs no quoting.
   */
  private String ticketCookie(RoomSettings s, byte[] ticket) {
    return setCookie(s.cookieName(), codec.seal(s.id(), ticket), s.cookieSecure(),
        s.cookieSameSite());
  }

  /**
   * An ASCII header value as bytes: Netty writes an {@code AsciiString} as one block, a
   * {@code String} character by character (the sealed cookie is about 150 characters).
   */
  private static CharSequence ascii(String value) {
    return new io.netty.util.AsciiString(
        value.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1), false);
  }

  static String setCookie(String name, String value, boolean secure, String sameSite) {
    return name + '=' + value
        + (secure ? "; Path=/; Secure; HTTPOnly; SameSite=" : "; Path=/; HTTPOnly; SameSite=")
        + sameSite(sameSite);
  }

  private static String sameSite(String configured) {
    return switch (configured) { // the config loader allows exactly these three
      case "Lax", "Strict", "None" -> configured;
      default -> switch (configured.toLowerCase(java.util.Locale.ROOT)) {
        case "strict" -> "Strict";
        case "none" -> "None";
        default -> "Lax";
      };
    };
  }

  /**
   * The value of cookie {@code name} in the request's {@code Cookie} header(s) (RFC 6265 §4.2.1:
   * {@code name=value} pairs separated by {@code ;}), the first one if it occurs twice, without
   * surrounding double quotes; null when absent. Reads only the one cookie the room needs rather
   * than decoding every cookie of the site into objects.
   */
  static String cookieValue(HttpServerRequest request, String name) {
    var headers = request.headers();
    String first = headers.get("Cookie");
    if (first == null) {
      return null;
    }
    String found = cookieValue(first, name);
    if (found != null) {
      return found;
    }
    var all = headers.getAll("Cookie");
    for (int i = 1; i < all.size(); i++) {
      found = cookieValue(all.get(i), name);
      if (found != null) {
        return found;
      }
    }
    return null;
  }

  /** {@link #cookieValue(HttpServerRequest, String)} for one header value. */
  static String cookieValue(String header, String name) {
    int n = name.length();
    int at = 0;
    int length = header.length();
    while (at < length) {
      while (at < length && (header.charAt(at) == ' ' || header.charAt(at) == '\t')) {
        at++;
      }
      int end = header.indexOf(';', at);
      if (end < 0) {
        end = length;
      }
      if (end - at > n && header.charAt(at + n) == '=' && header.startsWith(name, at)) {
        int from = at + n + 1;
        int to = end;
        while (to > from && (header.charAt(to - 1) == ' ' || header.charAt(to - 1) == '\t')) {
          to--;
        }
        if (to - from >= 2 && header.charAt(from) == '"' && header.charAt(to - 1) == '"') {
          from++;
          to--;
        }
        return header.substring(from, to);
      }
      at = end + 1;
    }
    return null;
  }

  private static Cookie clearCookie(RoomSettings s) {
    return attributes(Cookie.cookie(s.cookieName(), ""), s).setMaxAge(0);
  }

  private static Cookie attributes(Cookie c, RoomSettings s) {
    return c.setPath("/").setHttpOnly(true).setSecure(s.cookieSecure())
        .setSameSite(CookieSameSite.valueOf(s.cookieSameSite().toUpperCase()));
  }

  private static BypassMatcher.Request facts(HttpServerRequest request) {
    return new BypassMatcher.Request() {
      @Override
      public String path() {
        return request.path();
      }

      @Override
      public String header(String name) {
        return request.getHeader(name);
      }

      @Override
      public String cookie(String name) {
        return cookieValue(request, name);
      }

      @Override
      public String clientIp() {
        return request.remoteAddress() == null ? null : request.remoteAddress().hostAddress();
      }
    };
  }
}
