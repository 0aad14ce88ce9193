package io.anteroom.door.ticket;

import io.anteroom.door.config.CookieSameSite;
import io.anteroom.room.Ticket;
import java.util.List;

/**
 * One room's ticket cookie: its name ({@code __anteroom_<room id><cookieSuffix>}), finding it in
 * the request's {@code Cookie} header, opening it with the {@link TicketCodec} and decoding it
 * ({@link TicketBytes}) once into the room's {@link Ticket}, and the {@code Set-Cookie} values that
 * set or clear it ({@code Path=/}, {@code HttpOnly}, the room's {@code Secure} and {@code
 * SameSite}).
 *
 * <p>Invariants: a missing, tampered, truncated, other-room or unknown-key cookie opens as null (a
 * new user), never as an error; so does a cookie of another generation of the room. This is on
 * every admitted request, so it stays cheap: the scan reads only this cookie (no decoding of the
 * site's other cookies) and the attributes are built once per room. Immutable; a settings change
 * builds a new one.
 *
 * <pre>{@code
 * var cookie = new TicketCookie("shop", generation, "", false, CookieSameSite.LAX, codec);
 * TicketCookie.Opened opened = cookie.open(request.headers("Cookie")); // null: a new user
 * response.addHeader(TicketCookie.SET_COOKIE, cookie.set(renewed));
 * }</pre>
 */
public final class TicketCookie {

  /** The response header name. */
  public static final String SET_COOKIE = "Set-Cookie";

  /**
   * A cookie opened into its ticket. {@code reseal}: the cookie holds an older byte layout, so the
   * ticket is sealed again on this request whatever the renewal rule says.
   */
  public record Opened(Ticket ticket, boolean reseal) {}

  private final String name;
  private final String roomId;
  private final TicketCodec codec;

  /** The room id and generation the cookie is sealed for. */
  private final TicketCodec.Scope scope;

  /** {@code ; Path=/; [Secure; ]HTTPOnly; SameSite=X}: what follows the value. */
  private final String attributes;

  private final String clear;

  /**
   * The ticket of a payload: immutable, so the codec's cache hands the same one to the next request
   * with the same cookie, on any thread.
   */
  private final TicketCodec.Decoder<Opened> decoder;

  /** The cookie of a room of generation 0. */
  public TicketCookie(
      String roomId,
      String cookieSuffix,
      boolean secure,
      CookieSameSite sameSite,
      TicketCodec codec) {
    this(roomId, 0, cookieSuffix, secure, sameSite, codec);
  }

  /**
   * The cookie of room {@code roomId} in its {@code generation}: cookies of other generations of
   * the same room id open as null (new users).
   */
  public TicketCookie(
      String roomId,
      long generation,
      String cookieSuffix,
      boolean secure,
      CookieSameSite sameSite,
      TicketCodec codec) {
    this.name = "__anteroom_" + roomId + cookieSuffix;
    this.roomId = roomId;
    this.codec = codec;
    this.scope = codec.scope(roomId, generation);
    this.attributes = attributes(secure, sameSite);
    this.clear = clearCookie(name, secure, sameSite);
    this.decoder =
        bytes -> {
          Ticket ticket = TicketBytes.decode(roomId, bytes);
          return ticket == null ? null : new Opened(ticket, !TicketBytes.currentLayout(bytes));
        };
  }

  /**
   * The {@code Set-Cookie} value that removes cookie {@code name}: empty, {@code Max-Age=0} and an
   * {@code Expires} in the past (for clients that know no {@code Max-Age}), with the same
   * attributes the cookie was set with.
   */
  public static String clearCookie(String name, boolean secure, CookieSameSite sameSite) {
    return name
        + "=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT"
        + attributes(secure, sameSite);
  }

  /** The cookie's name. */
  public String name() {
    return name;
  }

  /**
   * The ticket of a request with these {@code Cookie} headers, or null when absent or not a valid
   * cookie of the room (a new user).
   */
  public Opened open(List<String> cookieHeaders) {
    String value = scan(cookieHeaders, name);
    return value == null ? null : openValue(value);
  }

  /** The ticket a cookie value holds, or null when it is not a valid cookie of the room. */
  public Opened openValue(String value) {
    return value == null ? null : codec.open(scope, value, 0, value.length(), decoder);
  }

  /** {@link #openValue(String)} at {@code nowMillis} (the request's one reading of the clock). */
  public Opened openValue(String value, long nowMillis) {
    return value == null ? null : codec.open(scope, value, 0, value.length(), decoder, nowMillis);
  }

  /**
   * The ticket of this room's cookie in one {@code Cookie} header value ({@link #scan} finds it),
   * opened without copying it out of the header; null when the cookie is there but not a valid
   * cookie of the room. {@code absent} when the header does not hold the cookie (another header
   * may). {@code nowMillis} is the request's one reading of the clock.
   */
  public Opened openIn(String header, Opened absent, long nowMillis) {
    long at = find(header, name);
    return at < 0
        ? absent
        : codec.open(scope, header, (int) (at >>> 32), (int) at, decoder, nowMillis);
  }

  /** The {@code Set-Cookie} value carrying {@code ticket} sealed. */
  public String set(Ticket ticket) {
    return name + '=' + codec.seal(scope, TicketBytes.encode(ticket)) + attributes;
  }

  /** The cookie value of {@code ticket} sealed (what {@link #set} puts after the name). */
  public String sealValue(Ticket ticket) {
    return codec.seal(scope, TicketBytes.encode(ticket));
  }

  /** The {@code Set-Cookie} value carrying an already sealed cookie value. */
  public String setSealed(String sealed) {
    return name + '=' + sealed + attributes;
  }

  /** The {@code Set-Cookie} value that removes the cookie ({@code Max-Age=0}). */
  public String clear() {
    return clear;
  }

  /**
   * The {@code Set-Cookie} value Vert.x's cookie encoder writes for these attributes ({@code
   * name=value; Path=/; [Secure; ]HTTPOnly; SameSite=X}), built directly: the sealed value is
   * base64url, which needs no quoting.
   */
  static String setCookie(String name, String value, boolean secure, CookieSameSite sameSite) {
    return name + '=' + value + attributes(secure, sameSite);
  }

  private static String attributes(boolean secure, CookieSameSite sameSite) {
    return (secure ? "; Path=/; Secure; HTTPOnly; SameSite=" : "; Path=/; HTTPOnly; SameSite=")
        + sameSite.configName();
  }

  /**
   * The value of cookie {@code name} in the request's {@code Cookie} header(s) (RFC 6265 §4.2.1:
   * {@code name=value} pairs separated by {@code ;}), the first one if it occurs twice, without
   * surrounding double quotes; null when absent. Reads only the one cookie asked for rather than
   * decoding every cookie of the site into objects (also used by bypass rules on a cookie).
   */
  public static String scan(List<String> cookieHeaders, String name) {
    for (int i = 0; i < cookieHeaders.size(); i++) {
      String found = scan(cookieHeaders.get(i), name);
      if (found != null) {
        return found;
      }
    }
    return null;
  }

  /** {@link #scan(List, String)} for one header value. */
  public static String scan(String header, String name) {
    long at = find(header, name);
    return at < 0 ? null : header.substring((int) (at >>> 32), (int) at);
  }

  /**
   * Where {@link #scan(String, String)} finds cookie {@code name}'s value in {@code header}: {@code
   * from << 32 | to}, or -1 when absent.
   */
  static long find(String header, String name) {
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
        return (long) from << 32 | to;
      }
      at = end + 1;
    }
    return -1;
  }
}
