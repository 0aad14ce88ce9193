package io.anteroom.sim.backpressure;

import java.util.Random;

/**
 * Starting rates with a coefficient of variation of exactly 1: a two-point spread, 39% of the
 * clients fast and the rest slow. A two-point spread keeps every rate positive and within a factor
 * of about 11 of each other, so the controllers' clamps do not touch it.
 */
final class InitialRates {
  private static final double FAST_SHARE = 0.39;

  private InitialRates() {}

  /** {@code n} rates of mean {@code mean} and CV 1, shuffled with {@code random}. */
  static double[] withUnitCoefficientOfVariation(int n, double mean, Random random) {
    if (n < 3) {
      throw new IllegalArgumentException("a spread with CV 1 needs at least 3 clients, got " + n);
    }
    int fast = Math.max(1, (int) Math.round(n * FAST_SHARE));
    double p = fast / (double) n;
    // CV² = (1 - p)(1 - c)² / p for slow = c·mean, fast = (1 - (1 - p)c)/p · mean; CV = 1 gives c:
    double c = 1 - Math.sqrt(p / (1 - p));
    double slow = c * mean;
    double high = (1 - (1 - p) * c) / p * mean;
    double[] rates = new double[n];
    for (int i = 0; i < n; i++) {
      rates[i] = i < fast ? high : slow;
    }
    for (int i = n - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      double t = rates[i];
      rates[i] = rates[j];
      rates[j] = t;
    }
    return rates;
  }
}
