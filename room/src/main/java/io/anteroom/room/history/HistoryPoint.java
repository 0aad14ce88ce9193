package io.anteroom.room.history;

import java.time.Instant;
import java.util.List;

/**
 * One minute of a room's analytics series (the admin API's JSON). Gauges are null when no global
 * report came in that minute; waits are null when nothing was measured.
 *
 * @param minute minutes since the epoch
 * @param start the minute's first instant (UTC)
 * @param activeUsers admitted users with a running session (the global view at the minute's last
 *     report)
 * @param waitingUsers users counted as waiting (same view)
 * @param totalActiveUsers the limit T then
 * @param newUsersPerMinute the limit N then
 * @param arrivals users newly placed in the queue
 * @param admissions users let in
 * @param abandoned waiting users whose place stopped counting without admission or refresh
 * @param revoked sessions ended early
 * @param estimatedWaitMinutes the mean estimated wait shown on queue answers
 * @param admittedMeasured admissions whose real wait was measured
 * @param realWaitP50Seconds median real wait of the users admitted (bucket upper bound)
 * @param realWaitP95Seconds 95th percentile of it
 * @param dataCenters the data centers that reported activity for the minute
 */
public record HistoryPoint(
    long minute,
    Instant start,
    Long activeUsers,
    Long waitingUsers,
    Long totalActiveUsers,
    Long newUsersPerMinute,
    long arrivals,
    long admissions,
    Long abandoned,
    long revoked,
    Double estimatedWaitMinutes,
    long admittedMeasured,
    Long realWaitP50Seconds,
    Long realWaitP95Seconds,
    List<String> dataCenters) {}
