package io.anteroom.room;

import java.time.Instant;
import java.util.Arrays;

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

  /** The minute's consumed numbers by the second they were consumed in (0-59). */
  private long[] bySecond = new long[60];

  /** The same for the minute before {@link #minute}, or zeros when the counter skipped it. */
  private long[] previousBySecond = new long[60];

  public MinuteCounter(Rules rules) {
    this.consumeOnlyWhenGranted = rules.consumeOnlyWhenGranted();
  }

  /**
   * Draws the next number of {@code minute}; consumes it when granted (always, with published
   * rules).
   */
  public synchronized Grant take(long minute, long limit) {
    return take(minute, limit, null, null);
  }

  /**
   * Draws the next number of {@code minute} against {@code limit} less the numbers this counter
   * consumed in the previous minute at or after {@code carriedSince}: the admissions a pool
   * computed from a state of {@code carriedSince + W} may not count yet ({@link
   * Decision.Draw#carriedSince}). A burst in a minute's last seconds is thus not offered again by
   * the next minute's pool, whose state cannot count it yet. {@code now} is when the number is
   * consumed (the counter's clock).
   *
   * @param carriedSince {@code null} to carry nothing (the published rules, local counts)
   * @param now when this call is answered; {@code null} when nothing is carried
   */
  public synchronized Grant take(long minute, long limit, Instant carriedSince, Instant now) {
    if (minute < this.minute) {
      return Grant.unavailable(minute);
    }
    moveTo(minute);
    long carried = carried(minute, carriedSince);
    long number = count;
    boolean granted = number + carried < limit;
    if (granted || !consumeOnlyWhenGranted) {
      consume(1, now);
    }
    return new Grant(minute, number, granted, carried);
  }

  /** {@link #take(long, long, Instant, Instant)} for {@code draw}, answered at {@code now}. */
  public Grant take(Decision.Draw draw, Instant now) {
    return take(draw.counter().minute(), draw.limit(), draw.carriedSince(), now);
  }

  /**
   * The numbers of the minute before {@code minute} consumed at or after {@code since} (by whole
   * seconds, rounded so that the count never falls short): all of them for a {@code since} before
   * that minute, none for one within {@code minute}.
   */
  private long carried(long minute, Instant since) {
    if (since == null) {
      return 0;
    }
    long previousStart = Minutes.startOf(minute - 1).toEpochMilli();
    long fromSecond = Math.floorDiv(since.toEpochMilli() - previousStart, 1000);
    return Arrays.stream(previousBySecond, (int) Math.min(60, Math.max(0, fromSecond)), 60).sum();
  }

  private void moveTo(long minute) {
    if (minute > this.minute) {
      long[] last = bySecond;
      bySecond = new long[60];
      previousBySecond = minute == this.minute + 1 ? last : new long[60];
      this.minute = minute;
      this.count = 0;
    }
  }

  /**
   * Consumes {@code n} numbers of the current minute at {@code at}, clamped into the minute (a
   * number consumed after its minute counts at its last second, where it is carried the most);
   * {@code null}: the last second.
   */
  private void consume(long n, Instant at) {
    count += n;
    long start = Minutes.startOf(minute).toEpochMilli();
    long second = at == null ? 59 : Math.floorDiv(at.toEpochMilli() - start, 1000);
    bySecond[(int) Math.min(59, Math.max(0, second))] += n;
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
    return charge(minute, admissions, limit, null);
  }

  /** {@link #charge(long, long, long)}, the absorbed numbers consumed at {@code now}. */
  public synchronized long charge(long minute, long admissions, long limit, Instant now) {
    if (admissions <= 0 || minute < this.minute) {
      return 0;
    }
    moveTo(minute);
    long absorbed = Math.min(admissions, Math.max(0, limit - count));
    consume(absorbed, now);
    return admissions - absorbed;
  }

  /** Numbers consumed in {@code minute} so far. */
  public synchronized long consumed(long minute) {
    return minute == this.minute ? count : 0;
  }

  /**
   * What a counter object saves: the minute, its count, and the numbers consumed per second of it
   * and of the minute before, so that a restored counter carries exactly what it would have.
   *
   * @param bySecond 60 counts, or {@code null} (a position saved before counters carried)
   * @param previousBySecond the same for {@code minute - 1}, or {@code null}
   */
  public record Snapshot(long minute, long count, long[] bySecond, long[] previousBySecond) {}

  /** The counter's position, for {@link #restore(Snapshot, Instant)}. */
  public synchronized Snapshot snapshot() {
    return new Snapshot(minute, count, bySecond.clone(), previousBySecond.clone());
  }

  /**
   * Restores a saved position (a counter object restarted or rebuilt). A snapshot without
   * per-second counts restores them as consumed at {@code now} ({@link #restore(long, long,
   * Instant)}).
   */
  public synchronized void restore(Snapshot saved, Instant now) {
    if (!wellFormed(saved.bySecond())
        || !wellFormed(saved.previousBySecond())
        || Arrays.stream(saved.bySecond()).sum() != saved.count()) {
      // missing (an older version's position) or damaged: carried from now, never fewer
      restore(saved.minute(), saved.count(), now);
      return;
    }
    if (saved.minute() > minute || (saved.minute() == minute && saved.count() > count)) {
      minute = saved.minute();
      count = saved.count();
      bySecond = saved.bySecond().clone();
      previousBySecond = saved.previousBySecond().clone();
    }
  }

  /** 60 counts, none negative. */
  private static boolean wellFormed(long[] perSecond) {
    return perSecond != null
        && perSecond.length == 60
        && Arrays.stream(perSecond).allMatch(n -> n >= 0);
  }

  /**
   * Restores a counter's position (after a restart of the object holding it). The restored numbers
   * count as consumed at {@code now} (they were consumed at or before it, so the next minute
   * carries no fewer of them); {@code null}: at the minute's last second.
   */
  public synchronized void restore(long minute, long count, Instant now) {
    if (minute > this.minute) {
      moveTo(minute);
    }
    if (minute == this.minute && count > this.count) {
      consume(count - this.count, now);
    }
  }

  /**
   * {@link #restore(long, long, Instant)} with the restored numbers at the minute's last second.
   */
  public synchronized void restore(long minute, long count) {
    restore(minute, count, null);
  }

  /** The minute the counter is at. */
  public synchronized long minute() {
    return minute;
  }
}
