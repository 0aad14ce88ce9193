package io.anteroom.room;

import java.time.Instant;
import java.util.Map;
import java.util.SortedMap;

/**
 * How the delta ledgers turn into counts ({@code waiting-room.md}, "Counting without per-user
 * state"). The only place where active users, waiting users, refresh-slot keys, abandonments and
 * the per-minute averages are computed.
 */
final class Counting {
  /** Admissions and abandonments per minute are means over this many complete minutes. */
  static final int AVERAGE_MINUTES = 3;

  /** Spec: a refresh key stays alive for about three missed refreshes. */
  static final int REFRESH_SLOTS_ALIVE = 3;

  private Counting() {}

  /**
   * {@code activeUsers(t) = Σ_{e > m} H[e] + ceil(H[m] × (1 - f))}; with published rules only
   * {@code e > m} counts. The ceiling makes {@code T - activeUsers(t)} equal the pool's {@code R +
   * floor(E × f)} refill exactly. Never negative.
   */
  static long activeUsers(SortedMap<Long, Long> activeByExpiryMinute, Instant t, Rules rules) {
    long m = Minutes.minuteOf(t);
    long later = 0;
    for (long v : activeByExpiryMinute.tailMap(m + 1).values()) {
      later += v;
    }
    long current = Math.max(0, activeByExpiryMinute.getOrDefault(m, 0L));
    long releasing = rules.proRataRelease() ? Minutes.ceilTimesRemaining(current, t) : 0;
    return Math.max(0, later + releasing);
  }

  /** The refresh slot of instant {@code t}: {@code floor(t / R)}. */
  static long refreshSlot(Instant t, RoomConfig config) {
    return Math.floorDiv(t.getEpochSecond(), config.queueRefreshSeconds());
  }

  /**
   * The key a waiting user refreshing at {@code t} is counted under: {@code floor(t / R) + 3}; with
   * published rules {@code floor(t / R) + ceil(queueTimeout / R)}, so it counts until the queue
   * timeout.
   */
  static long refreshSlotKey(Instant t, RoomConfig config) {
    long r = config.queueRefreshSeconds();
    long lifetime =
        config.rules().refreshSlotWaiting()
            ? REFRESH_SLOTS_ALIVE
            : Math.ceilDiv(config.queueTimeout().toSeconds(), r);
    return refreshSlot(t, config) + lifetime;
  }

  /** A key counts while it is {@code > floor(now / R)}. */
  static boolean alive(long refreshSlotKey, Instant now, RoomConfig config) {
    return refreshSlotKey > refreshSlot(now, config);
  }

  /** The minute in which a key stops counting (at time {@code key × R}). */
  static long expiryMinuteOf(long refreshSlotKey, RoomConfig config) {
    return Math.floorDiv(refreshSlotKey * config.queueRefreshSeconds(), 60);
  }

  /** Users of one bucket still counted as waiting at {@code now}; never negative. */
  static long waiting(SortedMap<Long, Long> keysOfBucket, Instant now, RoomConfig config) {
    long sum = 0;
    for (long v : keysOfBucket.tailMap(refreshSlot(now, config) + 1).values()) {
      sum += v;
    }
    return Math.max(0, sum);
  }

  /**
   * Waiting users whose keys stopped counting during {@code minute} without an admission or
   * refresh.
   */
  static long abandonments(
      SortedMap<Long, SortedMap<Long, Long>> waitingByBucket, long minute, RoomConfig config) {
    long sum = 0;
    for (SortedMap<Long, Long> keys : waitingByBucket.values()) {
      for (Map.Entry<Long, Long> e : keys.entrySet()) {
        if (expiryMinuteOf(e.getKey(), config) == minute) {
          sum += Math.max(0, e.getValue());
        }
      }
    }
    return sum;
  }

  /** Mean admissions of the last three complete minutes before {@code minute}. */
  static double admissionsPerMinute(SortedMap<Long, Long> admissionsByMinute, long minute) {
    long sum = 0;
    for (int i = 1; i <= AVERAGE_MINUTES; i++) {
      sum += Math.max(0, admissionsByMinute.getOrDefault(minute - i, 0L));
    }
    return (double) sum / AVERAGE_MINUTES;
  }

  /** Mean abandonments of the last three complete minutes before {@code minute}. */
  static double abandonmentsPerMinute(
      SortedMap<Long, SortedMap<Long, Long>> waitingByBucket, long minute, RoomConfig config) {
    long sum = 0;
    for (int i = 1; i <= AVERAGE_MINUTES; i++) {
      sum += abandonments(waitingByBucket, minute - i, config);
    }
    return (double) sum / AVERAGE_MINUTES;
  }
}
