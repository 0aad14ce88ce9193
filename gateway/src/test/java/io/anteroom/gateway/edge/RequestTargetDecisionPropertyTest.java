package io.anteroom.gateway.edge;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.door.config.ConfigLoader;
import io.anteroom.door.config.GatewayConfig.RoomSettings;
import io.anteroom.door.match.RequestTarget;
import io.anteroom.door.match.RequestTargetResult;
import io.anteroom.door.route.RoomRouter;
import io.anteroom.door.route.RuleMatcher;
import io.anteroom.gateway.edge.TrickyTargets.Attempt;
import io.anteroom.gateway.edge.TrickyTargets.Expected;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * "One target, one decision" (docs/security.md) as a property, without a network: for random
 * requests built from tricky pieces, {@link RequestTarget} either refuses the target or gives the
 * documented normal form (canonical and stable), and the room decision on that form is the decision
 * on what the raw request means: re-parsed, and as a lenient origin reads it. The same over the
 * wire: {@link RequestTargetEndToEndPropertyTest}.
 */
class RequestTargetDecisionPropertyTest {

  private static final List<RoomSettings> ROOMS =
      ConfigLoader.parse("origin: http://127.0.0.1:1\n" + TrickyTargets.ROOMS, "test").rooms();
  private static final RoomRouter<RoomSettings> ROUTER = RoomRouter.of(ROOMS, RoomSettings::routes);
  private static final Map<String, RuleMatcher> BYPASS =
      ROOMS.stream()
          .collect(Collectors.toMap(RoomSettings::id, s -> new RuleMatcher(s.id(), s.allRules())));

  private static final String UNRESERVED =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~";

  private static final Pattern ESCAPE = Pattern.compile("%(..)");

  static String decide(String host, String path) {
    return TrickyTargets.decide(
        ROUTER,
        RoomSettings::id,
        (Function<RoomSettings, RuleMatcher>) r -> BYPASS.get(r.id()),
        host,
        path);
  }

  /** What the gateway parses: several Host headers are refused before {@link RequestTarget}. */
  static RequestTargetResult parse(Attempt a) {
    return a.hosts().size() > 1
        ? new RequestTargetResult.Rejected("several Host headers")
        : RequestTarget.parse(a.target(), a.hostHeader(), null);
  }

  @Provide
  Arbitrary<Attempt> attempts() {
    return TrickyTargets.attempts(true);
  }

  @Property(tries = 10_000)
  void aTargetIsRefusedOrNormalisedCanonicallyAndDecidedAsItIsMeant(@ForAll("attempts") Attempt a) {
    RequestTargetResult r = parse(a);
    Expected expected = TrickyTargets.expect(a);
    if (r instanceof RequestTargetResult.Rejected rejected) {
      Statistics.label("outcome").collect("400 (" + rejected.reason().split(" \\(")[0] + ")");
      assertThat(expected.refused())
          .as("%s refused (%s), the documented rules give %s", a, rejected.reason(), expected)
          .isTrue();
      return;
    }
    RequestTarget t = (RequestTarget) r;
    assertThat(expected.refused()).as("%s accepted as %s, but ambiguous", a, t).isFalse();
    assertThat(t)
        .as("%s", a)
        .isEqualTo(new RequestTarget(expected.host(), expected.path(), expected.query()));

    // canonical
    String path = t.path();
    assertThat(path).as("%s", a).startsWith("/").doesNotContain("//", ";", "\\", "?", "#");
    for (String segment : path.substring(1).split("/")) {
      assertThat(segment).as("%s", a).isNotIn(".", "..");
    }
    Matcher escape = ESCAPE.matcher(path);
    while (escape.find()) {
      assertThat(escape.group(1)).as("%s", a).matches("[0-9A-F]{2}");
      assertThat(UNRESERVED.indexOf(Integer.parseInt(escape.group(1), 16)))
          .as("%s: an unreserved character is never escaped", a)
          .isNegative();
    }
    assertThat(path.chars()).as("%s", a).allMatch(c -> c > 0x20 && c < 0x7f);

    // idempotent: the normal form, sent as it is forwarded, is its own normal form
    assertThat(RequestTarget.parse(t.pathAndQuery(), t.host(), null)).as("%s", a).isEqualTo(t);
    if (t.host() != null) {
      assertThat(RequestTarget.parse("http://" + t.host() + t.pathAndQuery(), "elsewhere", null))
          .as("%s", a)
          .isEqualTo(t);
    }

    // one decision: on the normal form, on it re-parsed, and on what a lenient origin serves
    String decision = decide(t.host(), t.path());
    Statistics.label("outcome").collect(decision);
    String[] lenient = TrickyTargets.lenientHostAndPath(a);
    assertThat(lenient[1]).as("%s: a lenient origin reads no climb", a).isNotNull();
    assertThat(decide(lenient[0], lenient[1]))
        .as("%s normalised to %s, a lenient origin serves %s %s", a, t, lenient[0], lenient[1])
        .isEqualTo(decision);
  }
}
