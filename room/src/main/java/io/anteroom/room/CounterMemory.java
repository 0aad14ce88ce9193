package io.anteroom.room;

import java.time.Instant;
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

  /** Per counter: the {@code carriedSince} of its last answer, and what it carried for it. */
  private final Map<CounterKey, Carried> carried = new HashMap<>();

  private long minute = Long.MIN_VALUE;

  private record Carried(Instant since, long numbers) {}

  public CounterMemory(Rules rules) {
    this.enabled = rules.consumeOnlyWhenGranted();
  }

  /**
   * Whether the counter of {@code draw} has already answered a number that, with what it carries
   * for the draw, is at or above its limit; never for a refusal whose number would set the
   * decision's Anywhere limit while the Anywhere counter may still grant ({@link
   * #setsTheAnywhereLimit}).
   */
  public synchronized boolean refuses(Decision.Draw draw) {
    if (!enabled
        || draw.counter().minute() != minute
        || (setsTheAnywhereLimit(draw) && !anywhereSpent(draw))) {
      return false;
    }
    Long count = counts.get(draw.counter());
    Long carriedNumbers = carriedFor(draw);
    return count != null && carriedNumbers != null && count + carriedNumbers >= draw.limit();
  }

  /**
   * Whether the refusal's number sets the limit of the decision's next draw: a new user's (or the
   * partial bucket's) draw on its data center's counter whose Anywhere limit is left, which leaves
   * out what the data center gave beyond this draw's share ({@link RoomWorker#onCounterReply}). The
   * memory holds only the highest number this gateway was answered; the data center's other
   * gateways may have drawn more since (whole-bucket users draw against all of the pool), so a
   * remembered number could leave their numbers in the Anywhere limit. Such a draw asks the counter
   * (a call in its own data center, before the Anywhere call it makes anyway); a refusal that ends
   * the decision, as in a full room, is still answered here.
   */
  private static boolean setsTheAnywhereLimit(Decision.Draw draw) {
    return !draw.wholeBucket && draw.anywhereLimit > 0 && !draw.counter().isAnywhere();
  }

  /**
   * Whether the Anywhere counter already answered a number at or above the draw's whole Anywhere
   * limit: it refuses whatever the data center's number takes off that limit, so the refusal here
   * can be answered without a call (a full room whose state does not count its last admissions yet:
   * every refresh of the first user in its queue would otherwise be a call).
   */
  private boolean anywhereSpent(Decision.Draw draw) {
    Long count = counts.get(CounterKey.anywhere(draw.counter().roomId(), minute));
    return count != null && count >= draw.anywhereLimit;
  }

  /**
   * What the counter of {@code draw} carries for it, if known: nothing when the draw's pool state
   * is {@code W} into the minute (or nothing is carried at all); otherwise what the counter
   * answered for the same {@code carriedSince} (the previous minute's numbers do not change once it
   * is over), or {@code null} when it has not answered for it. What a counter carries sets the
   * Anywhere limit left and whether a whole-bucket user enters without a number ({@link
   * RoomWorker#onCounterReply}): a remembered refusal that carried nothing let a data center's late
   * numbers beyond its share stay in the Anywhere limit.
   */
  private Long carriedFor(Decision.Draw draw) {
    Instant since = draw.carriedSince();
    if (since == null || !since.isBefore(Minutes.startOf(draw.counter().minute()))) {
      return 0L;
    }
    Carried c = carried.get(draw.counter());
    return c != null && c.since().equals(since) ? c.numbers() : null;
  }

  /** The refusal the counter of {@code draw} would answer; only after {@link #refuses} said so. */
  public synchronized Grant refusal(Decision.Draw draw) {
    if (!refuses(draw)) {
      throw new IllegalStateException("no refusal is known for " + draw);
    }
    return new Grant(draw.counter().minute(), counts.get(draw.counter()), false, carriedFor(draw));
  }

  /** Remembers the counter's answer to {@code draw}; answers of past minutes are dropped. */
  public synchronized void answered(Decision.Draw draw, Grant grant) {
    long m = draw.counter().minute();
    if (!enabled || grant.number() < 0 || grant.minute() != m || m < minute) {
      return;
    }
    if (m > minute) {
      counts.clear();
      carried.clear();
      minute = m;
    }
    long count = grant.granted() ? grant.number() + 1 : grant.number();
    counts.merge(draw.counter(), count, Math::max);
    if (draw.carriedSince() != null) {
      carried.put(draw.counter(), new Carried(draw.carriedSince(), grant.carried()));
    }
  }
}
