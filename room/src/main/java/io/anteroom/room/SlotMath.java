package io.anteroom.room;

import io.anteroom.room.slots.SlotSplit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * Free slots, FIFO eligibility and the traffic-history split ({@code waiting-room.md}): each
 * formula once.
 */
final class SlotMath {
  private SlotMath() {}

  /** {@code freeSlots = max(0, min(T - activeUsers, N - admitted(m)))}. */
  static long freeSlots(RoomConfig config, long activeUsers, long admittedThisMinute) {
    return Math.max(
        0,
        Math.min(
            config.totalActiveUsers() - activeUsers,
            config.newUsersPerMinute() - admittedThisMinute));
  }

  /**
   * Gives free slots to the oldest buckets first: {@code eligible(b) = clamp(freeSlots -
   * waitingBefore(b), 0, waiting(b))}. Buckets with nobody waiting are left out. The bucket of the
   * current minute gets no slots: its users were queued because this minute's pool was spent on the
   * counters (which the state learns of only with the next reports), so they draw like new users
   * and get their eligible slots from the next minute on. (Giving them freeSlots within their own
   * minute spent the same slots twice: up to 1.8 × N in model runs.)
   */
  static List<BucketState> eligible(
      SortedMap<Long, Long> waitingByBucket, long freeSlots, long currentMinute) {
    List<BucketState> out = new ArrayList<>(waitingByBucket.size());
    long before = 0;
    for (Map.Entry<Long, Long> e : waitingByBucket.entrySet()) {
      long waiting = e.getValue();
      if (waiting <= 0) {
        continue;
      }
      long eligible =
          e.getKey() < currentMinute ? Math.max(0, Math.min(freeSlots - before, waiting)) : 0;
      out.add(new BucketState(e.getKey(), waiting, eligible));
      before += waiting;
    }
    return List.copyOf(out);
  }

  /**
   * Splits a pool by the users each data center saw in the history minute: {@code slots_dc =
   * floor(P × U_dc / max(T, U))}, {@code slots_anywhere = P - Σ slots_dc}. A data center absent
   * from the history gets only Anywhere slots.
   */
  static SlotSplit split(
      long pool, Map<String, Long> usersByDataCenter, int totalActiveUsers, String dataCenter) {
    long p = Math.max(0, pool);
    long total = 0;
    for (long u : usersByDataCenter.values()) {
      total += Math.max(0, u);
    }
    long denominator = Math.max(totalActiveUsers, total);
    long allDataCenters = 0;
    long mine = 0;
    for (Map.Entry<String, Long> e : usersByDataCenter.entrySet()) {
      long slots = Math.floorDiv(p * Math.max(0, e.getValue()), denominator);
      allDataCenters += slots;
      if (e.getKey().equals(dataCenter)) {
        mine = slots;
      }
    }
    return new SlotSplit(mine, p - allDataCenters);
  }
}
