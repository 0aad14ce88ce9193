package io.anteroom.door.queue;

import io.anteroom.room.BucketState;
import io.anteroom.room.RoomState;

/**
 * When a held poll of the queue page is told to try again at once ({@link HeldPolls}): the rule of
 * the push, the same for every server adapter.
 *
 * <p>A waiting user of bucket {@code b} can be let in on its next request when the room's free
 * slots reach past everyone waiting in older buckets: {@code freeSlots > waitingBefore(b)}, the
 * room core's own test for eligible slots ({@code eligible(b) = clamp(freeSlots - waitingBefore(b),
 * 0, waiting(b))}); a user of the state's current minute, or of a bucket not counted yet, then
 * draws like a new user. At most {@code freeSlots - waitingBefore(b)} users of the bucket are woken
 * per state: the others of a partial bucket would only be queued again.
 *
 * <p>The push never admits: it tells the page to reload, and that request goes through the door
 * like any refresh, under the same rules and limits (the counters, whole-bucket draws, failMode). A
 * wake that the refresh then refuses costs one request; at most one per room state per user.
 */
public final class EntryRule {
  private EntryRule() {}

  /**
   * How many waiting users of {@code bucketId} may be told to try again with {@code state}: {@code
   * max(0, freeSlots - waitingBefore(b))}; 0 while the room queues everyone ({@code paused}).
   */
  public static long entries(RoomState state, long bucketId, boolean paused) {
    if (paused) {
      return 0;
    }
    long before = 0;
    for (BucketState b : state.buckets()) {
      if (b.bucketId() < bucketId) {
        before += b.waiting();
      }
    }
    return Math.max(0, state.freeSlots() - before);
  }
}
