package io.anteroom.room;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Turns summed deltas of all data centers into the {@link RoomState} a data center's workers decide
 * with.
 */
final class RoomStates {
  private RoomStates() {}

  /**
   * @param sum the sum of all data centers' totals
   * @param trafficByDc each data center's traffic per minute
   * @param pool the data center's pool of {@code now}'s minute (revised by this state), or {@code
   *     null} to fix it from this state
   */
  static RoomState compute(
      RoomConfig config,
      String dataCenter,
      Deltas sum,
      Map<String, SortedMap<Long, Long>> trafficByDc,
      int dcWorkers,
      int globalWorkers,
      Instant now,
      MinutePool pool) {
    long m = Minutes.minuteOf(now);
    long active = Counting.activeUsers(sum.activeByExpiryMinute(), now, config.rules());
    long admitted = Math.max(0, sum.admissionsByMinute().getOrDefault(m, 0L));
    long uncounted = Math.max(0, sum.uncountedByMinute().getOrDefault(m, 0L));
    long free = SlotMath.freeSlots(config, active, admitted);
    TreeMap<Long, Long> waiting = new TreeMap<>();
    sum.waitingByBucket()
        .forEach((bucket, keys) -> waiting.put(bucket, Counting.waiting(keys, now, config)));
    List<BucketState> buckets = SlotMath.eligible(waiting, free, m);
    TreeMap<Long, Map<String, Long>> history = new TreeMap<>();
    long oldest = m - config.historyLagMinutes() - 1;
    trafficByDc.forEach(
        (dc, perMinute) ->
            perMinute
                .tailMap(oldest)
                .forEach(
                    (minute, users) -> {
                      if (users > 0) {
                        history.computeIfAbsent(minute, x -> new TreeMap<>()).put(dc, users);
                      }
                    }));
    RoomState state =
        new RoomState(
            dataCenter,
            now,
            m,
            sum.activeByExpiryMinute().tailMap(m),
            active,
            admitted,
            buckets,
            history,
            dcWorkers,
            globalWorkers,
            Counting.admissionsPerMinute(sum.admissionsByMinute(), m),
            Counting.abandonmentsPerMinute(sum.waitingByBucket(), m, config),
            free,
            null,
            uncounted);
    MinutePool fixed =
        pool != null && pool.minute() == m
            ? pool.revisedBy(state, config)
            : MinutePool.of(m, state, config);
    return state.withPool(fixed);
  }
}
