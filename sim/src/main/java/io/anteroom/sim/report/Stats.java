package io.anteroom.sim.report;

import java.util.Arrays;

/** Summary statistics of a measured series: the simulator's one place for means and percentiles. */
public final class Stats {
  private Stats() {}

  public static double mean(double[] xs) {
    return Arrays.stream(xs)
        .average()
        .orElseThrow(() -> new IllegalArgumentException("mean of an empty series"));
  }

  public static double max(double[] xs) {
    return Arrays.stream(xs)
        .max()
        .orElseThrow(() -> new IllegalArgumentException("max of an empty series"));
  }

  /**
   * Nearest-rank percentile, {@code q} in (0, 1]: the smallest value with at least {@code q} of the
   * series at or below it.
   */
  public static double percentile(double[] xs, double q) {
    if (xs.length == 0) {
      throw new IllegalArgumentException("percentile of an empty series");
    }
    double[] sorted = xs.clone();
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(q * sorted.length);
    return sorted[Math.max(0, rank - 1)];
  }

  /**
   * The median (mean of the two middle values of an even count) of an already sorted series; NaN if
   * empty.
   */
  public static double medianOfSorted(double[] sorted) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int half = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[half] : (sorted[half - 1] + sorted[half]) / 2;
  }
}
