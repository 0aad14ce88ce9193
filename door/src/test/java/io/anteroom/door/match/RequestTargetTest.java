package io.anteroom.door.match;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.door.match.RequestTargetResult.Rejected;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every spelling of a path or host that used to skip a room normalises to the one the room is
 * configured with, or is refused.
 */
class RequestTargetTest {

  private static RequestTarget ok(String raw, String host) {
    RequestTargetResult r = RequestTarget.parse(raw, host, null);
    assertThat(r).as(raw).isInstanceOf(RequestTarget.class);
    return (RequestTarget) r;
  }

  private static String path(String raw) {
    return ok(raw, "shop.example.com").path();
  }

  private static String rejected(String raw, String host) {
    RequestTargetResult r = RequestTarget.parse(raw, host, null);
    assertThat(r).as(raw + " with Host " + host).isInstanceOf(Rejected.class);
    return ((Rejected) r).reason();
  }

  // ---- the tricks of the issue ----

  @ParameterizedTest
  @ValueSource(
      strings = {
        "/static/../checkout",
        "/static/%2e%2e/checkout",
        "/static/%2E%2e/checkout",
        "/static/..;/checkout",
        "/static/.%2e/checkout",
        "/static/./../checkout",
        "/static/a/../../checkout"
      })
  void dotSegmentsOutOfABypassedPrefixLeaveItAndAreNoLongerBypassed(String raw) {
    assertThat(Glob.path("/static/**").matches(raw))
        .as("the raw target, as matched today, is bypassed")
        .isTrue();
    assertThat(path(raw)).isEqualTo("/checkout");
    assertThat(Glob.path("/static/**").matches(path(raw))).isFalse();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "//shop/",
        "/./shop/",
        "/%73hop/",
        "/%73%68%6F%70/",
        "/shop;x/",
        "///shop//",
        "/a/../shop/"
      })
  void spellingsOfARoomsPathReachTheRoom(String raw) {
    assertThat(raw)
        .as("today's prefix match on the raw path skips the room")
        .doesNotStartWith("/shop/");
    assertThat(path(raw)).isEqualTo("/shop/");
  }

  @Test
  void aTrailingDotInTheHostIsTheSameHost() {
    assertThat(ok("/shop/", "shop.example.com.").host()).isEqualTo("shop.example.com");
    assertThat(ok("/shop/", "shop.example.com.:8443").host()).isEqualTo("shop.example.com");
    assertThat(rejected("/shop/", "shop.example.com..")).contains("malformed host");
  }

  @Test
  void theHostIsLowerCasedAndItsPortRemoved() {
    assertThat(ok("/", "Shop.Example.COM:443").host()).isEqualTo("shop.example.com");
    assertThat(ok("/", "shop.example.com:").host()).isEqualTo("shop.example.com");
    assertThat(ok("/", " shop.example.com ").host()).isEqualTo("shop.example.com");
    assertThat(ok("/", "10.0.0.1:80").host()).isEqualTo("10.0.0.1");
    assertThat(ok("/", "[::1]:8080").host()).isEqualTo("[::1]");
    assertThat(ok("/", "[2001:DB8::1]").host()).isEqualTo("[2001:db8::1]");
  }

  @Test
  void aHostSentAgainIsJudgedAsTheFirstTime() {
    // the last host is remembered (most requests of a site send the same one): a repeat, a
    // refused host between two good ones and hosts that only start alike are each judged in full
    for (int round = 0; round < 2; round++) {
      assertThat(ok("/", "Shop.Example.COM:443").host()).isEqualTo("shop.example.com");
      assertThat(ok("/", "Shop.Example.COM:443").host()).isEqualTo("shop.example.com");
      assertThat(rejected("/", "Shop.Example.COM:99999")).contains("malformed port");
      assertThat(rejected("/", "Shop.Example.COM:99999")).contains("malformed port");
      assertThat(ok("/", "Shop.Example.COM:4430").host()).isEqualTo("shop.example.com");
      assertThat(ok("/", "Shop.Example.CO").host()).isEqualTo("shop.example.co");
      assertThat(ok("/", "").host()).isNull();
      assertThat(ok("/", "").host()).isNull();
      assertThat(rejected("/", "shop example")).contains("malformed host");
      assertThat(RequestTarget.parse("/", "a.example", "B.example"))
          .isInstanceOf(RequestTarget.class);
      assertThat(ok("/", "a.example").host()).isEqualTo("a.example");
      assertThat(((RequestTarget) RequestTarget.parse("/", "a.example", "B.example")).host())
          .as(":authority wins, remembered or not")
          .isEqualTo("b.example");
    }
  }

  @Test
  void anAbsoluteFormAuthorityWinsOverTheHostHeader() {
    RequestTarget t = ok("http://Shop.Example.com./shop/cart?x=1", "other.example");

    assertThat(t.host()).isEqualTo("shop.example.com");
    assertThat(t.path()).isEqualTo("/shop/cart");
    assertThat(t.query()).isEqualTo("x=1");
    assertThat(ok("HTTPS://shop.example.com:8443", null))
        .isEqualTo(new RequestTarget("shop.example.com", "/", null));
    assertThat(ok("http://shop.example.com?q", null))
        .isEqualTo(new RequestTarget("shop.example.com", "/", "q"));
    assertThat(ok("http://shop.example.com/a/b/%2e%2e/../", null).path()).isEqualTo("/");
  }

  @Test
  void theHttp2AuthorityWinsOverTheHostHeader() {
    RequestTargetResult r = RequestTarget.parse("/shop/", "other.example", "Shop.Example.com:443");

    assertThat(((RequestTarget) r).host()).isEqualTo("shop.example.com");
  }

  @Test
  void withoutAnyHostTheHostIsUnknownNotEmpty() {
    assertThat(ok("/shop/", null).host()).isNull(); // HTTP/1.0 without Host
    assertThat(ok("/shop/", "").host()).isNull();
    assertThat(ok("/shop/", "  ").host()).isNull();
  }

  // ---- refusals ----

  @ParameterizedTest
  @ValueSource(
      strings = {
        "/static/%2Fcheckout",
        "/static/%2fcheckout",
        "/static%2F..%2Fcheckout",
        "/static/%5Ccheckout",
        "/static/%5c..%5ccheckout"
      })
  void anEncodedSlashOrBackslashIsRefused(String raw) {
    assertThat(rejected(raw, "h")).contains("encoded / or \\");
  }

  @ParameterizedTest
  @ValueSource(strings = {"/static\\..\\checkout", "/\\shop/", "/a;b\\c/"})
  void aBackslashIsRefused(String raw) {
    assertThat(rejected(raw, "h")).contains("backslash");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "/..",
        "/../shop/",
        "/a/../..",
        "/%2e%2e/x",
        "/..;/x",
        "/./../x",
        "/static//../../checkout"
      }) // empty segments go first: not RFC 3986's "/checkout"
  void dotDotAboveTheRootIsRefused(String raw) {
    assertThat(rejected(raw, "h")).contains("climbs above the root");
  }

  @ParameterizedTest
  @ValueSource(strings = {"/a%zz", "/a%2", "/a%", "/a%g0", "/a%\u0661\u0662", "/a;%zz/b"})
  void anInvalidEscapeIsRefused(String raw) {
    assertThat(rejected(raw, "h")).contains("invalid percent-escape");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "/a\u0000b",
        "/a%00b",
        "/a%0d%0aSet-Cookie:x",
        "/a\u007f",
        "/a%7F",
        "/a?b\u0001",
        "/a\tb"
      })
  void controlCharactersRawOrEncodedAreRefused(String raw) {
    assertThat(rejected(raw, "h")).contains("control character");
  }

  @ParameterizedTest
  @ValueSource(strings = {"/a#b", "/a?x#b", "http://h#x", "/a;x#/b"})
  void aFragmentIsRefused(String raw) {
    assertThat(rejected(raw, "h")).contains("fragment");
  }

  @Test
  void otherFormsAndMalformedAuthoritiesAreRefused() {
    assertThat(rejected("", "h")).contains("empty");
    assertThat(rejected(null, "h")).contains("empty");
    assertThat(rejected("*", "h")).contains("asterisk-form");
    assertThat(rejected("shop/", "h")).contains("must be a path starting with /");
    assertThat(rejected("ftp://h/x", "h")).contains("must be a path starting with /");
    assertThat(rejected("shop.example.com:443", "h"))
        .contains("must be a path starting with /"); // authority-form
    assertThat(rejected("http:///shop/", "h")).contains("without a host");
    assertThat(rejected("http://user:pw@shop.example.com/", "h")).contains("user information");
    assertThat(rejected("http://[::1/", "h")).contains("malformed host");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "shop example.com",
        "shop..example.com",
        ".example.com",
        "shop.example.com/x",
        "sh%6Fp.com",
        "user@shop.example.com",
        "::1",
        "[::1",
        "[]",
        "[::1]x",
        "[fe80::1%25eth0]",
        "shöp.com",
        ":8080",
        "."
      })
  void aMalformedHostIsRefused(String host) {
    assertThat(rejected("/", host)).contains("malformed host");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "shop.example.com:99999",
        "shop.example.com:8o",
        "shop.example.com:000443",
        "shop.example.com:-1"
      })
  void aMalformedPortIsRefused(String host) {
    assertThat(rejected("/", host)).contains("malformed port");
  }

  @Test
  void refusalsAreSharedAndAllocateNothing() {
    assertThat(RequestTarget.parse("/..", "h", null))
        .isSameAs(RequestTarget.parse("/a/../..", "h", null));
  }

  // ---- what is kept, and how ----

  @ParameterizedTest
  @CsvSource({
    "/a/b/..,        /a/",
    "/a/.,           /a/",
    "/a/b/../,       /a/",
    "/a/..,          /",
    "/,              /",
    "/.,             /",
    "/a;jsessionid=1/b, /a/b",
    "/;x/a,          /a",
    "/a/;x,          /a/",
  })
  void dotSegmentsEmptySegmentsAndParametersGo(String raw, String expected) {
    assertThat(path(raw)).isEqualTo(expected);
  }

  @Test
  void aSegmentOfThreeDotsIsAName() {
    assertThat(path("/a/.../b")).isEqualTo("/a/.../b");
    assertThat(path("/a/.%2e./b")).isEqualTo("/a/.../b");
  }

  @Test
  void escapesOfReservedCharactersStayWithUpperCaseHex() {
    assertThat(path("/caf%c3%a9")).isEqualTo("/caf%C3%A9");
    assertThat(path("/a%3bb")).isEqualTo("/a%3Bb"); // an encoded ';' is not a parameter
    assertThat(path("/a%3fb")).isEqualTo("/a%3Fb");
    assertThat(path("/100%25")).isEqualTo("/100%25");
    assertThat(path("/%252e%252e/x"))
        .isEqualTo("/%252e%252e/x"); // double encoding is decoded once by the origin, never here
    assertThat(path("/%7e%41%2d")).isEqualTo("/~A-");
  }

  @Test
  void nonAsciiAndCharactersNotAllowedInAPathArePercentEncoded() {
    assertThat(path("/é")).isEqualTo("/%E9"); // U+00E9: the byte of an ISO-8859-1 request line
    assertThat(path("/\u00c3\u00a9")).isEqualTo("/%C3%A9"); // what Netty hands over for UTF-8 "é"
    assertThat(path("/日本")).isEqualTo("/%E6%97%A5%E6%9C%AC");
    assertThat(path("/\uD83D\uDE00")).isEqualTo("/%F0%9F%98%80");
    assertThat(path("/a|b{c}\"<>^`[]")).isEqualTo("/a%7Cb%7Bc%7D%22%3C%3E%5E%60%5B%5D");
    assertThat(path("/a!$&'()*+,=:@b")).isEqualTo("/a!$&'()*+,=:@b");
    assertThat(rejected("/a\uD83D", "h")).contains("lone surrogate");
    assertThat(rejected("/a\uDE00b", "h")).contains("lone surrogate");
  }

  @Test
  void theQueryIsKeptUntouched() {
    RequestTarget t = ok("/a/../b?x=%2e%2e/..&y=%2F;z=%c3%a9", "h");

    assertThat(t.path()).isEqualTo("/b");
    assertThat(t.query()).isEqualTo("x=%2e%2e/..&y=%2F;z=%c3%a9");
    assertThat(t.pathAndQuery()).isEqualTo("/b?x=%2e%2e/..&y=%2F;z=%c3%a9");
    assertThat(ok("/b?", "h").query()).isEmpty();
    assertThat(ok("/b?", "h").pathAndQuery()).isEqualTo("/b?");
    assertThat(ok("/b", "h").query()).isNull();
  }

  /**
   * Regression (found by RequestTargetEndToEndPropertyTest): a raw non-ASCII byte in the query was
   * forwarded as a char that the HTTP client re-encoded as UTF-8, so {@code ?e=é} sent as UTF-8
   * ({@code C3 A9}) reached the origin as {@code C3 83 C2 A9}. Percent-encoded, the origin gets the
   * client's bytes.
   */
  @Test
  void nonAsciiInTheQueryIsPercentEncodedAsTheBytesTheClientSent() {
    assertThat(ok("/b?e=\u00c3\u00a9&f=1", "h").query()).isEqualTo("e=%C3%A9&f=1");
    assertThat(ok("/b?e=\u00e9", "h").query()).isEqualTo("e=%E9");
    assertThat(ok("/b?e=\u65e5\uD83D\uDE00", "h").query()).isEqualTo("e=%E6%97%A5%F0%9F%98%80");
    assertThat(rejected("/b?e=\uD83D", "h")).contains("lone surrogate");
    assertThat(ok("/b?e=%C3%A9", "h").query()).isEqualTo("e=%C3%A9");
  }

  @Test
  void anAlreadyNormalTargetIsReturnedWithoutCopying() {
    String raw = "/shop/cart/item-1.html";
    String host = "shop.example.com";
    RequestTarget t = ok(raw, host);

    assertThat(t.path()).isSameAs(raw);
    assertThat(t.host()).isSameAs(host);
  }

  // ---- the fuzzer ----

  private static final List<String> PIECES =
      List.of(
          "/", "//", ".", "..", "%2e", "%2E%2e", ";x", "%73", "%2f", "\\", "%5c", "日本", "€", "?q",
          "#", "a", "b", "%41", "%c3%a9", "~", "%7e", "%252e", ":", "@", "|");

  @Provide
  Arbitrary<String> targets() {
    return Arbitraries.of(PIECES)
        .list()
        .ofMinSize(0)
        .ofMaxSize(12)
        .map(l -> "/" + String.join("", l));
  }

  @Property(tries = 5000)
  void normalisedPathsAreCanonicalAndAgreeWithUriResolution(@ForAll("targets") String raw) {
    RequestTargetResult r = RequestTarget.parse(raw, "shop.example.com", null);
    Reference expected = reference(raw);

    if (expected.refused) {
      assertThat(r).as(raw).isInstanceOf(Rejected.class);
      return;
    }
    assertThat(r).as(raw).isInstanceOf(RequestTarget.class);
    String path = ((RequestTarget) r).path();
    assertThat(path).as(raw).isEqualTo(expected.path);
    assertThat(path).startsWith("/").doesNotContain("//").doesNotContain(";").doesNotContain("\\");
    for (String segment : path.split("/")) {
      assertThat(segment).as(raw).isNotIn(".", "..");
    }
    Matcher escape = Pattern.compile("%(..)").matcher(path);
    while (escape.find()) {
      assertThat(escape.group(1)).as(raw).matches("[0-9A-F]{2}");
      assertThat(unreserved(Integer.parseInt(escape.group(1), 16))).as(raw).isFalse();
    }
    RequestTargetResult again = RequestTarget.parse(path, "shop.example.com", null);
    assertThat(again).as("idempotent: " + raw).isInstanceOf(RequestTarget.class);
    assertThat(((RequestTarget) again).path()).isEqualTo(path);
  }

  @Provide
  Arbitrary<String> hosts() {
    return Arbitraries.of(
            "Shop", "example", ".", "..", "com", ":", "443", "99999", "[::1]", "[", "%41", " ", "_",
            "-", "é", "@")
        .list()
        .ofMinSize(1)
        .ofMaxSize(6)
        .map(l -> String.join("", l));
  }

  @Property(tries = 3000)
  void normalisedHostsAreLowerCaseWithoutPortOrTrailingDotAndStable(@ForAll("hosts") String host) {
    RequestTargetResult r = RequestTarget.parse("/", host, null);
    if (!(r instanceof RequestTarget t) || t.host() == null) return;

    String h = t.host();
    assertThat(h)
        .as(host)
        .isEqualTo(h.toLowerCase(java.util.Locale.ROOT))
        .doesNotEndWith(".")
        .doesNotContain(" ");
    if (!h.startsWith("[")) {
      assertThat(h).as(host).matches("[a-z0-9_-]+(\\.[a-z0-9_-]+)*");
    }
    RequestTargetResult again = RequestTarget.parse("/", h, null);
    assertThat(again).isInstanceOf(RequestTarget.class);
    assertThat(((RequestTarget) again).host()).as(host).isEqualTo(h);
    assertThat(RequestTarget.parse("http://" + h + "/", "other", null))
        .as(host)
        .isEqualTo(new RequestTarget(h, "/", null));
  }

  private record Reference(boolean refused, String path) {}

  /**
   * An independent resolver: strip parameters, decode unreserved escapes, encode non-ASCII as UTF-8
   * (regular expressions and {@link URLEncoder}), collapse slashes, then let {@link
   * URI#normalize()} remove dot segments. It keeps a leading {@code ..}: that is a climb.
   */
  private static Reference reference(String raw) {
    if (raw.contains("#")) return new Reference(true, null);
    int q = raw.indexOf('?');
    String p = q < 0 ? raw : raw.substring(0, q);
    String lower = p.toLowerCase(java.util.Locale.ROOT);
    if (p.contains("\\") || lower.contains("%2f") || lower.contains("%5c"))
      return new Reference(true, null);
    p = p.replaceAll(";[^/]*", "");
    p =
        Pattern.compile("%([0-9A-Fa-f]{2})")
            .matcher(p)
            .replaceAll(
                m -> {
                  int b = Integer.parseInt(m.group(1), 16);
                  return Matcher.quoteReplacement(
                      unreserved(b)
                          ? String.valueOf((char) b)
                          : "%" + m.group(1).toUpperCase(java.util.Locale.ROOT));
                });
    StringBuilder encoded = new StringBuilder();
    p.codePoints()
        .forEach(
            cp -> {
              if (cp < 0x80) {
                encoded.appendCodePoint(cp);
              } else {
                encoded.append(
                    URLEncoder.encode(new String(Character.toChars(cp)), StandardCharsets.UTF_8));
              }
            });
    p = encoded.toString().replace("|", "%7C").replaceAll("/{2,}", "/");
    String normal = URI.create("http://h" + p).normalize().getRawPath();
    if (normal.equals("/..") || normal.startsWith("/../")) return new Reference(true, null);
    return new Reference(false, normal.isEmpty() ? "/" : normal);
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
}
