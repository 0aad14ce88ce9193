package io.anteroom.coordinator;

import io.anteroom.room.RoomConfig;
import io.anteroom.room.RoomState;
import io.anteroom.room.WorkerReport;
import java.util.concurrent.CompletableFuture;

/**
 * The RPC interface of a data center's coordinating durable object ({@link
 * RoomObjects#DATA_CENTER_NAMESPACE}, object name {@link RoomObjects#dataCenterObjectName}).
 * Workers report their deltas; the reply is the room state they decide with, and the throttle
 * signal their report interval adapts to (AIMD).
 *
 * <pre>{@code
 * DataCenterCoordinator dc = objects.dataCenter("shop", "dublin");
 * StateReply reply = dc.report(config, worker.report(now));
 * worker.applyState(reply.state());
 * reportPace.onResponse(reply.throttle());
 * }</pre>
 */
public interface DataCenterCoordinator {

  /**
   * Applies a worker's report (once per report id; a retry is harmless) and returns the data
   * center's state.
   */
  StateReply report(RoomConfig config, WorkerReport report);

  /** The same, for callers that must not block (the gateway's event loop). */
  CompletableFuture<StateReply> reportAsync(RoomConfig config, WorkerReport report);

  /**
   * A coordinator's answer.
   *
   * @param state the room state for the reporting worker's data center
   * @param throttle true when the coordinator is over its threshold: report less often
   */
  record StateReply(RoomState state, boolean throttle) {}

  /**
   * The room's history of minutes {@code [fromMinute, toMinute)}, asked of the room's global object
   * (which gateways do not reach directly).
   */
  CompletableFuture<GlobalCoordinator.HistoryReply> historyAsync(
      String roomId, long fromMinute, long toMinute);
}
