package io.anteroom.gateway.ticket;

import io.anteroom.gateway.config.CookieSameSite;
import io.netty.util.AsciiString;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.HttpServerRequest;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One room's ticket cookie: its name ({@code __anteroom_<room id><cookieSuffix>}), finding it in
 * the request's {@code Cookie} header, opening it with the {@link TicketCodec}, and the {@code
 * Set-Cookie} values that set or clear it ({@code Path=/}, {@code HttpOnly}, the room's {@code
 * Secure} and {@code SameSite}).
 *
 * <p>Invariants: a missing, tampered, truncated, other-room or unknown-key cookie opens as null (a
 * new user), never as an error; so does a cookie of another generation of the room. This is on
 * every admitted request, so it stays cheap: the scan reads only this cookie (no decoding of the
 * site's other cookies), the attributes are built once per room, and a Set-Cookie value is handed
 * to Netty as bytes. Immutable; a settings change builds a new one.
 *
 * <pre>{@code
 * var cookie = new TicketCookie("shop", generation, "", false, CookieSameSite.LAX, codec);
 * byte[] ticket = cookie.open(request);                 // null: a new user
 * response.headers().add(TicketCookie.SET_COOKIE, cookie.set(renewed));
 * }</pre>
 */
public final class TicketCookie {

  /** The response header name, as a cached {@link AsciiString}. */
  public static final CharSequence SET_COOKIE = AsciiString.cached("Set-Cookie");

  private final String name;
  private final TicketCodec codec;

  /** The room id and generation the cookie is sealed for. */
  private final TicketCodec.Scope scope;

  /** {@code ; Path=/; [Secure; ]HTTPOnly; SameSite=X}: what follows the value. */
  private final String attributes;

  private final String clear;

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
    this.codec = codec;
    this.scope = codec.scope(roomId, generation);
    this.attributes = attributes(secure, sameSite);
    this.clear =
        Cookie.cookie(name, "")
            .setPath("/")
            .setHttpOnly(true)
            .setSecure(secure)
            .setSameSite(
                io.vertx.core.http.CookieSameSite.valueOf(
                    sameSite.configName().toUpperCase(Locale.ROOT)))
            .setMaxAge(0)
            .encode();
  }

  /** The cookie's name. */
  public String name() {
    return name;
  }

  /** The opened ticket of this request, or null when absent or not a valid cookie of the room. */
  public byte[] open(HttpServerRequest request) {
    String value = scan(request, name);
    return value == null ? null : codec.open(scope, value).orElse(null);
  }

  /** The {@code Set-Cookie} value carrying {@code ticket} sealed, as bytes. */
  public CharSequence set(byte[] ticket) {
    return ascii(name + '=' + codec.seal(scope, ticket) + attributes);
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
   * An ASCII header value as bytes: Netty writes an {@code AsciiString} as one block, a {@code
   * String} character by character (the sealed cookie is about 150 characters).
   */
  private static CharSequence ascii(String value) {
    return new AsciiString(value.getBytes(StandardCharsets.ISO_8859_1), false);
  }

  /**
   * The value of cookie {@code name} in the request's {@code Cookie} header(s) (RFC 6265 §4.2.1:
   * {@code name=value} pairs separated by {@code ;}), the first one if it occurs twice, without
   * surrounding double quotes; null when absent. Reads only the one cookie asked for rather than
   * decoding every cookie of the site into objects (also used by bypass rules on a cookie).
   */
  public static String scan(HttpServerRequest request, String name) {
    var headers = request.headers();
    String first = headers.get("Cookie");
    if (first == null) {
      return null;
    }
    String found = scan(first, name);
    if (found != null) {
      return found;
    }
    var all = headers.getAll("Cookie");
    for (int i = 1; i < all.size(); i++) {
      found = scan(all.get(i), name);
      if (found != null) {
        return found;
      }
    }
    return null;
  }

  /** {@link #scan(HttpServerRequest, String)} for one header value. */
  static String scan(String header, String name) {
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
}
