package io.anteroom.room;

import java.util.HashMap;
import java.util.Map;

/**
 * What the counters of the current minute have answered, so that a {@link Decision.Draw} a counter
 * must refuse is not sent to it. Within its minute a counter's count only grows (grants and
 * charges), so once it answered number {@code n}, every later draw on it in that minute with a
 * limit of at most {@code n} is refused: {@link #refuses} says so without asking, and {@link
 * #refusal} is the answer to hand to {@link RoomWorker#onCounterReply}. Without it, every request
 * of a user first in a full room's queue is a call to the coordinator, however often that user (or
 * a script holding its ticket) refreshes.
 *
 * <p>Only with rules whose counters consume a number only when they grant ({@link
 * Rules#consumeOnlyWhenGranted}): where a refused call consumes a number too, leaving it out would
 * change later answers, so the memory then refuses nothing. A counter that lost its last numbers in
 * a crash may answer lower than remembered: the memory then refuses where it might have granted,
 * for the rest of that minute at most; it never lets more in.
 *
 * <p>Thread-safe: every method is {@code synchronized}; it holds the counters of one minute only.
 */
public final class CounterMemory {
  private final boolean enabled;
  private final Map<CounterKey, Long> counts = new HashMap<>();
  private long minute = Long.MIN_VALUE;

  public CounterMemory(Rules rules) {
    this.enabled = rules.consumeOnlyWhenGranted();
  }

  /** Whether the counter of {@code draw} has already answered a number at or above its limit. */
  public synchronized boolean refuses(Decision.Draw draw) {
    if (!enabled || draw.counter().minute() != minute || mayBeCarried(draw)) {
      return false;
    }
    Long count = counts.get(draw.counter());
    return count != null && count >= draw.limit();
  }

  /**
   * A whole-bucket draw whose counter may carry the previous minute's late admissions: whether it
   * does decides whether the user enters without a number ({@link RoomWorker#onCounterReply}), and
   * only the counter knows. Such draws are few (at most a whole bucket's count per minute start).
   */
  private static boolean mayBeCarried(Decision.Draw draw) {
    return draw.wholeBucket
        && draw.carriedSince() != null
        && draw.carriedSince().isBefore(Minutes.startOf(draw.counter().minute()));
  }

  /** The refusal the counter of {@code draw} would answer; only after {@link #refuses} said so. */
  public synchronized Grant refusal(Decision.Draw draw) {
    Long count = counts.get(draw.counter());
    if (!refuses(draw) || count == null) {
      throw new IllegalStateException("no refusal is known for " + draw);
    }
    return new Grant(draw.counter().minute(), count, false);
  }

  /** Remembers the counter's answer to {@code draw}; answers of past minutes are dropped. */
  public synchronized void answered(Decision.Draw draw, Grant grant) {
    long m = draw.counter().minute();
    if (!enabled || grant.number() < 0 || grant.minute() != m || m < minute) {
      return;
    }
    if (m > minute) {
      counts.clear();
      minute = m;
    }
    long count = grant.granted() ? grant.number() + 1 : grant.number();
    counts.merge(draw.counter(), count, Math::max);
  }
}
