package io.anteroom.room;

/**
 * One waiting bucket in a {@link RoomState}: the users of one arrival minute still waiting and how
 * many of them the current free slots reach (oldest buckets first).
 *
 * @param bucketId the bucket's minute (minutes since the epoch)
 * @param waiting users of this bucket counted as waiting
 * @param eligibleSlots {@code clamp(freeSlots - waitingBefore(b), 0, waiting(b))}
 */
public record BucketState(long bucketId, long waiting, long eligibleSlots) {

  /** Every waiting user of the bucket has a slot: they may enter from any data center. */
  public boolean whole() {
    return waiting > 0 && eligibleSlots == waiting;
  }

  /** Some but not all users have a slot: they draw like new users. */
  public boolean partial() {
    return eligibleSlots > 0 && eligibleSlots < waiting;
  }

  /** Users not reached by the free slots: {@code waiting - eligibleSlots}. */
  public long notEligible() {
    return waiting - eligibleSlots;
  }
}
