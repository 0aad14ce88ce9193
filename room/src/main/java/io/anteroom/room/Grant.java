package io.anteroom.room;

/**
 * A counter's answer to {@code take(limit)}.
 *
 * @param minute the minute the number belongs to
 * @param number the number drawn (the count before this call); -1 when the minute is already over
 * @param granted whether {@code number < limit}
 */
public record Grant(long minute, long number, boolean granted) {

  /**
   * What to pass to {@link RoomWorker#onCounterReply} when the counter could not be reached: a
   * refusal.
   */
  public static Grant unavailable(long minute) {
    return new Grant(minute, -1, false);
  }
}
