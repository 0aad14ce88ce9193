package io.anteroom.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The partition scenario: every gateway cut off from the coordinator for 20 s across a minute
 * boundary, in steady overload (T = 1000), on the real core with the gateway's outage rules.
 */
class PartitionScenarioTest {

  @Test
  void aPartitionAcrossAMinuteBoundaryKeepsThePeakWithinTheTarget() {
    run("partition");
  }

  @Test
  void theIssuesSmallPartitionKeepsThePeakWithinTheTarget() {
    run("partition-small");
  }

  private static void run(String name) {
    SimulationResult r =
        Simulation.builder()
            .scenario(Scenarios.require(name))
            .strategy(StrategyVariant.COUNTERS)
            .seed(1)
            .minutes(14)
            .run();
    Metrics m = r.metrics();
    System.out.printf(
        name
            + ": peak %.3f T, minutes over 1.05 N %d, admissions %d, queued %d, by reason %s,"
            + " misses %s%n",
        m.peakActiveRatio(),
        m.minutesOver105N(),
        m.admissions(),
        m.queuedUsers(),
        r.admissionsByReason(),
        r.misses());
    assertThat(m.queuedUsers()).as("the run must reach overload to test anything").isPositive();
    assertThat(m.peakActiveRatio()).isLessThanOrEqualTo(Targets.MAX_PEAK_ACTIVE_RATIO);
    assertThat(m.minutesOver105N()).isZero();
  }
}
