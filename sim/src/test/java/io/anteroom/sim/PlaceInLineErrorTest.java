package io.anteroom.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The place in line shown on the queue page is measured against the simulator's own users, like the
 * wait estimate, and stays within its documented bound (median error ≤ 20 %) where it is shown as
 * one number.
 */
class PlaceInLineErrorTest {

  @Test
  void inSteadyOverloadThePlaceShownIsWithinItsBound() {
    SimulationResult r =
        Simulation.builder()
            .scenario(Scenarios.require("steady"))
            .strategy(StrategyVariant.COUNTERS)
            .seed(1)
            .minutes(25)
            .run();

    Metrics.PlaceErrors p = r.metrics().place();
    assertThat(p.measured()).as("users measured after the warm-up").isGreaterThan(1000);
    assertThat(p.approximate()).as("most are shown one number").isGreaterThan(p.measured() / 2);
    assertThat(p.medianError()).isLessThanOrEqualTo(Targets.MAX_MEDIAN_PLACE_ERROR);
    assertThat(r.misses()).noneMatch(m -> m.contains("place-in-line"));
  }

  @Test
  void aSpikesFirstMinuteIsShownAsARangeThatHoldsTheTruth() {
    SimulationResult r =
        Simulation.builder()
            .scenario(Scenarios.require("spike-after-low"))
            .strategy(StrategyVariant.COUNTERS)
            .seed(1)
            .minutes(50)
            .run();

    Metrics.PlaceErrors p = r.metrics().place();
    assertThat(p.ranges()).as("users of wide buckets see a range").isPositive();
    assertThat(p.rangeCoverage()).as("most ranges hold the true place").isGreaterThan(0.8);
    assertThat(p.medianError()).isLessThanOrEqualTo(Targets.MAX_MEDIAN_PLACE_ERROR);
  }
}
