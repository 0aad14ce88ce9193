package io.anteroom.sim.report;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StatsTest {

  @Test
  void percentilesUseTheNearestRank() {
    double[] xs = new double[100];
    for (int i = 0; i < 100; i++) {
      xs[i] = 100 - i;
    }
    assertThat(Stats.percentile(xs, 0.95)).isEqualTo(95.0);
    assertThat(Stats.percentile(xs, 0.99)).isEqualTo(99.0);
    assertThat(Stats.max(xs)).isEqualTo(100.0);
  }

  @Test
  void theMedianOfAnEvenCountIsTheMeanOfTheTwoMiddleValues() {
    assertThat(Stats.medianOfSorted(new double[] {1, 2, 3})).isEqualTo(2.0);
    assertThat(Stats.medianOfSorted(new double[] {1, 2, 4, 8})).isEqualTo(3.0);
    assertThat(Stats.medianOfSorted(new double[0])).isNaN();
  }
}
