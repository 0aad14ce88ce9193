package io.anteroom.room;

import java.time.Instant;

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
 */
public record WorkerReport(
    String workerId, long sequence, String dataCenter, Instant sentAt, Deltas deltas) {

  /** {@code workerId#sequence}. */
  public String reportId() {
    return workerId + "#" + sequence;
  }
}
