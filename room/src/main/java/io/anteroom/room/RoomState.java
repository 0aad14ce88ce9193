package io.anteroom.room;

import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What a worker decides with: computed by its data center's coordinator from the global aggregate
 * plus the data center's own fresh data, cached in every worker, a few seconds old at most.
 * Immutable; build one with {@link DataCenterLedger#roomState} (or {@link #initial} before any
 * coordinator answered).
 *
 * @param dataCenter the data center this state was computed for
 * @param asOf when it was computed
 * @param minute the minute it is valid for ({@code asOf}'s)
 * @param activeByExpiryMinute the global histogram {@code H[e]} for {@code e ≥ minute}, so a worker
 *     can compute the pool of a later minute and the pro-rata release at any instant
 * @param activeUsers {@code activeUsers(asOf)}
 * @param newUsersThisMinute admissions in {@code minute} so far
 * @param buckets waiting buckets, oldest first, with their eligible slots
 * @param trafficHistory per minute: distinct users per data center
 * @param dataCenterWorkersActive workers of this data center that reported within 30 s
 * @param globalWorkersActive workers of all data centers that reported within 30 s
 * @param admissionsPerMinute mean admissions of the last 3 complete minutes
 * @param abandonmentsPerMinute mean abandonments of the last 3 complete minutes
 * @param freeSlots {@code freeSlots(asOf)}
 * @param pool the coordinator's pool of {@code minute}, fixed at its first state of the minute;
 *     used by a worker that held no state when the minute started
 * @param uncountedThisMinute of {@code newUsersThisMinute}, the admissions made without a counter's
 *     number ({@link Deltas#uncountedByMinute})
 */
public record RoomState(
    String dataCenter,
    Instant asOf,
    long minute,
    SortedMap<Long, Long> activeByExpiryMinute,
    long activeUsers,
    long newUsersThisMinute,
    List<BucketState> buckets,
    SortedMap<Long, Map<String, Long>> trafficHistory,
    int dataCenterWorkersActive,
    int globalWorkersActive,
    double admissionsPerMinute,
    double abandonmentsPerMinute,
    long freeSlots,
    MinutePool pool,
    long uncountedThisMinute) {

  /** A state whose minute's admissions all drew a counter's number. */
  public RoomState(
      String dataCenter,
      Instant asOf,
      long minute,
      SortedMap<Long, Long> activeByExpiryMinute,
      long activeUsers,
      long newUsersThisMinute,
      List<BucketState> buckets,
      SortedMap<Long, Map<String, Long>> trafficHistory,
      int dataCenterWorkersActive,
      int globalWorkersActive,
      double admissionsPerMinute,
      double abandonmentsPerMinute,
      long freeSlots,
      MinutePool pool) {
    this(
        dataCenter,
        asOf,
        minute,
        activeByExpiryMinute,
        activeUsers,
        newUsersThisMinute,
        buckets,
        trafficHistory,
        dataCenterWorkersActive,
        globalWorkersActive,
        admissionsPerMinute,
        abandonmentsPerMinute,
        freeSlots,
        pool,
        0);
  }

  public RoomState {
    activeByExpiryMinute = Collections.unmodifiableSortedMap(new TreeMap<>(activeByExpiryMinute));
    buckets = List.copyOf(buckets);
    TreeMap<Long, Map<String, Long>> history = new TreeMap<>();
    trafficHistory.forEach((m, byDc) -> history.put(m, Map.copyOf(byDc)));
    trafficHistory = Collections.unmodifiableSortedMap(history);
  }

  /** The state of a room nobody has reported to yet: only the configured limits count. */
  public static RoomState initial(RoomConfig config, String dataCenter, Instant now) {
    return new RoomState(
        dataCenter,
        now,
        Minutes.minuteOf(now),
        new TreeMap<>(),
        0,
        0,
        List.of(),
        new TreeMap<>(),
        0,
        0,
        0,
        0,
        SlotMath.freeSlots(config, 0, 0),
        new MinutePool(
            Minutes.minuteOf(now), config.totalActiveUsers(), config.newUsersPerMinute(), 0));
  }

  /** The same state with the coordinator's pool of its minute. */
  public RoomState withPool(MinutePool newPool) {
    return new RoomState(
        dataCenter,
        asOf,
        minute,
        activeByExpiryMinute,
        activeUsers,
        newUsersThisMinute,
        buckets,
        trafficHistory,
        dataCenterWorkersActive,
        globalWorkersActive,
        admissionsPerMinute,
        abandonmentsPerMinute,
        freeSlots,
        newPool,
        uncountedThisMinute);
  }

  /** The bucket with this id, if anyone of it is counted as waiting. */
  public Optional<BucketState> bucket(long bucketId) {
    for (BucketState b : buckets) {
      if (b.bucketId() == bucketId) {
        return Optional.of(b);
      }
    }
    return Optional.empty();
  }

  /** {@code Σ waiting(b)} over all buckets. */
  public long totalWaiting() {
    long sum = 0;
    for (BucketState b : buckets) {
      sum += b.waiting();
    }
    return sum;
  }

  /** Users per data center in {@code minute}; empty when nobody was seen then. */
  public Map<String, Long> trafficOf(long minute) {
    return trafficHistory.getOrDefault(minute, Map.of());
  }
}
