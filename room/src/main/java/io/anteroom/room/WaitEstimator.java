package io.anteroom.room;

/**
 * The wait of a queued user of bucket {@code b}.
 *
 * <p>Spec rules: the time until what the room will admit ({@link AdmissionForecast}: free slots,
 * {@code N}, sessions ending) has taken the users ahead of it, of whom some give up on the way.
 * Users of one bucket are admitted in no particular order, so the user's place in its bucket is
 * uniform over the bucket's not-eligible users once its minute is over: {@code place(q) =
 * waitingBefore + q × bucketSize(b)}; the bucket of the state's current minute (or a later one) is
 * still filling, and its size is extrapolated from the users counted so far at the same pace.
 * {@code p25/p50/p75} are the forecast waits at {@code q = 0.25/0.5/0.75}; {@code minutes} is the
 * median ({@code p50}).
 *
 * <p>Published rules: the spec's formula {@code wait(b) = ahead(b) / admissionsPerMinute} with the
 * whole bucket ahead ({@link #minutes}, without abandonment), spread over the user's place in the
 * bucket's counted users.
 *
 * <p>Abandonment (spec rules): {@code h = abandonmentsPerMinute / W}, where {@code W} counts the
 * users the abandonments of the last 3 minutes came from: those still waiting whose bucket is at
 * least {@value #HAZARD_BUCKET_AGE} minutes old, plus a minute of users leaving the queue ({@code
 * admissionsPerMinute + abandonmentsPerMinute}). The spec's {@code Σ waiting} also counts the users
 * who arrived after those abandonments: in a growing queue (a spike) it made {@code h} several
 * times too small and the estimates too long.
 *
 * <p>In every case the wait is unknown while nobody was admitted in the last 3 minutes.
 */
final class WaitEstimator {
  /** A bucket this many minutes old was already waiting during the abandonments' minutes. */
  static final int HAZARD_BUCKET_AGE = 2;

  /** The bucket-size extrapolation waits for this share of the minute to have elapsed. */
  static final double MIN_ELAPSED_SHARE = 0.1;

  private WaitEstimator() {}

  static WaitEstimate estimate(RoomState state, long bucketId, RoomConfig config) {
    Rules rules = config.rules();
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
    PlaceInLine place = PlaceInLine.of(state, bucketId);
    double rate = state.admissionsPerMinute();
    if (!(rate > 0)) {
      return WaitEstimate.unknown(ahead, place);
    }
    if (!rules.admissionForecastWait()) {
      double h =
          rules.abandonmentInWait() && state.totalWaiting() > 0
              ? state.abandonmentsPerMinute() / state.totalWaiting()
              : 0;
      return new WaitEstimate(
          true,
          ahead,
          minutes(ahead, rate, h),
          minutes(before + 0.25 * own, rate, h),
          minutes(before + 0.5 * own, rate, h),
          minutes(before + 0.75 * own, rate, h),
          place);
    }
    double h = rules.abandonmentInWait() ? hazard(state) : 0;
    AdmissionForecast forecast = AdmissionForecast.of(state, config);
    double size = bucketSize(state, bucketId, own);
    double p50 = forecast.minutesUntil(before + 0.5 * size, h);
    return new WaitEstimate(
        true,
        ahead,
        p50,
        forecast.minutesUntil(before + 0.25 * size, h),
        p50,
        forecast.minutesUntil(before + 0.75 * size, h),
        place);
  }

  /**
   * The not-eligible users bucket {@code bucketId} will hold once its minute is over: {@code own}
   * for a past minute; for the state's current minute (or a later one) the current minute's users
   * counted so far over the elapsed share of the minute (at least {@value #MIN_ELAPSED_SHARE}).
   */
  static double bucketSize(RoomState state, long bucketId, long own) {
    if (bucketId < state.minute()) {
      return own;
    }
    long current = state.bucket(state.minute()).map(BucketState::notEligible).orElse(0L);
    double elapsed = Minutes.millisIntoMinute(state.asOf()) / (double) Minutes.MILLIS_PER_MINUTE;
    return Math.max(own, current / Math.max(MIN_ELAPSED_SHARE, elapsed));
  }

  /**
   * Each waiting user's hazard of giving up per minute: the abandonments of the last 3 minutes over
   * the users they came from (see the class comment); 0 without abandonments.
   */
  static double hazard(RoomState state) {
    long waitingLong = 0;
    for (BucketState b : state.buckets()) {
      if (b.bucketId() <= state.minute() - HAZARD_BUCKET_AGE) {
        waitingLong += b.waiting();
      }
    }
    double from = waitingLong + state.admissionsPerMinute() + state.abandonmentsPerMinute();
    return from > 0 ? state.abandonmentsPerMinute() / from : 0;
  }

  /**
   * The spec's {@code ln(1 + h × ahead / admissionsPerMinute) / h}, or {@code ahead /
   * admissionsPerMinute} when {@code h = 0}: the wait at a constant admission rate.
   */
  static double minutes(double ahead, double admissionsPerMinute, double h) {
    if (h <= 0) {
      return ahead / admissionsPerMinute;
    }
    return Math.log1p(h * ahead / admissionsPerMinute) / h;
  }
}
