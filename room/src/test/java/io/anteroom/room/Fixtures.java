package io.anteroom.room;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/** Builders shared by the tests: times, configs, reports and states. */
final class Fixtures {
  private Fixtures() {}

  static Instant at(String iso) {
    return Instant.parse(iso);
  }

  static long minute(String iso) {
    return Minutes.minuteOf(Instant.parse(iso));
  }

  static RoomConfig.Builder room(int t, int n) {
    return RoomConfig.builder("shop")
        .totalActiveUsers(t)
        .newUsersPerMinute(n)
        .sessionDurationMinutes(10);
  }

  /**
   * A report of {@code active} users expiring in {@code expiryMinute} and waiting users per bucket
   * at {@code now}.
   */
  static WorkerReport report(
      RoomConfig config,
      String dc,
      String worker,
      long seq,
      Instant now,
      long expiryMinute,
      long active,
      Map<Long, Long> waitingByBucket) {
    Tally t = new Tally();
    t.addActive(expiryMinute, active);
    long key = Counting.refreshSlotKey(now, config);
    waitingByBucket.forEach((b, w) -> t.addWaiting(b, key, w));
    return new WorkerReport(worker, seq, dc, now, t.toDeltas());
  }

  static WorkerReport deltas(String dc, String worker, long seq, Instant now, Tally t) {
    return new WorkerReport(worker, seq, dc, now, t.toDeltas());
  }

  /** A state with the given buckets (eligible slots as given) and averages; nothing active. */
  static RoomState state(
      Instant now, List<BucketState> buckets, double admissionsPerMinute, double abandonments) {
    long m = Minutes.minuteOf(now);
    return new RoomState(
        "dc",
        now,
        m,
        new java.util.TreeMap<>(),
        0,
        0,
        buckets,
        new java.util.TreeMap<>(),
        1,
        1,
        admissionsPerMinute,
        abandonments,
        0,
        null);
  }
}
