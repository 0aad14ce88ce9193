package io.anteroom.gateway.edge;

import io.anteroom.door.route.RoomRouter;
import io.anteroom.door.route.RuleMatcher;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * Requests built from the pieces that have been used to reach a room's origin unjudged: dot and
 * empty segments, escaped letters and dots, path parameters, encoded and raw slashes and
 * backslashes, bad escapes, control characters, non-ASCII, queries, fragments, absolute-form
 * targets and many spellings of a host. With an oracle written from docs/security.md ("One target,
 * one decision"), independent of {@code RequestTarget}'s code, and the reading of a lenient origin
 * (a servlet container).
 */
final class TrickyTargets {

  private TrickyTargets() {}

  /** What a client sends: the request line's target and version, and its Host headers. */
  record Attempt(String target, String version, List<String> hosts) {

    /** The one Host header, or null (none; several are refused before parsing). */
    String hostHeader() {
      return hosts.isEmpty() ? null : hosts.getFirst();
    }

    /** The request head as {@link io.anteroom.gateway.RawHttp} sends it, tagged. */
    String head(String tagHeader) {
      var lines = new StringBuilder("GET ").append(target).append(' ').append(version).append('\n');
      for (String h : hosts) {
        lines.append("Host: ").append(h).append('\n');
      }
      lines.append(tagHeader).append('\n');
      if (version.equals("HTTP/1.1")) {
        lines.append("Connection: close\n");
      }
      return lines.toString();
    }

    @Override
    public String toString() {
      return "GET "
          + escapeJava(target)
          + " "
          + version
          + hosts.stream().map(h -> " [Host: " + escapeJava(h) + "]").reduce("", String::concat);
    }
  }

  private static String escapeJava(String s) {
    var b = new StringBuilder();
    for (char c : s.toCharArray()) {
      if (c >= 0x20 && c < 0x7f) {
        b.append(c);
      } else {
        b.append(String.format("\\u%04x", (int) c));
      }
    }
    return b.toString();
  }

  /** The UTF-8 bytes of {@code s} as an HTTP/1 decoder hands them over: one char per byte. */
  static String wire(String s) {
    return new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
  }

  /** Segment pieces, most of them spellings the gateway must resolve, a few it must refuse. */
  private static final List<Tuple.Tuple2<Integer, List<String>>> PIECES =
      List.of(
          // the paths of the rooms and of the bypass rules
          Tuple.of(10, List.of("shop", "Shop", "static", "checkout", "sale", "x", "app.js")),
          // dot segments, plain, escaped, and with a parameter
          Tuple.of(6, List.of(".", "..", "%2e", "%2E%2e", ".%2e", "..;", "..;x=1", ".;")),
          // other spellings of the rooms' paths
          Tuple.of(
              4, List.of("%73hop", "%73%68%6F%70", "sh%6Fp", "%53hop", "st%61tic", "%73tatic")),
          // path parameters
          Tuple.of(3, List.of(";jsessionid=x", ";", "shop;v=1", "static;v=1")),
          // accepted, but escaped, kept or encoded
          Tuple.of(
              3,
              List.of(
                  "%252e",
                  "%25",
                  "%3b",
                  "%3F",
                  "%7e",
                  "~",
                  "+",
                  "|",
                  "{}",
                  "a:b",
                  "@",
                  "%c3%a9",
                  "\u00e9",
                  wire("\u65e5\u672c"),
                  wire("\uD83D\uDE00"),
                  "\u00c3")),
          // refused: encoded slashes, backslashes, control characters, bad escapes
          Tuple.of(1, List.of("%2f", "%2F", "%5c", "\\", "%00", "%1f", "%7F", "%", "%zz", "%2")));

  /** Characters an HTTP/1 request line cannot carry (above U+00FF, controls): HTTP/2 paths only. */
  private static final List<String> WIDE_PIECES =
      List.of("\u65e5\u672c", "\uD83D\uDE00", "\uD83D", "\uDE00x", "\t", "\u007f");

  /** Host header value → its normalised host; {@link #REFUSED} or null (names no host). */
  static final Map<String, String> HOSTS = new HashMap<>();

  /** Absolute-form scheme and authority → its normalised host or {@link #REFUSED}. */
  static final Map<String, String> AUTHORITIES = new HashMap<>();

  static final String REFUSED = "\0refused";

  static {
    HOSTS.put("shop.example.com", "shop.example.com");
    HOSTS.put("SHOP.example.com.", "shop.example.com");
    HOSTS.put("shop.example.com:8080", "shop.example.com");
    HOSTS.put("Shop.Example.Com.:80", "shop.example.com");
    HOSTS.put("shop.example.com:", "shop.example.com");
    HOSTS.put("shop.example.com.evil", "shop.example.com.evil");
    HOSTS.put("evil.shop.example.com", "evil.shop.example.com");
    HOSTS.put("other.example", "other.example");
    HOSTS.put("127.0.0.1", "127.0.0.1");
    HOSTS.put("[::1]:8080", "[::1]");
    HOSTS.put("", null);
    HOSTS.put("shop.example.com..", REFUSED);
    HOSTS.put("shop.example.com:99999", REFUSED);
    HOSTS.put("shop.example.com:80:80", REFUSED);
    HOSTS.put("user@shop.example.com", REFUSED);
    HOSTS.put("sh%6Fp.example.com", REFUSED);
    HOSTS.put(":80", REFUSED);
    HOSTS.put(".", REFUSED);

    AUTHORITIES.put("http://Shop.Example.com.:80", "shop.example.com");
    AUTHORITIES.put("http://shop.example.com", "shop.example.com");
    AUTHORITIES.put("HTTP://SHOP.EXAMPLE.COM", "shop.example.com");
    AUTHORITIES.put("https://shop.example.com:8443", "shop.example.com");
    AUTHORITIES.put("http://other.example", "other.example");
    AUTHORITIES.put("http://", REFUSED);
    AUTHORITIES.put("http://user@shop.example.com", REFUSED);
    AUTHORITIES.put("http://shop.example.com:x", REFUSED);
    AUTHORITIES.put("ftp://shop.example.com", REFUSED);
  }

  /**
   * Requests; {@code wide} adds characters above U+00FF and raw control characters, which only an
   * HTTP/2 {@code :path} (or a unit test) can carry.
   */
  static Arbitrary<Attempt> attempts(boolean wide) {
    var groups = new ArrayList<Tuple.Tuple2<Integer, Arbitrary<String>>>();
    for (var group : PIECES) {
      groups.add(Tuple.of(group.get1(), Arbitraries.of(group.get2())));
    }
    if (wide) {
      groups.add(Tuple.of(1, Arbitraries.of(WIDE_PIECES)));
    }
    @SuppressWarnings({"unchecked", "rawtypes"})
    Arbitrary<String> piece = Arbitraries.frequencyOf(groups.toArray(new Tuple.Tuple2[0]));
    Arbitrary<String> segment =
        Arbitraries.frequencyOf(
            Tuple.of(1, Arbitraries.just("")),
            Tuple.of(10, piece),
            Tuple.of(3, piece.list().ofMinSize(2).ofMaxSize(3).map(TrickyTargets::join)));
    Arbitrary<String> tricks =
        Combinators.combine(segment.list().ofMaxSize(5), Arbitraries.of(true, false))
            .as((segments, slash) -> "/" + String.join("/", segments) + (slash ? "/" : ""));
    // often a room's or a bypass rule's path first, to climb out of or to stay in
    Arbitrary<String> path =
        Arbitraries.frequencyOf(
            Tuple.of(3, tricks),
            Tuple.of(
                2,
                Combinators.combine(
                        Arbitraries.of("/shop", "/static", "/sale", "/sale/static"), tricks)
                    .as(String::concat)));
    Arbitrary<String> prefix =
        Arbitraries.frequencyOf(
            Tuple.of(12, Arbitraries.just("")),
            Tuple.of(4, Arbitraries.of(AUTHORITIES.keySet().stream().sorted().toList())));
    var queries =
        new ArrayList<>(
            List.of(
                "?q",
                "?",
                "?a=%2e%2e/..&b=/shop/",
                "?x=;y",
                "?p=%2F",
                "#frag",
                "?q#f",
                "?e=" + wire("\u00e9"),
                "?e=\u00e9&f=" + wire("\u65e5")));
    if (wide) {
      queries.addAll(List.of("?w=\u65e5\uD83D\uDE00", "?s=\uD83D", "?c=\t"));
    }
    Arbitrary<String> suffix =
        Arbitraries.frequencyOf(
            Tuple.of(10, Arbitraries.just("")), Tuple.of(6, Arbitraries.of(queries)));
    Arbitrary<String> target =
        Arbitraries.frequencyOf(
            Tuple.of(
                30,
                Combinators.combine(prefix, path, suffix)
                    .as((p, s, q) -> p + (!p.isEmpty() && s.equals("/") ? "" : s) + q)),
            Tuple.of(
                1,
                Arbitraries.of(
                    wide
                        ? List.of("*", "shop/x", "?q", "/shop/x y")
                        : List.of("*", "shop/x", "?q"))));
    Arbitrary<String> host =
        Arbitraries.frequencyOf(
            Tuple.of(
                6,
                Arbitraries.of(
                    HOSTS.entrySet().stream()
                        .filter(e -> "shop.example.com".equals(e.getValue()))
                        .map(Map.Entry::getKey)
                        .sorted()
                        .toList())),
            Tuple.of(
                3,
                Arbitraries.of(
                    HOSTS.keySet().stream()
                        .filter(k -> !"shop.example.com".equals(HOSTS.get(k)))
                        .sorted()
                        .toList())));
    Arbitrary<List<String>> hosts =
        Arbitraries.frequencyOf(
            Tuple.of(20, host.map(List::of)),
            Tuple.of(1, Arbitraries.just(List.<String>of())),
            Tuple.of(1, host.list().ofSize(2)));
    // HTTP/1.0 comes with its Host header or without (the version that may omit it)
    Arbitrary<String> version =
        Arbitraries.frequencyOf(
            Tuple.of(16, Arbitraries.just("HTTP/1.1")),
            Tuple.of(2, Arbitraries.just("HTTP/1.0")),
            Tuple.of(2, Arbitraries.just("HTTP/1.0 without Host")));
    return Combinators.combine(target, version, hosts)
        .as(
            (t, v, h) ->
                v.endsWith("without Host")
                    ? new Attempt(t, "HTTP/1.0", List.of())
                    : new Attempt(t, v, h));
  }

  private static String join(List<String> pieces) {
    return String.join("", pieces);
  }

  // ---- the oracle ----

  /** What the documented rules make of an attempt: refused, or host, path and query. */
  record Expected(boolean refused, String host, String path, String query) {
    static final Expected REFUSAL = new Expected(true, null, null, null);

    String pathAndQuery() {
      return query == null ? path : path + "?" + query;
    }
  }

  /**
   * The documented normalisation of {@code a}, computed independently of {@code RequestTarget}:
   * tables for hosts, and for paths: refuse ambiguous spellings, strip parameters, decode
   * unreserved escapes, encode what may not stand raw, drop empty segments, then resolve dot
   * segments.
   */
  static Expected expect(Attempt a) {
    if (a.hosts().size() > 1) {
      return Expected.REFUSAL; // several Host headers (RFC 9112 §3.2)
    }
    String t = a.target();
    if (t.contains("#")) {
      return Expected.REFUSAL;
    }
    String host;
    String rest;
    String authority =
        AUTHORITIES.keySet().stream()
            .filter(
                k ->
                    t.startsWith(k)
                        && (t.length() == k.length() || "/?".indexOf(t.charAt(k.length())) >= 0))
            .max(java.util.Comparator.comparingInt(String::length))
            .orElse(null);
    if (authority != null) {
      host = AUTHORITIES.get(authority);
      rest = t.substring(authority.length());
      if (rest.isEmpty() || rest.startsWith("?")) {
        rest = "/" + rest;
      }
    } else if (t.startsWith("/")) {
      host = a.hostHeader() == null ? null : HOSTS.get(a.hostHeader());
      rest = t;
    } else {
      return Expected.REFUSAL;
    }
    if (REFUSED.equals(host)) {
      return Expected.REFUSAL;
    }
    int q = rest.indexOf('?');
    String rawPath = q < 0 ? rest : rest.substring(0, q);
    String query = q < 0 ? null : rest.substring(q + 1);
    if (query != null) {
      // the query is kept, but for non-ASCII characters: percent-encoded, as in paths
      if (query.chars().anyMatch(c -> c < 0x20 || c == 0x7f) || hasLoneSurrogate(query)) {
        return Expected.REFUSAL;
      }
      var encoded = new StringBuilder();
      query.codePoints().forEach(cp -> encode(encoded, cp));
      query = encoded.toString();
    }
    String path = normalisePath(rawPath);
    return path == null ? Expected.REFUSAL : new Expected(false, host, path, query);
  }

  private static final String UNRESERVED =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~";
  private static final String RAW_ALLOWED = UNRESERVED + "!$&'()*+,=:@";

  /** The normal form of a path, or null when it is refused. */
  private static String normalisePath(String p) {
    // 1. refusals: anything that servers read differently
    if (p.indexOf('\\') >= 0) return null;
    for (int i = 0; i < p.length(); i++) {
      char c = p.charAt(i);
      if (c < 0x20 || c == 0x7f) return null;
      if (Character.isHighSurrogate(c)) {
        if (i + 1 >= p.length() || !Character.isLowSurrogate(p.charAt(i + 1))) return null;
        i++;
      } else if (Character.isLowSurrogate(c)) {
        return null;
      }
      if (c == '%') {
        if (i + 2 >= p.length()) return null;
        String hex = p.substring(i + 1, i + 3);
        if (!hex.matches("[0-9A-Fa-f]{2}")) return null;
        int b = Integer.parseInt(hex, 16);
        if (b == '/' || b == '\\' || b < 0x20 || b == 0x7f) return null;
      }
    }
    // 2. path parameters: from a raw ';' to the end of the segment
    p = p.replaceAll(";[^/]*", "");
    // 3. escapes and raw characters
    var b = new StringBuilder();
    for (int i = 0; i < p.length(); ) {
      char c = p.charAt(i);
      if (c == '%') {
        int v = Integer.parseInt(p.substring(i + 1, i + 3), 16);
        if (UNRESERVED.indexOf(v) >= 0) {
          b.append((char) v);
        } else {
          b.append('%').append(p.substring(i + 1, i + 3).toUpperCase(Locale.ROOT));
        }
        i += 3;
        continue;
      }
      int cp = p.codePointAt(i);
      if (cp == '/' || cp < 0x80 && RAW_ALLOWED.indexOf(cp) >= 0) {
        b.append((char) cp);
      } else if (cp < 0x80) {
        b.append(String.format("%%%02X", cp));
      } else {
        encode(b, cp);
      }
      i += Character.charCount(cp);
    }
    // 4. empty segments, then dot segments
    return resolve(b.toString());
  }

  /**
   * Appends {@code cp}, percent-encoded unless ASCII: U+0080 to U+00FF as the byte of an HTTP/1
   * request line it stands for, above as UTF-8.
   */
  private static void encode(StringBuilder b, int cp) {
    if (cp < 0x80) {
      b.append((char) cp);
      return;
    }
    byte[] bytes =
        cp <= 0xff
            ? new byte[] {(byte) cp}
            : new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8);
    for (byte x : bytes) {
      b.append(String.format("%%%02X", x & 0xff));
    }
  }

  private static boolean hasLoneSurrogate(String s) {
    return s.codePoints().anyMatch(cp -> cp >= 0xd800 && cp <= 0xdfff);
  }

  /**
   * Drops empty and {@code .} segments and resolves {@code ..}; a trailing slash, {@code .} or
   * {@code ..} leaves a trailing slash. Null when {@code ..} climbs above the root.
   */
  static String resolve(String p) {
    var kept = new ArrayDeque<String>();
    String[] segments = p.substring(1).split("/", -1);
    boolean directory = false;
    for (String s : segments) {
      directory = s.isEmpty() || s.equals(".") || s.equals("..");
      if (s.equals("..")) {
        if (kept.isEmpty()) return null;
        kept.removeLast();
      } else if (!directory) {
        kept.addLast(s);
      }
    }
    return "/" + String.join("/", kept) + (directory && !kept.isEmpty() ? "/" : "");
  }

  // ---- a lenient origin's reading ----

  /**
   * The host and path a lenient origin (a servlet container: parameters stripped, every escape
   * decoded, slashes merged, dots resolved) serves for an accepted attempt.
   */
  static String[] lenientHostAndPath(Attempt a) {
    String t = a.target();
    String host = a.hostHeader();
    String lower = t.toLowerCase(Locale.ROOT);
    if (lower.startsWith("http://") || lower.startsWith("https://")) {
      int start = t.indexOf("//") + 2;
      int end = start;
      while (end < t.length() && "/?".indexOf(t.charAt(end)) < 0) end++;
      host = t.substring(start, end);
      t = t.substring(end);
    }
    int q = t.indexOf('?');
    String p = q < 0 ? t : t.substring(0, q);
    p = p.isEmpty() ? "/" : p;
    p = p.replaceAll(";[^/]*", "");
    if (p.chars().allMatch(c -> c <= 0xff)) { // bytes of a request line: read as UTF-8
      p = new String(p.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
    }
    p = URLDecoder.decode(p.replace("+", "%2B"), StandardCharsets.UTF_8);
    String path = resolve(p);
    if (host != null) {
      host = host.strip().toLowerCase(Locale.ROOT);
      int colon = host.lastIndexOf(':');
      if (colon >= 0 && !host.endsWith("]")) host = host.substring(0, colon);
      if (host.endsWith(".")) host = host.substring(0, host.length() - 1);
      if (host.isEmpty()) host = null;
    }
    return new String[] {host, path};
  }

  // ---- the decision ----

  /**
   * The rooms of both properties: a room on /shop/ of one host, the rest of that host in a second
   * room but its static files, and a room on /sale/ of every host; everyone queued.
   */
  static final String ROOMS =
      """
      rooms:
        - { id: shop, host: shop.example.com, path: /shop/, queueAll: true,
            bypass: [ { path: /static/** } ] }
        - { id: site, host: shop.example.com, path: /, queueAll: true,
            bypass: [ { path: /static/** } ] }
        - { id: sale, host: "*", path: /sale/, queueAll: true,
            bypass: [ { path: /sale/static/** } ] }
      """;

  /**
   * What the gateway does with a request of this normalised (or leniently read) host and path, as
   * {@code Gatekeeper} decides it: 400 without a host when rooms are host-scoped, forward when no
   * room or a bypass rule matches, queue otherwise (every room is {@code queueAll}).
   */
  static <R> String decide(
      RoomRouter<R> router,
      java.util.function.Function<R, String> id,
      java.util.function.Function<R, RuleMatcher> bypass,
      String host,
      String path) {
    if (host == null && router.hostScoped()) {
      return "400 (no host)";
    }
    R room = router.route(host, path);
    if (room == null) {
      return "forward (no room)";
    }
    RuleMatcher.Request facts =
        new RuleMatcher.Request() {
          @Override
          public String path() {
            return path;
          }

          @Override
          public String method() {
            return "GET";
          }

          @Override
          public String query() {
            return null;
          }

          @Override
          public java.util.List<String> headers(String name) {
            return java.util.List.of();
          }

          @Override
          public long nowMillis() {
            return 0;
          }

          @Override
          public String cookie(String name) {
            return null;
          }

          @Override
          public String clientIp() {
            return "127.0.0.1";
          }
        };
    return bypass.apply(room).bypasses(facts)
        ? "forward (" + id.apply(room) + " bypass)"
        : "queue (" + id.apply(room) + ")";
  }
}
