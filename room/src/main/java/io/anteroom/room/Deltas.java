package io.anteroom.room;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Counts as sums of deltas, the unit every report carries ({@code waiting-room.md}, "Counting
 * without per-user state"). Adding is associative and commutative and zero entries are dropped, so
 * equal sums are equal objects whatever the order in which reports were added. Immutable.
 *
 * @param activeByExpiryMinute the histogram {@code H[e]}: admitted users by the minute their
 *     session expires
 * @param waitingByBucket waiting users by bucket, then by refresh-slot key
 * @param admissionsByMinute admissions per minute
 * @param trafficByMinute distinct users seen per minute (one data center's, or one worker's)
 * @param uncountedByMinute of {@code admissionsByMinute}, those made without a counter's number
 *     (whole-bucket users let in while their counters were spent): the minute's pool leaves the
 *     minute's admissions to the counters, and these are on none ({@link MinutePool}); absent in
 *     reports of older versions (none then)
 */
public record Deltas(
    SortedMap<Long, Long> activeByExpiryMinute,
    SortedMap<Long, SortedMap<Long, Long>> waitingByBucket,
    SortedMap<Long, Long> admissionsByMinute,
    SortedMap<Long, Long> trafficByMinute,
    SortedMap<Long, Long> uncountedByMinute) {

  /** No counts at all. */
  public static final Deltas EMPTY =
      new Deltas(new TreeMap<>(), new TreeMap<>(), new TreeMap<>(), new TreeMap<>());

  public Deltas {
    activeByExpiryMinute = frozen(activeByExpiryMinute);
    admissionsByMinute = frozen(admissionsByMinute);
    trafficByMinute = frozen(trafficByMinute);
    uncountedByMinute = frozen(uncountedByMinute);
    TreeMap<Long, SortedMap<Long, Long>> w = new TreeMap<>();
    if (waitingByBucket != null) {
      waitingByBucket.forEach(
          (bucket, keys) -> {
            SortedMap<Long, Long> k = frozen(keys);
            if (!k.isEmpty()) {
              w.put(bucket, k);
            }
          });
    }
    waitingByBucket = Collections.unmodifiableSortedMap(w);
  }

  /** Counts with every admission made with a counter's number. */
  public Deltas(
      SortedMap<Long, Long> activeByExpiryMinute,
      SortedMap<Long, SortedMap<Long, Long>> waitingByBucket,
      SortedMap<Long, Long> admissionsByMinute,
      SortedMap<Long, Long> trafficByMinute) {
    this(activeByExpiryMinute, waitingByBucket, admissionsByMinute, trafficByMinute, null);
  }

  /** The sum of both. */
  public Deltas plus(Deltas other) {
    Tally t = new Tally();
    t.add(this);
    t.add(other);
    return t.toDeltas();
  }

  @JsonIgnore
  public boolean isEmpty() {
    return activeByExpiryMinute.isEmpty()
        && waitingByBucket.isEmpty()
        && admissionsByMinute.isEmpty()
        && trafficByMinute.isEmpty()
        && uncountedByMinute.isEmpty();
  }

  private static SortedMap<Long, Long> frozen(Map<Long, Long> m) {
    TreeMap<Long, Long> copy = new TreeMap<>();
    if (m != null) {
      m.forEach(
          (k, v) -> {
            if (v != 0) {
              copy.put(k, v);
            }
          });
    }
    return Collections.unmodifiableSortedMap(copy);
  }
}
