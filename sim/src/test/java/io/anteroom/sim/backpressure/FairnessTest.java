package io.anteroom.sim.backpressure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.anteroom.sim.report.Stats;
import java.util.Random;
import org.junit.jupiter.api.Test;

class FairnessTest {

  @Test
  void equalRatesAreFairAndOneClientTakingAllIsOneOverN() {
    assertThat(Fairness.jainIndex(new double[] {0.1, 0.1, 0.1, 0.1})).isCloseTo(1.0, within(1e-12));
    assertThat(Fairness.jainIndex(new double[] {4, 0, 0, 0})).isCloseTo(0.25, within(1e-12));
    assertThat(Fairness.jainIndex(new double[] {1, 3})).isCloseTo(16.0 / 20, within(1e-12));
  }

  @Test
  void theStartingSpreadHasACoefficientOfVariationOfOneAndTheRequestedMean() {
    double[] rates = InitialRates.withUnitCoefficientOfVariation(1000, 0.1, new Random(3));
    assertThat(Fairness.coefficientOfVariation(rates)).isCloseTo(1.0, within(1e-9));
    assertThat(Fairness.jainIndex(rates)).isCloseTo(0.5, within(1e-9));
    assertThat(Stats.mean(rates)).isCloseTo(0.1, within(1e-12));
    assertThat(java.util.Arrays.stream(rates).min().orElseThrow()).isGreaterThan(0.01);
  }
}
