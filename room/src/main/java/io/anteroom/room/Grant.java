package io.anteroom.room;

/**
 * A counter's answer to {@code take(limit)}.
 *
 * @param minute the minute the number belongs to
 * @param number the number drawn (the count before this call); -1 when the minute is already over
 * @param granted whether {@code number + carried < limit}
 * @param carried the previous minute's numbers counted against the limit ({@link
 *     MinuteCounter#take(long, long, java.time.Instant, java.time.Instant)}): its late admissions,
 *     which the state behind the draw's pool may not count yet
 */
public record Grant(long minute, long number, boolean granted, long carried) {

  /** An answer that carried nothing from the previous minute. */
  public Grant(long minute, long number, boolean granted) {
    this(minute, number, granted, 0);
  }

  /**
   * What to pass to {@link RoomWorker#onCounterReply} when the counter could not be reached: a
   * refusal.
   */
  public static Grant unavailable(long minute) {
    return new Grant(minute, -1, false);
  }
}
