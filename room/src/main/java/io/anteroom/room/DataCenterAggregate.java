package io.anteroom.room;

import java.time.Instant;

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
 */
public record DataCenterAggregate(
    String dataCenter, Instant asOf, long version, int workersActive, Deltas totals) {

  /** Whether this aggregate is newer than {@code other} (of the same data center). */
  public boolean newerThan(DataCenterAggregate other) {
    int byTime = asOf.compareTo(other.asOf);
    return byTime > 0 || (byTime == 0 && version > other.version);
  }
}
