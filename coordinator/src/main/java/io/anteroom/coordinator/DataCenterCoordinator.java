package io.anteroom.coordinator;

import io.anteroom.room.ConfigAgreement;
import io.anteroom.room.RoomConfig;
import io.anteroom.room.RoomOverrides;
import io.anteroom.room.RoomState;
import io.anteroom.room.WorkerReport;
import java.util.Map;
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
   * A gateway's sync: {@link #reportAsync} plus the fingerprint of the gateway's room settings
   * (null: none), which the data center passes on to the global object. While the room's
   * authoritative fingerprint is known and {@code fingerprint} differs from it, {@code config} is
   * not adopted (the report's counts are).
   */
  CompletableFuture<StateReply> syncAsync(
      RoomConfig config, WorkerReport report, ConfigAgreement.Fingerprint fingerprint);

  /** The room's live overrides, read from its global object. */
  CompletableFuture<RoomOverrides> overridesAsync(String roomId);

  /**
   * Applies {@code changes} to the room's live overrides in its global object; completes once they
   * are durable there (see {@link GlobalCoordinator#override}).
   */
  CompletableFuture<RoomOverrides> overrideAsync(String roomId, Map<String, String> changes);

  /**
   * A coordinator's answer.
   *
   * @param state the room state for the reporting worker's data center
   * @param throttle true when the coordinator is over its threshold: report less often
   * @param overridesVersion the version of the room's live overrides as the data center last heard
   *     it from the global object; -1 while it has not heard
   * @param agreement whether the room's gateways agree on its config, as last heard
   */
  record StateReply(
      RoomState state,
      boolean throttle,
      long overridesVersion,
      ConfigAgreement.Verdict agreement) {}

  /**
   * The room's history of minutes {@code [fromMinute, toMinute)}, asked of the room's global object
   * (which gateways do not reach directly).
   */
  /**
   * Claims a proof-of-work challenge at the room's global object ({@link GlobalCoordinator#claim}).
   */
  CompletableFuture<GlobalCoordinator.ClaimReply> claimAsync(
      String roomId, String nonce, long expiresAtMillis);

  /** An account's one place, at the room's global object ({@link GlobalCoordinator#place}). */
  CompletableFuture<GlobalCoordinator.PlaceReply> placeAsync(
      String roomId, String account, io.anteroom.room.AccountPlaces.Place offer, long replacesId);

  CompletableFuture<GlobalCoordinator.HistoryReply> historyAsync(
      String roomId, long fromMinute, long toMinute);

  /**
   * The room's report of UTC days {@code [fromDay, toDay)} and of its events, asked of the room's
   * global object ({@link GlobalCoordinator#eventReport}).
   */
  CompletableFuture<GlobalCoordinator.ReportReply> eventReportAsync(
      String roomId, long fromDay, long toDay);
}
