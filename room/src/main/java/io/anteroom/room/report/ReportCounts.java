package io.anteroom.room.report;

import io.anteroom.room.history.HistoryRow;
import io.anteroom.room.history.MinuteActivity;
import io.anteroom.room.history.WaitHistogram;
import java.util.OptionalLong;

/**
 * A report's totals over some minutes: counts and wait histograms that add (never per-user data).
 * Immutable; {@link #plus} is associative and commutative.
 *
 * @param minutes minutes with a history row folded in
 * @param arrivals users newly placed in the queue
 * @param admissions users let in (from the queue or at once)
 * @param abandoned waiting users whose place stopped counting without admission
 * @param revoked sessions ended early
 * @param passesUsed admitted users whose first request after admission reached the origin
 * @param estimatedWaits the estimated waits shown on queue answers
 * @param realWaits the real waits of the users admitted (0 for users let in at once)
 */
public record ReportCounts(
    long minutes,
    long arrivals,
    long admissions,
    long abandoned,
    long revoked,
    long passesUsed,
    WaitHistogram estimatedWaits,
    WaitHistogram realWaits) {

  public static final ReportCounts EMPTY =
      new ReportCounts(0, 0, 0, 0, 0, 0, WaitHistogram.EMPTY, WaitHistogram.EMPTY);

  public ReportCounts {
    if (estimatedWaits == null) {
      estimatedWaits = WaitHistogram.EMPTY;
    }
    if (realWaits == null) {
      realWaits = WaitHistogram.EMPTY;
    }
  }

  /** One minute's row of a room's history (all data centers summed). */
  public static ReportCounts of(HistoryRow row) {
    MinuteActivity a = row.activity();
    return new ReportCounts(
        1,
        a.arrivals(),
        a.admissions(),
        row.abandoned() == null ? 0 : row.abandoned(),
        a.revoked(),
        a.passesUsed(),
        a.estimatedWaits(),
        a.realWaits());
  }

  public ReportCounts plus(ReportCounts o) {
    return new ReportCounts(
        minutes + o.minutes,
        arrivals + o.arrivals,
        admissions + o.admissions,
        abandoned + o.abandoned,
        revoked + o.revoked,
        passesUsed + o.passesUsed,
        estimatedWaits.plus(o.estimatedWaits),
        realWaits.plus(o.realWaits));
  }

  /**
   * Admitted users who never reached the origin with their admission: admissions minus passes used
   * (never below 0: a pass is counted in the minute it is used, which may follow the admission's).
   */
  public long noShows() {
    return Math.max(0, admissions - passesUsed);
  }

  /** The estimated wait shown at quantile {@code q}, in seconds (bucket upper bound). */
  public OptionalLong estimatedWaitSeconds(double q) {
    return estimatedWaits.percentileSeconds(q);
  }

  /** The real wait at quantile {@code q}, in seconds (bucket upper bound). */
  public OptionalLong realWaitSeconds(double q) {
    return realWaits.percentileSeconds(q);
  }
}
