package io.anteroom.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.room.slots.StrategyKind;
import org.junit.jupiter.api.Test;

/** Runs the real core: the same seed must give the same run, byte for byte. */
class SimulationDeterminismTest {
  private static SimulationResult run(StrategyVariant strategy, long seed) {
    return Simulation.builder()
        .scenario(Scenarios.require("step-spike"))
        .strategy(strategy)
        .seed(seed)
        .minutes(18)
        .run();
  }

  @Test
  void theSameSeedGivesTheSameFiguresAndSeriesByteForByte() {
    for (StrategyVariant s :
        new StrategyVariant[] {
          StrategyVariant.COUNTERS, StrategyVariant.published(StrategyKind.EVEN_SPLIT)
        }) {
      SimulationResult a = run(s, 7);
      SimulationResult b = run(s, 7);
      assertThat(Report.csvLine(b)).isEqualTo(Report.csvLine(a));
      assertThat(Report.seriesCsv(java.util.List.of(b)))
          .isEqualTo(Report.seriesCsv(java.util.List.of(a)));
      assertThat(b.admissionsByReason()).isEqualTo(a.admissionsByReason());
      assertThat(b.events()).isEqualTo(a.events());
    }
  }

  @Test
  void anotherSeedGivesAnotherRun() {
    SimulationResult a = run(StrategyVariant.COUNTERS, 7);
    SimulationResult c = run(StrategyVariant.COUNTERS, 8);
    assertThat(c.series().activeBySecond()).isNotEqualTo(a.series().activeBySecond());
    assertThat(Report.csvLine(c)).isNotEqualTo(Report.csvLine(a));
  }

  @Test
  void everyStrategySeesTheSameArrivals() {
    // before the spike nobody is queued, so every strategy admits the same users; counters answer
    // a counter round trip (5 or 65 ms) later, which may move an admission across a second
    SimulationResult counters =
        Simulation.builder()
            .scenario(Scenarios.require("step-spike"))
            .strategy(StrategyVariant.COUNTERS)
            .seed(3)
            .minutes(14)
            .run();
    SimulationResult evenSplit =
        Simulation.builder()
            .scenario(Scenarios.require("step-spike"))
            .strategy(StrategyVariant.spec(StrategyKind.EVEN_SPLIT))
            .seed(3)
            .minutes(14)
            .run();
    assertThat(counters.metrics().queuedUsers()).isZero();
    assertThat(evenSplit.metrics().queuedUsers()).isZero();
    assertThat(evenSplit.metrics().admissions()).isEqualTo(counters.metrics().admissions());
    int[] a = counters.series().activeBySecond();
    int[] b = evenSplit.series().activeBySecond();
    int largestGap = 0;
    for (int i = 0; i < a.length; i++) {
      largestGap = Math.max(largestGap, Math.abs(a[i] - b[i]));
    }
    assertThat(largestGap).isLessThanOrEqualTo(2);
  }
}
