package io.anteroom.room;

import java.util.Iterator;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The mutable accumulator behind {@link Deltas}: workers add events to one, coordinators add
 * reports to one. Not thread-safe; owners serialize access.
 */
final class Tally {
  final TreeMap<Long, Long> active = new TreeMap<>();
  final TreeMap<Long, TreeMap<Long, Long>> waiting = new TreeMap<>();
  final TreeMap<Long, Long> admissions = new TreeMap<>();
  final TreeMap<Long, Long> traffic = new TreeMap<>();
  final TreeMap<Long, Long> uncounted = new TreeMap<>();

  void addActive(long expiryMinute, long delta) {
    add(active, expiryMinute, delta);
  }

  void addWaiting(long bucketId, long refreshSlotKey, long delta) {
    TreeMap<Long, Long> keys = waiting.computeIfAbsent(bucketId, b -> new TreeMap<>());
    add(keys, refreshSlotKey, delta);
    if (keys.isEmpty()) {
      waiting.remove(bucketId);
    }
  }

  void addAdmission(long minute, long delta) {
    add(admissions, minute, delta);
  }

  void addTraffic(long minute, long delta) {
    add(traffic, minute, delta);
  }

  /** An admission of {@code minute} made without a counter's number (also an admission). */
  void addUncounted(long minute, long delta) {
    add(uncounted, minute, delta);
  }

  void add(Deltas d) {
    d.activeByExpiryMinute().forEach(this::addActive);
    d.waitingByBucket().forEach((b, keys) -> keys.forEach((k, v) -> addWaiting(b, k, v)));
    d.admissionsByMinute().forEach(this::addAdmission);
    d.trafficByMinute().forEach(this::addTraffic);
    d.uncountedByMinute().forEach(this::addUncounted);
  }

  Deltas toDeltas() {
    return new Deltas(
        active, new TreeMap<Long, SortedMap<Long, Long>>(waiting), admissions, traffic, uncounted);
  }

  boolean isEmpty() {
    return active.isEmpty()
        && waiting.isEmpty()
        && admissions.isEmpty()
        && traffic.isEmpty()
        && uncounted.isEmpty();
  }

  void clear() {
    active.clear();
    waiting.clear();
    admissions.clear();
    traffic.clear();
    uncounted.clear();
  }

  /**
   * Drops entries that can no longer change any count at {@code minute}: expiry minutes already
   * past, waiting keys expired longer ago than the abandonment window, admissions and traffic older
   * than any average or history uses.
   */
  void prune(long minute, RoomConfig config) {
    active.headMap(minute, false).clear();
    long keepMinutes = Counting.AVERAGE_MINUTES + 1;
    admissions.headMap(minute - keepMinutes, false).clear();
    uncounted.headMap(minute - keepMinutes, false).clear();
    traffic.headMap(minute - config.historyLagMinutes() - 1, false).clear();
    Iterator<Map.Entry<Long, TreeMap<Long, Long>>> buckets = waiting.entrySet().iterator();
    while (buckets.hasNext()) {
      TreeMap<Long, Long> keys = buckets.next().getValue();
      keys.entrySet()
          .removeIf(e -> Counting.expiryMinuteOf(e.getKey(), config) < minute - keepMinutes);
      if (keys.isEmpty()) {
        buckets.remove();
      }
    }
  }

  private static void add(TreeMap<Long, Long> map, long key, long delta) {
    if (delta == 0) {
      return;
    }
    Long sum = map.merge(key, delta, Long::sum);
    if (sum == 0) {
      map.remove(key);
    }
  }
}
