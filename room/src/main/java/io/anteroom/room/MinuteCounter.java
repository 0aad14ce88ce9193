package io.anteroom.room;

/**
 * The counter rule of a counter object, pure: {@code take(minute, limit)} hands out the minute's
 * next number and grants it when it is below {@code limit}. With spec rules a refusal consumes
 * nothing (so refusals never waste slots); with published rules every call consumes a number.
 * Numbers restart when a later minute is asked for; a call for a minute that is already over is
 * refused and consumes nothing, so a late state update never re-grants what was spent. Used by the
 * counter objects, by workers for their local counts, and by the simulator.
 *
 * <p>Invariant: calls are serialized ({@code synchronized}); {@code count} only grows within a
 * minute.
 *
 * <pre>{@code
 * MinuteCounter c = new MinuteCounter(Rules.spec());
 * c.take(minute, 2).granted();   // true  (number 0)
 * c.take(minute, 2).granted();   // true  (number 1)
 * c.take(minute, 2).granted();   // false (nothing consumed)
 * }</pre>
 */
public final class MinuteCounter {
  private final boolean consumeOnlyWhenGranted;
  private long minute = Long.MIN_VALUE;
  private long count;

  public MinuteCounter(Rules rules) {
    this.consumeOnlyWhenGranted = rules.consumeOnlyWhenGranted();
  }

  /**
   * Draws the next number of {@code minute}; consumes it when granted (always, with published
   * rules).
   */
  public synchronized Grant take(long minute, long limit) {
    if (minute < this.minute) {
      return Grant.unavailable(minute);
    }
    if (minute > this.minute) {
      this.minute = minute;
      this.count = 0;
    }
    long number = count;
    boolean granted = number < limit;
    if (granted || !consumeOnlyWhenGranted) {
      count++;
    }
    return new Grant(minute, number, granted);
  }

  /**
   * Counts {@code admissions} that were made in {@code minute} without a number (while the counter
   * could not be reached: {@code failMode} degrade or open), so that the minute does not hand their
   * slots out again. The counter absorbs them up to {@code limit} numbers in all (those it has left
   * under the limit the caller's share has now) and returns how many it could not absorb, for the
   * next counter in line; a charge for a minute that is already over absorbs nothing and returns 0
   * (from the next minute on, those users count as sessions in the room's state).
   */
  public synchronized long charge(long minute, long admissions, long limit) {
    if (admissions <= 0 || minute < this.minute) {
      return 0;
    }
    if (minute > this.minute) {
      this.minute = minute;
      this.count = 0;
    }
    long absorbed = Math.min(admissions, Math.max(0, limit - count));
    count += absorbed;
    return admissions - absorbed;
  }

  /** Numbers consumed in {@code minute} so far. */
  public synchronized long consumed(long minute) {
    return minute == this.minute ? count : 0;
  }

  /** Restores a counter's position (after a restart of the object holding it). */
  public synchronized void restore(long minute, long count) {
    if (minute > this.minute || (minute == this.minute && count > this.count)) {
      this.minute = minute;
      this.count = count;
    }
  }

  /** The minute the counter is at. */
  public synchronized long minute() {
    return minute;
  }
}
