package io.anteroom.sim;

/**
 * The figures of one run (one scenario, one strategy), all from the simulator's own bookkeeping of
 * its simulated users (true active users, true admissions), not from the core's counts.
 *
 * <p>Utilization at an instant is {@code max(activeUsers / T, admissions in the last 60 s / N)}:
 * the share of the tighter limit in use. Wait errors are relative, {@code |shown - actual| /
 * actual}, over users queued after the first 10 minutes of the run (warm-up) who were admitted
 * after waiting at least a minute and were shown a known estimate on their first queue page.
 *
 * @param peakActiveRatio highest global active users / T (sampled every second)
 * @param p99ActiveRatio 99th percentile of global active users / T
 * @param admissions users admitted in the run
 * @param minutesOverN complete minutes whose admissions exceeded N
 * @param minutesOver105N complete minutes whose admissions exceeded 1.05 × N
 * @param maxAdmissionsRatio highest admissions of a minute / N
 * @param queuedUsers users who were queued at least once
 * @param utilizationAtFirstQueue utilization when the first user was queued (NaN: nobody was)
 * @param shareQueuedBelow90 share of queued users queued while utilization was below 90 %
 * @param shareQueuedBelow95 same, below 95 % (at the instant of queueing)
 * @param shareQueuedBelow95ForARefresh share of queued users queued below 95 % while utilization
 *     also stayed below 95 % for the next refresh interval (R + 2 s): the target. A user
 *     queued behind older waiting users (FIFO) while the room briefly ran below 95 % is not counted
 *     when those users took the spare capacity on their next refresh
 * @param fifoInversions admissions while a user of an older bucket was still waiting (strict: the
 *     older user may be between two refreshes with its slot already reserved)
 * @param inOrderShare 1 - fifoInversions / admissions
 * @param overtakes admissions after which a user of an older bucket was still waiting one refresh
 *     interval (R + 2 s) later: the older user really was passed over
 * @param notOvertakenShare 1 - overtakes / admissions
 * @param waitSamples queued users the wait error is measured on
 * @param meanWaitError mean relative error of the wait shown (NaN without samples)
 * @param medianWaitError median relative error of the wait shown (NaN without samples)
 * @param medianWaitBias median of the signed relative error {@code (shown - actual) / actual}:
 *     above 0 the estimates run long, below 0 short
 * @param abandoned queued users who gave up
 * @param waitP50Minutes median time in the queue of the queued users who were admitted, in minutes
 *     (NaN: nobody was admitted from the queue)
 * @param waitP95Minutes 95th percentile of the same
 * @param waitMaxMinutes longest wait of the same
 * @param place the error of the place in line shown on a user's first queue page
 */
public record Metrics(
    double peakActiveRatio,
    double p99ActiveRatio,
    long admissions,
    int minutesOverN,
    int minutesOver105N,
    double maxAdmissionsRatio,
    long queuedUsers,
    double utilizationAtFirstQueue,
    double shareQueuedBelow90,
    double shareQueuedBelow95,
    double shareQueuedBelow95ForARefresh,
    long fifoInversions,
    double inOrderShare,
    long overtakes,
    double notOvertakenShare,
    long waitSamples,
    double meanWaitError,
    double medianWaitError,
    double medianWaitBias,
    long abandoned,
    double waitP50Minutes,
    double waitP95Minutes,
    double waitMaxMinutes,
    PlaceErrors place) {

  /**
   * How far the place in line shown on a user's first queue page ({@link
   * io.anteroom.room.PlaceInLine}) was from the truth at that instant: everyone of the simulator's
   * users waiting in an older bucket plus half of those waiting in the user's own. Measured on
   * users first queued after the 10-minute warm-up whose true place is at least {@value
   * Observations#MIN_MEASURED_PLACE} people.
   *
   * @param measured users measured
   * @param approximate of those, users shown one number ("about N")
   * @param medianError median of {@code |shown - true| / true} over the users shown one number
   *     (NaN: none)
   * @param p90Error its 90th percentile
   * @param bias median of the signed error: above 0 the places shown run long
   * @param ranges users shown a range instead (the spread of their bucket was too wide)
   * @param rangeCoverage of those, the share whose true place was within the range shown
   */
  public record PlaceErrors(
      long measured,
      long approximate,
      double medianError,
      double p90Error,
      double bias,
      long ranges,
      double rangeCoverage) {

    /** No users measured. */
    public static final PlaceErrors NONE =
        new PlaceErrors(0, 0, Double.NaN, Double.NaN, Double.NaN, 0, Double.NaN);
  }
}
