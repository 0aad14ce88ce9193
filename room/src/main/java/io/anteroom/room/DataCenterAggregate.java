package io.anteroom.room;

import io.anteroom.room.history.MinuteActivity;
import java.time.Instant;
import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What a data center's coordinator reports to the global object: its running totals (not deltas),
 * so the global object keeps only the newest aggregate per data center and a repeated or reordered
 * report changes nothing.
 *
 * @param dataCenter the data center
 * @param asOf when the totals were taken
 * @param version increases with every aggregate of this data center (ties on {@code asOf} are
 *     broken by it)
 * @param workersActive the data center's workers that reported within 30 s of {@code asOf}
 * @param totals the data center's sums of all worker deltas applied so far (pruned of what no
 *     longer counts)
 * @param activity the data center's activity totals of its last minutes, for the room's history
 *     (also totals, so the newest aggregate replaces what an older one said)
 */
public record DataCenterAggregate(
    String dataCenter,
    Instant asOf,
    long version,
    int workersActive,
    Deltas totals,
    SortedMap<Long, MinuteActivity> activity) {

  public DataCenterAggregate {
    activity =
        Collections.unmodifiableSortedMap(
            activity == null ? new TreeMap<>() : new TreeMap<>(activity));
  }

  /** An aggregate without activity. */
  public DataCenterAggregate(
      String dataCenter, Instant asOf, long version, int workersActive, Deltas totals) {
    this(dataCenter, asOf, version, workersActive, totals, null);
  }

  /** Whether this aggregate is newer than {@code other} (of the same data center). */
  public boolean newerThan(DataCenterAggregate other) {
    int byTime = asOf.compareTo(other.asOf);
    return byTime > 0 || (byTime == 0 && version > other.version);
  }
}
