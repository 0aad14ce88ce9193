package io.anteroom.gateway.edge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.anteroom.door.config.GatewayConfig.Route;
import io.anteroom.door.config.GatewayConfig.Rule;
import io.anteroom.door.config.GatewayConfig.RuleAction;
import io.anteroom.door.config.GatewayConfig.ValueMatch;
import io.anteroom.door.match.Cidr;
import io.anteroom.door.route.RoomRouter;
import io.anteroom.door.route.RuleMatcher;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RoutingTest {

  record R(String id, List<Route> routes) {}

  private final RoomRouter<R> router =
      RoomRouter.of(
          List.of(
              new R("site", List.of(new Route("*", "/"))),
              new R("sale", List.of(new Route("*", "/sale/"), new Route("m.example", "/"))),
              new R("vip", List.of(new Route("shop.example", "/sale/vip/")))),
          R::routes);

  @Test
  void theLongestPathPrefixWins() {
    assertThat(router.route("any", "/sale/item").id()).isEqualTo("sale");
    assertThat(router.route("any", "/about").id()).isEqualTo("site");
  }

  @Test
  void anExactHostWinsOverAnyHost() {
    // the router gets RequestTarget's normalised host (lower case, no port, no trailing dot)
    assertThat(router.route("shop.example", "/sale/vip/1").id()).isEqualTo("vip");
    assertThat(router.route("other.example", "/sale/vip/1").id()).isEqualTo("sale");
    assertThat(router.route("m.example", "/about").id()).isEqualTo("sale");
  }

  @Test
  void noMatchingRouteMeansNoRoom() {
    var only = RoomRouter.of(List.of(new R("a", List.of(new Route("a.example", "/")))), R::routes);
    assertThat(only.route("b.example", "/")).isNull();
    assertThat(only.route(null, "/")).isNull();
    assertThat(only.hostScoped()).isTrue();
    assertThat(router.route(null, "/sale/vip/1").id())
        .as("no host: only * routes")
        .isEqualTo("sale");
  }

  @Test
  void configuredHostsAreComparedInTheirNormalForm() {
    var r = RoomRouter.of(List.of(new R("a", List.of(new Route("Shop.Example.", "/")))), R::routes);
    assertThat(r.route("shop.example", "/x").id()).isEqualTo("a");
  }

  record Req(String path, Map<String, String> headers, Map<String, String> cookies, String clientIp)
      implements RuleMatcher.Request {
    public String method() {
      return "GET";
    }

    public String query() {
      return null;
    }

    public List<String> headers(String name) {
      String v = headers.get(name);
      return v == null ? List.of() : List.of(v);
    }

    public long nowMillis() {
      return 0;
    }

    public String cookie(String name) {
      return cookies.get(name);
    }
  }

  private static Rule rule(
      String path, String header, String value, String cookie, String ua, String cidr) {
    return new Rule(
        RuleAction.BYPASS,
        Optional.ofNullable(path),
        List.of(),
        List.of(),
        header == null
            ? List.of()
            : List.of(new ValueMatch(header, Optional.ofNullable(value), Optional.empty(), false)),
        cookie == null
            ? List.of()
            : List.of(new ValueMatch(cookie, Optional.empty(), Optional.empty(), false)),
        Optional.ofNullable(ua),
        cidr == null ? List.of() : List.of(cidr),
        Optional.empty());
  }

  @Test
  void pathGlobsStayInASegmentUnlessDoubleStar() {
    var m =
        new RuleMatcher(
            "r",
            List.of(
                rule("/static/*.css", null, null, null, null, null),
                rule("/api/**", null, null, null, null, null)));
    assertThat(m.bypasses(new Req("/static/a.css", Map.of(), Map.of(), "1.2.3.4"))).isTrue();
    assertThat(m.bypasses(new Req("/static/x/a.css", Map.of(), Map.of(), "1.2.3.4"))).isFalse();
    assertThat(m.bypasses(new Req("/api/v1/orders", Map.of(), Map.of(), "1.2.3.4"))).isTrue();
    assertThat(m.bypasses(new Req("/shop", Map.of(), Map.of(), "1.2.3.4"))).isFalse();
  }

  @Test
  void allConditionsOfARuleMustMatch() {
    var m = new RuleMatcher("r", List.of(rule("/api/**", "X-Key", "k1", null, null, null)));
    assertThat(m.bypasses(new Req("/api/x", Map.of("X-Key", "k1"), Map.of(), null))).isTrue();
    assertThat(m.bypasses(new Req("/api/x", Map.of("X-Key", "k2"), Map.of(), null))).isFalse();
    assertThat(m.bypasses(new Req("/api/x", Map.of(), Map.of(), null))).isFalse();
    assertThat(m.bypasses(new Req("/web", Map.of("X-Key", "k1"), Map.of(), null))).isFalse();
  }

  @Test
  void cookieUserAgentAndCidrRules() {
    var m =
        new RuleMatcher(
            "r",
            List.of(
                rule(null, null, null, "staff", null, null),
                rule(null, null, null, null, "*monitoring-bot*", null),
                rule(null, null, null, null, null, "10.1.0.0/16"),
                rule(null, null, null, null, null, "2001:db8::/32")));
    assertThat(m.bypasses(new Req("/", Map.of(), Map.of("staff", "1"), "8.8.8.8"))).isTrue();
    assertThat(
            m.bypasses(
                new Req("/", Map.of("User-Agent", "Acme Monitoring-Bot/2"), Map.of(), "8.8.8.8")))
        .isTrue();
    assertThat(m.bypasses(new Req("/", Map.of(), Map.of(), "10.1.200.3"))).isTrue();
    assertThat(m.bypasses(new Req("/", Map.of(), Map.of(), "10.2.0.1"))).isFalse();
    assertThat(m.bypasses(new Req("/", Map.of(), Map.of(), "2001:db8::9"))).isTrue();
    assertThat(m.bypasses(new Req("/", Map.of("User-Agent", "Firefox"), Map.of(), "8.8.8.8")))
        .isFalse();
  }

  @Test
  void cidrParsingRejectsHostNames() {
    assertThatThrownBy(() -> Cidr.parse("example.com/8")).hasMessageContaining("host names");
    assertThat(Cidr.parse("192.168.1.7").contains("192.168.1.7")).isTrue();
    assertThat(Cidr.parse("0.0.0.0/0").contains("1.2.3.4")).isTrue();
  }
}
