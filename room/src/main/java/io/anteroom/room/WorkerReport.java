package io.anteroom.room;

import io.anteroom.room.history.MinuteActivity;
import java.time.Instant;
import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What a worker sends its data center's coordinator: the deltas since its previous report. Also a
 * heartbeat: a worker reports at least every {@code workerReportInterval}, with empty deltas when
 * idle. A retried report carries the same {@code (workerId, sequence)} and is applied once.
 *
 * @param workerId the worker (unique per process lifetime)
 * @param sequence 1, 2, 3... per worker
 * @param dataCenter the worker's data center
 * @param sentAt when the worker built it
 * @param deltas counts since the previous report
 * @param activity what the worker saw since the previous report, by minute, for the room's history
 *     (empty from senders that record none)
 */
public record WorkerReport(
    String workerId,
    long sequence,
    String dataCenter,
    Instant sentAt,
    Deltas deltas,
    SortedMap<Long, MinuteActivity> activity) {

  public WorkerReport {
    activity =
        Collections.unmodifiableSortedMap(
            activity == null ? new TreeMap<>() : new TreeMap<>(activity));
  }

  /** A report without activity. */
  public WorkerReport(
      String workerId, long sequence, String dataCenter, Instant sentAt, Deltas deltas) {
    this(workerId, sequence, dataCenter, sentAt, deltas, null);
  }

  /** {@code workerId#sequence}. */
  public String reportId() {
    return workerId + "#" + sequence;
  }
}
