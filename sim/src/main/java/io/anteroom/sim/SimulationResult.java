package io.anteroom.sim;

import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What one run produced: its figures, its time series, and the targets it missed.
 *
 * @param scenario the scenario run
 * @param strategy the strategy run
 * @param seed the seed of the random traffic
 * @param minutes simulated minutes
 * @param metrics the figures of {@link Metrics}
 * @param series the per-second and per-minute ground truth, for charts
 * @param misses the issue-3 targets this run missed, as sentences (empty: all met)
 * @param admissionsByReason admissions (not renewals) by the room's reason for them, e.g. {@code
 *     WHOLE_BUCKET}, {@code DATA_CENTER_SLOT}, {@code ANYWHERE_SLOT}, {@code WORKER_SLOT}
 * @param events events the loop executed (a measure of the work done)
 */
public record SimulationResult(
    Scenario scenario,
    StrategyVariant strategy,
    long seed,
    int minutes,
    Metrics metrics,
    Series series,
    List<String> misses,
    SortedMap<String, Long> admissionsByReason,
    long events) {

  public SimulationResult {
    misses = List.copyOf(misses);
    admissionsByReason = Collections.unmodifiableSortedMap(new TreeMap<>(admissionsByReason));
  }

  /**
   * Share of admissions that were users of a whole bucket (they enter even when numbers are spent).
   */
  public double wholeBucketShare() {
    return metrics.admissions() == 0
        ? 0
        : (double) admissionsByReason.getOrDefault(Observations.WHOLE_BUCKET, 0L)
            / metrics.admissions();
  }

  /**
   * Ground-truth time series.
   *
   * @param activeBySecond true global active users at the end of every second
   * @param waitingBySecond users waiting in the queue (not given up) at the end of every second
   * @param admissionsByMinute users admitted in every minute
   * @param wholeBucketAdmissionsByMinute of those, users of a whole bucket
   */
  public record Series(
      int[] activeBySecond,
      int[] waitingBySecond,
      int[] admissionsByMinute,
      int[] wholeBucketAdmissionsByMinute) {}
}
