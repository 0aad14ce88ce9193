package io.anteroom.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 3's targets for the counters strategy, on the real core. The full set runs every built-in
 * scenario and is tagged slow ({@code ./mvnw -pl sim -am verify -Pslow}); a missed target fails it
 * with the sentence of {@link Targets#misses}.
 */
class CountersTargetsTest {

  static java.util.List<String> scenarioNames() {
    return Scenarios.all().stream().map(Scenario::name).toList();
  }

  @Tag("slow")
  @ParameterizedTest(name = "{0}")
  @MethodSource("scenarioNames")
  void countersMeetEveryTargetOnEveryBuiltInScenario(String name) {
    SimulationResult r = Simulation.builder().scenario(Scenarios.require(name)).strategy(Strategy.COUNTERS).seed(1)
        .run();
    assertThat(r.misses()).as("targets missed by counters on %s", name).isEmpty();
  }

  /**
   * The short run of the default suite: 20 minutes of steady overload on the embedded default
   * deployment. It asserts the targets the core meets at the time of writing; the last one (nobody
   * queued below 95 % utilization) is asserted by the slow test above, which the core fails: after
   * minutes admitting about N, the pool's in-flight margin holds back 5 % of T (see
   * docs/simulation.md), so a few newcomers join the queue while the room is at 90–95 % of T.
   */
  @Test
  void countersKeepWithinTAndNAndAdmitInBucketOrderInAShortSteadyOverload() {
    SimulationResult r = Simulation.builder().scenario(Scenarios.require("single-node")).strategy(Strategy.COUNTERS)
        .seed(1).minutes(20).run();
    Metrics m = r.metrics();
    assertThat(m.queuedUsers()).as("the run must reach overload to test anything").isGreaterThan(500);
    assertThat(m.peakActiveRatio()).isLessThanOrEqualTo(Targets.MAX_PEAK_ACTIVE_RATIO);
    assertThat(m.minutesOver105N()).isZero();
    assertThat(m.notOvertakenShare()).isGreaterThanOrEqualTo(Targets.MIN_IN_ORDER_SHARE);
    assertThat(m.shareQueuedBelow90()).isLessThan(0.01);
    assertThat(m.waitSamples()).isGreaterThan(100);
    assertThat(m.medianWaitError()).isLessThanOrEqualTo(Targets.MAX_MEDIAN_WAIT_ERROR);
  }
}
