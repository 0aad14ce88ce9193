package io.anteroom.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.door.Answer;
import io.anteroom.door.match.RequestTarget;
import io.anteroom.door.match.RequestTargetResult;
import jakarta.servlet.http.HttpServletRequest;
import java.lang.reflect.Proxy;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The filter's view of a servlet request, read without copying headers: the door's facts ({@link
 * ServletFacts}) and the request the application receives ({@link OriginRequest}).
 */
class ServletFactsTest {

  /** A request with these headers (names as sent; lookups case-insensitive, as containers do). */
  private static HttpServletRequest request(String uri, String query, Map<String, List<String>> h) {
    return (HttpServletRequest)
        Proxy.newProxyInstance(
            ServletFactsTest.class.getClassLoader(),
            new Class<?>[] {HttpServletRequest.class},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "getRequestURI" -> uri;
                  case "getQueryString" -> query;
                  case "getRemoteAddr" -> "192.0.2.7";
                  case "getHeaderNames" -> Collections.enumeration(h.keySet());
                  case "getHeaders" -> Collections.enumeration(values(h, (String) args[0]));
                  case "getHeader" -> {
                    List<String> v = values(h, (String) args[0]);
                    yield v.isEmpty() ? null : v.getFirst();
                  }
                  default -> throw new UnsupportedOperationException(method.getName());
                });
  }

  private static List<String> values(Map<String, List<String>> h, String name) {
    return h.entrySet().stream()
        .filter(e -> e.getKey().equalsIgnoreCase(name))
        .flatMap(e -> e.getValue().stream())
        .toList();
  }

  private static ServletFacts facts(String uri, String query, Map<String, List<String>> h) {
    return new ServletFacts(request(uri, query, h), uri);
  }

  @Test
  void theTargetIsTheNormalisedPathQueryAndHost() {
    var target =
        (RequestTarget)
            facts("/a/./b/../shop", "x=1", Map.of("Host", List.of("Shop.Example:80"))).target();
    assertThat(target.path()).isEqualTo("/a/shop");
    assertThat(target.query()).isEqualTo("x=1");
    // the host as the proxy normalises it (RequestTarget.parse)
    assertThat(target.host())
        .isEqualTo(((RequestTarget) RequestTarget.parse("/", "Shop.Example:80", null)).host())
        .isNotNull();
  }

  @Test
  void severalHostHeadersAreRefusedAndNoneLeavesTheHostUnknown() {
    assertThat(facts("/", null, Map.of("Host", List.of("a.example", "b.example"))).target())
        .isInstanceOf(RequestTargetResult.Rejected.class)
        .extracting(r -> ((RequestTargetResult.Rejected) r).reason())
        .isEqualTo("several Host headers");
    assertThat(((RequestTarget) facts("/", null, Map.of()).target()).host()).isNull();
  }

  @Test
  void everyValueOfAHeaderInOrderAndNoneWhenAbsent() {
    var f =
        facts("/", null, Map.of("Cookie", List.of("a=1", "b=2", "c=3"), "Accept", List.of("*/*")));
    assertThat(f.headers("cookie")).containsExactly("a=1", "b=2", "c=3");
    assertThat(f.headers("Accept")).containsExactly("*/*");
    assertThat(f.headers("X-Forwarded-For")).isEmpty();
    assertThat(f.header("COOKIE")).isEqualTo("a=1");
    assertThat(f.peerAddress()).isEqualTo("192.0.2.7");
  }

  @Test
  void theOriginSeesTheDoorsPassInsteadOfTheClientsOwnWhateverItsSpelling() {
    var origin =
        new OriginRequest(
            request(
                "/",
                null,
                Map.of("Anteroom-Pass", List.of("forged"), "Accept", List.of("text/html"))),
            List.of(new Answer.Header("Anteroom-Pass", "signed")));
    assertThat(origin.getHeader("anteroom-pass")).isEqualTo("signed");
    assertThat(origin.getHeader("ANTEROOM-PASS")).isEqualTo("signed");
    assertThat(Collections.list(origin.getHeaders("Anteroom-Pass"))).containsExactly("signed");
    assertThat(origin.getHeader("Accept")).isEqualTo("text/html");
    assertThat(Collections.list(origin.getHeaderNames()))
        .containsExactlyInAnyOrder("Accept", "Anteroom-Pass");
  }
}
