package io.anteroom.room.history;

import com.fasterxml.jackson.annotation.JsonIgnore;

/**
 * What admission points saw of a room in one minute, as counts that add across reporters: a
 * worker's delta, a data center's sum of its workers' deltas, or the room's sum over data centers.
 * Adding is associative and commutative. Immutable.
 *
 * @param arrivals users newly placed in the queue (not a waiting user's refresh)
 * @param admissions users let in (from the queue or at once)
 * @param revoked sessions ended early (logout, revoked ticket)
 * @param estimatesShown queue answers that carried a known estimated wait
 * @param estimatedWaitMinutesSum the sum of those estimates, in minutes (their mean is the
 *     estimated wait shown that minute)
 * @param realWaits the real waits of the users admitted that minute (0 for users let in at once)
 * @param estimatedWaits the estimated waits shown on queue answers, as a histogram (for their
 *     percentiles in reports; null from an older sender: none)
 * @param passesUsed admitted users whose first request after admission reached the origin (the door
 *     passed it with the signed pass), counted once per admission
 */
public record MinuteActivity(
    long arrivals,
    long admissions,
    long revoked,
    long estimatesShown,
    double estimatedWaitMinutesSum,
    WaitHistogram realWaits,
    WaitHistogram estimatedWaits,
    long passesUsed) {

  public static final MinuteActivity EMPTY =
      new MinuteActivity(0, 0, 0, 0, 0, WaitHistogram.EMPTY, WaitHistogram.EMPTY, 0);

  /** Activity without estimate percentiles or passes (the fields older reporters send). */
  public MinuteActivity(
      long arrivals,
      long admissions,
      long revoked,
      long estimatesShown,
      double estimatedWaitMinutesSum,
      WaitHistogram realWaits) {
    this(
        arrivals,
        admissions,
        revoked,
        estimatesShown,
        estimatedWaitMinutesSum,
        realWaits,
        WaitHistogram.EMPTY,
        0);
  }

  /** One admitted user's first request that reached the origin. */
  public static final MinuteActivity PASS_USED =
      new MinuteActivity(0, 0, 0, 0, 0, WaitHistogram.EMPTY, WaitHistogram.EMPTY, 1);

  public MinuteActivity {
    if (realWaits == null) {
      realWaits = WaitHistogram.EMPTY;
    }
    if (estimatedWaits == null) {
      estimatedWaits = WaitHistogram.EMPTY;
    }
    if (arrivals < 0 || admissions < 0 || revoked < 0 || estimatesShown < 0 || passesUsed < 0) {
      throw new IllegalArgumentException(
          "minute activity: counts cannot be negative (arrivals "
              + arrivals
              + ", admissions "
              + admissions
              + ", revoked "
              + revoked
              + ", estimatesShown "
              + estimatesShown
              + ", passesUsed "
              + passesUsed
              + ")");
    }
    if (!(estimatedWaitMinutesSum >= 0) || Double.isInfinite(estimatedWaitMinutesSum)) {
      throw new IllegalArgumentException(
          "minute activity: estimatedWaitMinutesSum must be finite and >= 0, found "
              + estimatedWaitMinutesSum);
    }
  }

  /** The sum of both. */
  public MinuteActivity plus(MinuteActivity o) {
    return new MinuteActivity(
        arrivals + o.arrivals,
        admissions + o.admissions,
        revoked + o.revoked,
        estimatesShown + o.estimatesShown,
        estimatedWaitMinutesSum + o.estimatedWaitMinutesSum,
        realWaits.plus(o.realWaits),
        estimatedWaits.plus(o.estimatedWaits),
        passesUsed + o.passesUsed);
  }

  @JsonIgnore
  public boolean isEmpty() {
    return arrivals == 0
        && admissions == 0
        && revoked == 0
        && estimatesShown == 0
        && realWaits.isEmpty()
        && estimatedWaits.isEmpty()
        && passesUsed == 0;
  }
}
