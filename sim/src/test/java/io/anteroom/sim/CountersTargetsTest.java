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

  /** The seeds whose mean the bucket-order target is checked on ({@link #inBucketOrder}). */
  static final int BUCKET_ORDER_SEEDS = 10;

  /**
   * Every target on seed 1, but bucket order on the mean of seeds 1-{@value #BUCKET_ORDER_SEEDS}:
   * in the steady overload one seed's share of admissions not overtaken moves by up to a point with
   * any change of timing (seeds 1-6 of one build: 98.73-99.94 %; measured 2026-11-29, {@code
   * docs/simulation.md}), so a single seed at the target's edge said more about the seed than about
   * the change. Five seeds were not enough either: one build's seeds 1-5 gave 98.93 % and its seeds
   * 1-15 99.33 % (2026-11-30, seed 4 alone 97.48 %).
   */
  @Tag("slow")
  @ParameterizedTest(name = "{0}")
  @MethodSource("scenarioNames")
  void countersMeetEveryTargetOnEveryBuiltInScenario(String name) {
    SimulationResult r = run(name, 1);
    assertThat(r.misses().stream().filter(m -> !m.contains("in bucket order")).toList())
        .as("targets missed by counters on %s (seed 1)", name)
        .isEmpty();
    if (Scenarios.require(name).topology().outages().isEmpty()) { // an outage: T and N only
      assertThat(inBucketOrder(name, r))
          .as("mean share of admissions in bucket order, seeds 1-%d, %s", BUCKET_ORDER_SEEDS, name)
          .isGreaterThanOrEqualTo(Targets.MIN_IN_ORDER_SHARE);
    }
  }

  /** The mean not-overtaken share over seeds 1-{@value #BUCKET_ORDER_SEEDS}, seed 1's given. */
  private static double inBucketOrder(String name, SimulationResult seed1) {
    double sum = seed1.metrics().notOvertakenShare();
    for (int seed = 2; seed <= BUCKET_ORDER_SEEDS; seed++) {
      sum += run(name, seed).metrics().notOvertakenShare();
    }
    return sum / BUCKET_ORDER_SEEDS;
  }

  private static SimulationResult run(String name, int seed) {
    return Simulation.builder()
        .scenario(Scenarios.require(name))
        .strategy(StrategyVariant.COUNTERS)
        .seed(seed)
        .run();
  }

  /**
   * The short run of the default suite: 20 minutes of steady overload on the embedded default
   * deployment, against every target (the full scenario set is the slow test above).
   */
  @Test
  void countersKeepWithinTAndNAndAdmitInBucketOrderInAShortSteadyOverload() {
    SimulationResult r =
        Simulation.builder()
            .scenario(Scenarios.require("single-node"))
            .strategy(StrategyVariant.COUNTERS)
            .seed(1)
            .minutes(20)
            .run();
    Metrics m = r.metrics();
    assertThat(m.queuedUsers())
        .as("the run must reach overload to test anything")
        .isGreaterThan(500);
    assertThat(m.peakActiveRatio()).isLessThanOrEqualTo(Targets.MAX_PEAK_ACTIVE_RATIO);
    assertThat(m.minutesOver105N()).isZero();
    assertThat(m.notOvertakenShare()).isGreaterThanOrEqualTo(Targets.MIN_IN_ORDER_SHARE);
    assertThat(m.shareQueuedBelow90()).isLessThan(0.01);
    assertThat(m.shareQueuedBelow95ForARefresh())
        .isLessThanOrEqualTo(Targets.MAX_SHARE_QUEUED_BELOW_95);
    assertThat(m.waitSamples()).isGreaterThan(100);
    assertThat(m.medianWaitError()).isLessThanOrEqualTo(Targets.MAX_MEDIAN_WAIT_ERROR);
  }
}
