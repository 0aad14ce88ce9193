package io.anteroom.gateway;

import io.anteroom.gateway.GatewayConfig.RoomSettings;
import java.util.concurrent.CompletionStage;

/**
 * The gateway's view of one room's admission logic: everything the HTTP edge asks of the room
 * core, with tickets as opaque plaintext bytes (the edge seals and opens them; the room core
 * owns their content). All formulas live behind this interface, in the {@code room} module.
 *
 * <p>Threading: called from Vert.x event loops concurrently. {@link #renewAdmitted} is the hot
 * path and must neither block, lock nor call remotely; {@link #decide} may call a counter object
 * and completes later, on any thread.
 */
interface RoomGate extends AutoCloseable {

  /**
   * The admitted fast path: when {@code ticket} is an admitted ticket of this room whose session
   * has not expired at {@code nowMillis}, returns the renewed ticket (the same content when
   * session renewal is disabled) and records the check-in; otherwise null.
   */
  byte[] renewAdmitted(byte[] ticket, long nowMillis);

  /**
   * Decides for a user without a valid admitted ticket: {@code ticket} is a waiting ticket or
   * null for a new user. Never fails for bad input; a failure of the coordination is handled
   * inside by the room's {@code failMode}.
   */
  CompletionStage<Verdict> decide(byte[] ticket, long nowMillis);

  /** The origin answered {@code Anteroom-Command: revoke}: the session of this ticket ends. */
  void revoke(byte[] ticket, long nowMillis);

  /** The room's current state for the admin API, status page and metrics. */
  RoomStatus status(long nowMillis);

  /** Applies changed settings (admin API) without losing the room's counts. */
  void reconfigure(RoomSettings settings);

  @Override
  void close();

  /** What to do with one request. */
  enum Outcome { ADMIT, QUEUE, REJECT }

  /**
   * A decision: the outcome, the ticket to set (null: clear the cookie), and for queued users
   * what the queue page shows.
   */
  record Verdict(Outcome outcome, byte[] ticket, QueueView queue) {}

  /**
   * What a queued user is told (the JSON fields of the queue response).
   *
   * @param waitTimeKnown       false while no admissions have been seen yet
   * @param waitTimeMinutes     estimated wait of this user's bucket
   * @param lastUpdatedMillis   when the room state this is based on was computed
   * @param queueIsFull         the site is at its limits: no free slots right now
   */
  record QueueView(boolean waitTimeKnown, int waitTimeMinutes, int waitTime25Percentile,
      int waitTime50Percentile, int waitTime75Percentile, long lastUpdatedMillis,
      boolean queueIsFull) {}

  /**
   * A room's state for operators.
   *
   * @param status                      {@code not_queueing}, {@code queueing} or {@code suspended}
   * @param degraded                    the coordinator is unreachable; decisions use the last
   *                                    known state per {@code failMode}
   * @param effectiveNewUsersPerMinute  the admission rate in force (lower than configured while
   *                                    origin protection is holding it back)
   */
  record RoomStatus(String status, long estimatedQueuedUsers, long estimatedTotalActiveUsers,
      int maxEstimatedTimeMinutes, boolean degraded, int effectiveNewUsersPerMinute,
      long lastUpdatedMillis) {}
}
