package io.anteroom.sim;

import java.util.List;

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
 * @param events events the loop executed (a measure of the work done)
 */
public record SimulationResult(
    Scenario scenario,
    Strategy strategy,
    long seed,
    int minutes,
    Metrics metrics,
    Series series,
    List<String> misses,
    long events) {

  public SimulationResult {
    misses = List.copyOf(misses);
  }

  /**
   * Ground-truth time series.
   *
   * @param activeBySecond true global active users at the end of every second
   * @param waitingBySecond users waiting in the queue (not given up) at the end of every second
   * @param admissionsByMinute users admitted in every minute
   */
  public record Series(int[] activeBySecond, int[] waitingBySecond, int[] admissionsByMinute) {}
}
