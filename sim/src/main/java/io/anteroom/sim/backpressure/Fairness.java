package io.anteroom.sim.backpressure;

/**
 * Jain's fairness index, {@code J = (Σx)² / (n · Σx²)}: 1 when all rates are equal, 1/n when one
 * client has all.
 */
public final class Fairness {
  private Fairness() {}

  public static double jainIndex(double[] rates) {
    if (rates.length == 0) {
      throw new IllegalArgumentException("Jain's index needs at least one rate");
    }
    double sum = 0;
    double sumOfSquares = 0;
    for (double x : rates) {
      sum += x;
      sumOfSquares += x * x;
    }
    return sumOfSquares == 0 ? 1 : sum * sum / (rates.length * sumOfSquares);
  }

  /**
   * The coefficient of variation (population standard deviation over mean), for reporting starting
   * points.
   */
  static double coefficientOfVariation(double[] rates) {
    // J = 1 / (1 + CV²), so CV follows from the one formula of J
    return Math.sqrt(1 / jainIndex(rates) - 1);
  }
}
