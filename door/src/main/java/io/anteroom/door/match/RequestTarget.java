package io.anteroom.door.match;

import java.util.Objects;

/**
 * The one normalised form of a request's target that routing, bypass rules and forwarding all use,
 * so that no spelling of a path or host can reach an origin while skipping its room.
 *
 * <p>{@link #parse} takes the raw request-target (origin-form {@code /path?query} or absolute-form
 * {@code http://host/path?query}), the {@code Host} header and, for HTTP/2, the {@code :authority}
 * pseudo-header, and returns either a {@code RequestTarget} or a {@link
 * RequestTargetResult.Rejected} to answer with 400. Pure, thread-safe, and cheap: a target that is
 * already normal costs one scan and at most one substring; a rejection allocates nothing.
 *
 * <h2>Path</h2>
 *
 * <ol>
 *   <li>Split into segments at {@code /}. Path parameters are stripped from every segment, from the
 *       first raw {@code ;} to the end of the segment, as Tomcat and Spring do before routing
 *       ({@code /static/..;/checkout} is {@code /static/../checkout}); an encoded {@code %3B} is an
 *       ordinary character.
 *   <li>Percent-escapes of unreserved characters ({@code A-Z a-z 0-9 - . _ ~}) are decoded ({@code
 *       %73hop} is {@code shop}, {@code %2e%2E} is {@code ..}); every other escape is kept, with
 *       upper-case hex ({@code %c3%a9} becomes {@code %C3%A9}).
 *   <li>Empty segments are removed ({@code //shop/} is {@code /shop/}), then dot-segments as in RFC
 *       3986 §5.2.4 ({@code /./shop/} is {@code /shop/}, {@code /a/b/..} is {@code /a/}); a
 *       trailing slash is kept, and a final {@code .} or {@code ..} leaves one.
 *   <li>Refused (400), because servers disagree on what they mean: {@code ..} that climbs above the
 *       root, an encoded {@code /} or {@code \} ({@code %2F}, {@code %5C}), a raw {@code \}, a
 *       control character raw or encoded ({@code %00}-{@code %1F}, {@code %7F}), a {@code %} not
 *       followed by two hex digits, a {@code #} anywhere in the target, a lone UTF-16 surrogate.
 *   <li>Characters that may not appear raw in a path ({@code " < > [ ] ^ ` { | }}, non-ASCII) are
 *       percent-encoded. A character from U+0080 to U+00FF stands for the byte of the same value
 *       (HTTP decoders such as Netty's hand the request line over as ISO-8859-1, one char per
 *       byte); a character above U+00FF is encoded as UTF-8.
 * </ol>
 *
 * The result starts with {@code /}, has no empty segment (but possibly a trailing slash), no dot
 * segment, no escape of an unreserved character, and parsing it again gives it back unchanged. It
 * is the path to forward: the origin sees what the room and the bypass rules judged.
 *
 * <h2>Query</h2>
 *
 * Everything after the first {@code ?}, untouched but for non-ASCII characters, which are
 * percent-encoded as in the path (so that the origin gets the bytes the client sent, not their
 * UTF-8 re-encoding); control characters, {@code #} and lone surrogates are refused. {@code null}
 * when there is no {@code ?}.
 *
 * <h2>Host</h2>
 *
 * The authority of an absolute-form target wins over {@code Host} (RFC 9112 §3.2.2), and {@code
 * :authority} over {@code Host} (RFC 9113 §8.3.1). The host is lower-cased, its port and one
 * trailing dot removed ({@code Shop.Example.com.:443} is {@code shop.example.com}); IPv6 literals
 * keep their brackets ({@code [::1]}). Only letters, digits, {@code - . _} are accepted in a name
 * (no percent-escapes, no user information, no empty labels), and a port must be at most 5 digits
 * up to 65535. With no host anywhere (HTTP/1.0 without {@code Host}, or an empty one), {@link
 * #host()} is {@code null}: the caller must not let such a request reach the origin of a
 * host-scoped room. The caller must also refuse a request with more than one {@code Host} header
 * before calling this (RFC 9112 §3.2).
 *
 * <pre>{@code
 * RequestTargetResult r = RequestTarget.parse("/static/..;/checkout?x=1", "Shop.Example.com.", null);
 * // RequestTarget[host=shop.example.com, path=/checkout, query=x=1]
 * }</pre>
 *
 * @param host the normalised host, {@code null} when the request names none
 * @param path the normalised path: route, bypass and forward with it
 * @param query the query as received, without the {@code ?}, non-ASCII percent-encoded; {@code
 *     null} when there is none
 */
public record RequestTarget(String host, String path, String query) implements RequestTargetResult {

  public RequestTarget {
    Objects.requireNonNull(path, "path");
  }

  /**
   * The path and the query as they should be forwarded to the origin, e.g. {@code /checkout?x=1}.
   */
  public String pathAndQuery() {
    return query == null ? path : path + '?' + query;
  }

  /**
   * Normalises a request's target and host.
   *
   * @param rawTarget the request-target as received (Vert.x: {@code request.uri()}; HTTP/2: {@code
   *     :path})
   * @param hostHeader the {@code Host} header, or null
   * @param authority the HTTP/2 {@code :authority}, or null (HTTP/1)
   */
  public static RequestTargetResult parse(String rawTarget, String hostHeader, String authority) {
    try {
      return parseOrThrow(rawTarget, hostHeader, authority);
    } catch (Refusal r) {
      return r.rejected;
    }
  }

  // ---- rejections: pre-allocated, so that a flood of bad requests allocates nothing ----

  /** Thrown only inside this class; carries a shared {@link RequestTargetResult.Rejected}. */
  private static final class Refusal extends RuntimeException {
    final RequestTargetResult.Rejected rejected;

    Refusal(String reason) {
      super(reason, null, false, false);
      this.rejected = new RequestTargetResult.Rejected(reason);
    }
  }

  private static final Refusal EMPTY = new Refusal("empty request target");
  private static final Refusal FORM =
      new Refusal("the request target must be a path starting with / or an absolute http(s) URI");
  private static final Refusal ASTERISK =
      new Refusal("asterisk-form request target (OPTIONS *) is not served");
  private static final Refusal NO_HOST = new Refusal("absolute-form request target without a host");
  private static final Refusal USERINFO =
      new Refusal("user information in the request target's authority is not allowed");
  private static final Refusal ESCAPE =
      new Refusal(
          "invalid percent-escape in the request target (a % must be followed by two hex digits)");
  private static final Refusal ENCODED_SLASH =
      new Refusal("an encoded / or \\ (%2F, %5C) in the request path is ambiguous");
  private static final Refusal BACKSLASH =
      new Refusal("a backslash in the request path is ambiguous");
  private static final Refusal CONTROL = new Refusal("control character in the request target");
  private static final Refusal FRAGMENT =
      new Refusal("a fragment (#) is not allowed in a request target");
  private static final Refusal CLIMB =
      new Refusal("the request path climbs above the root with ..");
  private static final Refusal SURROGATE =
      new Refusal("invalid character (lone surrogate) in the request target");
  private static final Refusal BAD_HOST =
      new Refusal(
          "malformed host (expected a name of letters, digits, - . _, an IPv4 address or an [IPv6] literal, and an optional port)");
  private static final Refusal BAD_PORT =
      new Refusal("malformed port in the host (expected up to 5 digits, at most 65535)");

  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  // ---- parsing ----

  private static RequestTarget parseOrThrow(String raw, String hostHeader, String authority) {
    if (raw == null || raw.isEmpty()) throw EMPTY;
    int len = raw.length();
    int pathStart;
    String host;
    char first = raw.charAt(0);
    if (first == '/') {
      pathStart = 0;
      if (authority != null) {
        host = hostOf(authority);
      } else if (hostHeader != null) {
        host = hostOf(hostHeader);
      } else {
        host = null;
      }
    } else if (raw.regionMatches(true, 0, "http://", 0, 7)
        || raw.regionMatches(true, 0, "https://", 0, 8)) {
      int a = raw.charAt(4) == ':' ? 7 : 8;
      int e = a;
      while (e < len) {
        char c = raw.charAt(e);
        if (c == '/' || c == '?' || c == '#') break;
        if (c == '@') throw USERINFO;
        e++;
      }
      host = normaliseHost(raw, a, e);
      if (host == null) throw NO_HOST;
      pathStart = e;
    } else if (first == '*' && len == 1) {
      throw ASTERISK;
    } else {
      throw FORM;
    }
    int q = raw.indexOf('?', pathStart);
    int pathEnd = q < 0 ? len : q;
    String query = null;
    if (q >= 0) {
      boolean ascii = true;
      for (int i = q + 1; i < len; i++) {
        char c = raw.charAt(i);
        if (c < 0x20 || c == 0x7f) throw CONTROL;
        if (c == '#') throw FRAGMENT;
        if (c >= 0x80) ascii = false;
      }
      query = ascii ? raw.substring(q + 1) : encodeNonAscii(raw, q + 1, len);
    }
    String path;
    if (pathStart == pathEnd) {
      path = "/"; // absolute-form without a path: http://host or http://host?q
    } else if (raw.charAt(pathStart) != '/') {
      throw FRAGMENT; // only '#' can end an absolute-form authority here
    } else if (isNormal(raw, pathStart, pathEnd)) {
      path = pathStart == 0 && pathEnd == len ? raw : raw.substring(pathStart, pathEnd);
    } else {
      path = normalisePath(raw, pathStart, pathEnd);
    }
    return new RequestTarget(host, path, query);
  }

  /**
   * Characters that may stand raw in a normalised path: unreserved, sub-delims but {@code ;},
   * {@code :}, {@code @}.
   */
  private static boolean rawAllowed(char c) {
    return c >= 'a' && c <= 'z'
        || c >= 'A' && c <= 'Z'
        || c >= '0' && c <= '9'
        || c == '-'
        || c == '.'
        || c == '_'
        || c == '~'
        || c == '!'
        || c == '$'
        || c == '&'
        || c == '\''
        || c == '('
        || c == ')'
        || c == '*'
        || c == '+'
        || c == ','
        || c == '='
        || c == ':'
        || c == '@';
  }

  private static boolean unreserved(int b) {
    return b >= 'a' && b <= 'z'
        || b >= 'A' && b <= 'Z'
        || b >= '0' && b <= '9'
        || b == '-'
        || b == '.'
        || b == '_'
        || b == '~';
  }

  /** Whether {@code [start, end)} (starting with '/') is already its own normal form. */
  private static boolean isNormal(String s, int start, int end) {
    int segStart = start + 1;
    for (int i = start + 1; i <= end; i++) {
      if (i == end || s.charAt(i) == '/') {
        int n = i - segStart;
        if (n == 0 && i != end) return false; // "//"
        if (n == 1 && s.charAt(segStart) == '.') return false;
        if (n == 2 && s.charAt(segStart) == '.' && s.charAt(segStart + 1) == '.') return false;
        segStart = i + 1;
      } else if (!rawAllowed(s.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  private static String normalisePath(String s, int start, int end) {
    StringBuilder out = new StringBuilder(end - start + 16);
    int[] kept = new int[(end - start) / 2 + 2]; // out offsets of the '/' of each kept segment
    int depth = 0;
    int mark = 0;
    out.append('/');
    boolean params = false;
    boolean endsAsDirectory = false;
    for (int i = start + 1; ; i++) {
      if (i == end || s.charAt(i) == '/') {
        int n = out.length() - mark - 1;
        if (n == 0 || n == 1 && out.charAt(mark + 1) == '.') {
          out.setLength(mark);
          endsAsDirectory = true;
        } else if (n == 2 && out.charAt(mark + 1) == '.' && out.charAt(mark + 2) == '.') {
          if (depth == 0) throw CLIMB;
          out.setLength(kept[--depth]);
          endsAsDirectory = true;
        } else {
          kept[depth++] = mark;
          endsAsDirectory = false;
        }
        if (i == end) break;
        mark = out.length();
        out.append('/');
        params = false;
        continue;
      }
      char c = s.charAt(i);
      if (c == ';') {
        params = true;
      } else if (c == '%') {
        int hi = i + 2 < end ? Character.digit(s.charAt(i + 1), 16) : -1;
        int lo = hi >= 0 ? Character.digit(s.charAt(i + 2), 16) : -1;
        if (lo < 0 || s.charAt(i + 1) > 0x7f || s.charAt(i + 2) > 0x7f) throw ESCAPE;
        int b = hi << 4 | lo;
        if (b == '/' || b == '\\') throw ENCODED_SLASH;
        if (b < 0x20 || b == 0x7f) throw CONTROL;
        if (!params) {
          if (unreserved(b)) {
            out.append((char) b);
          } else {
            out.append('%').append(HEX[hi]).append(HEX[lo]);
          }
        }
        i += 2;
      } else if (c == '\\') {
        throw BACKSLASH;
      } else if (c < 0x20 || c == 0x7f) {
        throw CONTROL;
      } else if (c == '#') {
        throw FRAGMENT;
      } else if (params) {
        if (Character.isSurrogate(c)) i = checkSurrogate(s, i, end);
      } else if (rawAllowed(c)) {
        out.append(c);
      } else if (c <= 0xff) {
        percent(out, c);
      } else {
        int cp = c;
        if (Character.isSurrogate(c)) {
          checkSurrogate(s, i, end);
          cp = Character.toCodePoint(c, s.charAt(++i));
        }
        utf8(out, cp);
      }
    }
    if (out.isEmpty()) {
      out.append('/');
    } else if (endsAsDirectory) {
      out.append('/');
    }
    return out.toString();
  }

  /**
   * {@code s[start, end)} with every non-ASCII character percent-encoded as in paths: U+0080 to
   * U+00FF as the byte it stands for, above as UTF-8. Forwarded raw, the HTTP client would write
   * each such character as UTF-8: a byte {@code C3} the client sent would reach the origin as
   * {@code C3 83}.
   */
  private static String encodeNonAscii(String s, int start, int end) {
    StringBuilder out = new StringBuilder(end - start + 16);
    for (int i = start; i < end; i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        out.append(c);
      } else if (c <= 0xff) {
        percent(out, c);
      } else if (Character.isSurrogate(c)) {
        i = checkSurrogate(s, i, end);
        utf8(out, Character.toCodePoint(c, s.charAt(i)));
      } else {
        utf8(out, c);
      }
    }
    return out.toString();
  }

  /** Refuses a lone surrogate at {@code i}; returns the index of the pair's low half. */
  private static int checkSurrogate(String s, int i, int end) {
    if (!Character.isHighSurrogate(s.charAt(i))
        || i + 1 >= end
        || !Character.isLowSurrogate(s.charAt(i + 1))) {
      throw SURROGATE;
    }
    return i + 1;
  }

  private static void percent(StringBuilder out, int b) {
    out.append('%').append(HEX[b >> 4 & 0xf]).append(HEX[b & 0xf]);
  }

  private static void utf8(StringBuilder out, int cp) {
    if (cp < 0x800) {
      percent(out, 0xc0 | cp >> 6);
    } else if (cp < 0x10000) {
      percent(out, 0xe0 | cp >> 12);
      percent(out, 0x80 | cp >> 6 & 0x3f);
    } else {
      percent(out, 0xf0 | cp >> 18);
      percent(out, 0x80 | cp >> 12 & 0x3f);
      percent(out, 0x80 | cp >> 6 & 0x3f);
    }
    percent(out, 0x80 | cp & 0x3f);
  }

  /** A {@code Host} header (or {@code :authority}) and its normalised host. */
  private record HostMemo(String raw, String host) {}

  /**
   * The last {@code Host} header normalised, shared by all threads (immutable, so a racing read
   * sees an older memo or this one, never a torn one): a site is reached under one or a few host
   * names, so most requests send the same header, and a hit costs a comparison instead of a scan
   * and a copy. Only valid hosts are remembered; a refused one is checked again every time.
   */
  private static HostMemo lastHost = new HostMemo("", null);

  /** {@link #normaliseHost} of the whole of {@code raw}, through {@link #lastHost}. */
  private static String hostOf(String raw) {
    HostMemo memo = lastHost;
    if (memo.raw().equals(raw)) {
      return memo.host();
    }
    String host = normaliseHost(raw, 0, raw.length());
    lastHost = new HostMemo(raw, host);
    return host;
  }

  /**
   * The normalised host of {@code s[start, end)} (a Host header, an :authority or the authority of
   * an absolute-form target), or null if it is empty.
   */
  private static String normaliseHost(String s, int start, int end) {
    while (start < end && (s.charAt(start) == ' ' || s.charAt(start) == '\t')) start++;
    while (end > start && (s.charAt(end - 1) == ' ' || s.charAt(end - 1) == '\t')) end--;
    if (start == end) return null;
    int hostEnd;
    if (s.charAt(start) == '[') {
      int close = s.indexOf(']', start);
      if (close < 0 || close >= end || close == start + 1) throw BAD_HOST;
      for (int i = start + 1; i < close; i++) {
        char c = s.charAt(i);
        if (!(c >= '0' && c <= '9'
            || c >= 'a' && c <= 'f'
            || c >= 'A' && c <= 'F'
            || c == ':'
            || c == '.')) {
          throw BAD_HOST;
        }
      }
      hostEnd = close + 1;
      if (hostEnd < end && s.charAt(hostEnd) != ':') throw BAD_HOST;
    } else {
      hostEnd = start;
      while (hostEnd < end && s.charAt(hostEnd) != ':') {
        char c = s.charAt(hostEnd);
        if (!(c >= 'a' && c <= 'z'
            || c >= 'A' && c <= 'Z'
            || c >= '0' && c <= '9'
            || c == '-'
            || c == '.'
            || c == '_')) {
          throw BAD_HOST;
        }
        hostEnd++;
      }
    }
    if (hostEnd == start) throw BAD_HOST; // ":8080"
    if (hostEnd < end) { // ":" port
      int digits = end - hostEnd - 1;
      if (digits > 5) throw BAD_PORT;
      int port = 0;
      for (int i = hostEnd + 1; i < end; i++) {
        char c = s.charAt(i);
        if (c < '0' || c > '9') throw BAD_PORT;
        port = port * 10 + (c - '0');
      }
      if (port > 65535) throw BAD_PORT;
    }
    int nameEnd = hostEnd;
    if (s.charAt(start) != '[') {
      if (s.charAt(nameEnd - 1) == '.') nameEnd--; // the absolute form of a DNS name: same host
      if (nameEnd == start || s.charAt(start) == '.' || s.charAt(nameEnd - 1) == '.')
        throw BAD_HOST;
      for (int i = start + 1; i < nameEnd; i++) {
        if (s.charAt(i) == '.' && s.charAt(i - 1) == '.') throw BAD_HOST;
      }
    }
    boolean lower = true;
    for (int i = start; i < nameEnd; i++) {
      char c = s.charAt(i);
      if (c >= 'A' && c <= 'Z') {
        lower = false;
        break;
      }
    }
    if (lower) {
      return start == 0 && nameEnd == s.length() ? s : s.substring(start, nameEnd);
    }
    char[] chars = new char[nameEnd - start];
    for (int i = start; i < nameEnd; i++) {
      char c = s.charAt(i);
      chars[i - start] = c >= 'A' && c <= 'Z' ? (char) (c + 32) : c;
    }
    return new String(chars);
  }
}
