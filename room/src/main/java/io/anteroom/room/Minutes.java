package io.anteroom.room;

import java.time.Instant;

/**
 * Minute buckets and refresh slots: UTC minutes since the epoch, floors everywhere (also before
 * 1970).
 */
final class Minutes {
  static final long MILLIS_PER_MINUTE = 60_000;

  private Minutes() {}

  /**
   * The minute (floor) containing {@code t}: also a user's {@code bucketId} when {@code t} is its
   * first arrival.
   */
  static long minuteOf(Instant t) {
    return Math.floorDiv(t.toEpochMilli(), MILLIS_PER_MINUTE);
  }

  /** Milliseconds already elapsed in {@code t}'s minute: {@code f = millisIntoMinute / 60 000}. */
  static long millisIntoMinute(Instant t) {
    return Math.floorMod(t.toEpochMilli(), MILLIS_PER_MINUTE);
  }

  static Instant startOf(long minute) {
    return Instant.ofEpochMilli(minute * MILLIS_PER_MINUTE);
  }

  /** {@code floor(x × f)} exactly, with {@code f} the elapsed fraction of {@code t}'s minute. */
  static long floorTimesElapsed(long x, Instant t) {
    return Math.floorDiv(x * millisIntoMinute(t), MILLIS_PER_MINUTE);
  }

  /** {@code ceil(x × (1 - f))} exactly. */
  static long ceilTimesRemaining(long x, Instant t) {
    return x - floorTimesElapsed(x, t);
  }
}
