package io.anteroom.room;

/**
 * {@code wait(b) = ln(1 + h × ahead(b) / admissionsPerMinute) / h}, {@code h =
 * abandonmentsPerMinute / Σ waiting}, and {@code ahead(b) / admissionsPerMinute} when {@code h = 0}
 * (always with published rules).
 */
final class WaitEstimator {
  private WaitEstimator() {}

  static WaitEstimate estimate(RoomState state, long bucketId, Rules rules) {
    long before = 0;
    long own = 0;
    for (BucketState b : state.buckets()) {
      if (b.bucketId() < bucketId) {
        before += b.notEligible();
      } else if (b.bucketId() == bucketId) {
        own = b.notEligible();
      }
    }
    long ahead = before + own;
    double rate = state.admissionsPerMinute();
    if (!(rate > 0)) {
      return WaitEstimate.unknown(ahead);
    }
    long totalWaiting = state.totalWaiting();
    double h =
        rules.abandonmentInWait() && totalWaiting > 0
            ? state.abandonmentsPerMinute() / totalWaiting
            : 0;
    return new WaitEstimate(
        true,
        ahead,
        minutes(ahead, rate, h),
        minutes(before + 0.25 * own, rate, h),
        minutes(before + 0.5 * own, rate, h),
        minutes(before + 0.75 * own, rate, h));
  }

  static double minutes(double ahead, double admissionsPerMinute, double h) {
    if (h <= 0) {
      return ahead / admissionsPerMinute;
    }
    return Math.log1p(h * ahead / admissionsPerMinute) / h;
  }
}
