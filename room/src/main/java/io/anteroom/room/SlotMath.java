package io.anteroom.room;

import io.anteroom.room.slots.SlotSplit;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

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
   * Splits a pool {@code P} by the users each data center saw in the history minute, so that every
   * share (each data center's and Anywhere's) never falls as {@code P} grows, the shares add up to
   * exactly {@code P}, and every worker of every process computes the same split from the same
   * inputs:
   *
   * <pre>{@code
   * U              = Σ max(0, U_dc),  D = max(T, U)
   * H              = floor(P × U / D)            (0 when U = 0: all of P is Anywhere)
   * slots_anywhere = P - H = ceil(P × (D - U) / D)
   * slots_dc       = the data center's seats when the H seats go to the data centers by D'Hondt
   *                  (Jefferson): seat after seat to the largest U_dc / (slots_dc + 1), a tie to
   *                  the name that sorts first; computed as the lower quotas floor(H × U_dc / U)
   *                  (the sequence's first seats) and then the fewer than k seats left, one by one
   * }</pre>
   *
   * <p>The spec's {@code slots_dc = floor(P × U_dc / D)}, with Anywhere the remainder, lets
   * Anywhere's share fall by one as {@code P} grows by one (P = 9 at 50/50 with U = T: 4 + 4 + 1; P
   * = 10: 5 + 5 + 0), and a counter that granted under the higher share keeps those numbers: one
   * admission more than the pool. Here {@code H} and {@code P - H} never fall as {@code P} grows,
   * and D'Hondt's seats never fall as {@code H} grows (house monotone). A data center gets at least
   * the spec's {@code floor(P × U_dc / D)} (every quotient {@code >= D / P} is among the first
   * {@code H} seats) and Anywhere at most the spec's remainder. A data center absent from the
   * history or with {@code U_dc <= 0} gets only Anywhere slots.
   */
  static SlotSplit split(
      long pool, Map<String, Long> usersByDataCenter, int totalActiveUsers, String dataCenter) {
    long p = Math.max(0, pool);
    TreeMap<String, Long> seen = new TreeMap<>();
    long total = 0;
    for (Map.Entry<String, Long> e : usersByDataCenter.entrySet()) {
      long u = e.getValue() == null ? 0 : e.getValue();
      if (u > 0) {
        seen.put(e.getKey(), u);
        total = Math.addExact(total, u);
      }
    }
    if (total == 0 || p == 0) {
      return new SlotSplit(0, p);
    }
    long historyShare = floorMulDiv(p, total, Math.max(totalActiveUsers, total));
    int k = seen.size();
    String[] names = seen.keySet().toArray(new String[k]);
    long[] users = new long[k];
    long[] seats = new long[k];
    long given = 0;
    for (int i = 0; i < k; i++) {
      users[i] = seen.get(names[i]);
      seats[i] = floorMulDiv(historyShare, users[i], total);
      given += seats[i];
    }
    for (; given < historyShare; given++) {
      int best = 0;
      for (int i = 1; i < k; i++) {
        // U_i / (a_i + 1) > U_best / (a_best + 1); on a tie the earlier name (best) keeps it
        if (compareProducts(users[i], seats[best] + 1, users[best], seats[i] + 1) > 0) {
          best = i;
        }
      }
      seats[best]++;
    }
    int mine = java.util.Arrays.binarySearch(names, dataCenter);
    return new SlotSplit(mine >= 0 ? seats[mine] : 0, p - historyShare);
  }

  /** {@code floor(a × b / c)} for {@code a, b >= 0}, {@code c > 0}, exact also past 2^63. */
  private static long floorMulDiv(long a, long b, long c) {
    long high = Math.multiplyHigh(a, b);
    long low = a * b;
    if (high == 0 && low >= 0) {
      return low / c;
    }
    return BigInteger.valueOf(a)
        .multiply(BigInteger.valueOf(b))
        .divide(BigInteger.valueOf(c))
        .longValueExact();
  }

  /** Compares {@code a × b} with {@code c × d} exactly, for non-negative factors. */
  private static int compareProducts(long a, long b, long c, long d) {
    int high = Long.compare(Math.multiplyHigh(a, b), Math.multiplyHigh(c, d));
    return high != 0 ? high : Long.compareUnsigned(a * b, c * d);
  }
}
