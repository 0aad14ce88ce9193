package io.anteroom.door.admission;

import io.anteroom.room.ConfigAgreement;
import io.anteroom.room.CounterKey;
import io.anteroom.room.Grant;
import io.anteroom.room.RoomConfig;
import io.anteroom.room.RoomOverrides;
import io.anteroom.room.RoomState;
import io.anteroom.room.WorkerReport;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * How a gateway reaches its room's coordinating objects: the data-center object (reports in, room
 * state out) and the counter objects. Implemented in-process ({@link LocalCoordination}) or over
 * HTTP to a coordinator process. Calls may fail (coordinator down); the caller then applies the
 * room's {@code failMode}.
 */
public interface Coordination extends AutoCloseable {

  /** Tells the coordinator a room's limits (at start and after an admin change). */
  CompletionStage<Void> configure(RoomConfig config);

  /**
   * Sends a worker's report to its data center with the fingerprint of this gateway's room settings
   * (null: none); answers the data center's fresh room state, its throttle signal (reporters slow
   * down while it is set), the version of the room's live overrides and the room's config
   * agreement.
   */
  CompletionStage<ReportReply> report(
      String roomId, WorkerReport report, ConfigAgreement.Fingerprint fingerprint);

  /**
   * The data center's answer to a report.
   *
   * @param overridesVersion the room's live overrides version as the coordinator knows it; -1 when
   *     unknown yet
   */
  record ReportReply(
      RoomState state,
      boolean throttle,
      long overridesVersion,
      ConfigAgreement.Verdict agreement) {}

  /** The room's live overrides, as the coordinator keeps them for the whole deployment. */
  CompletionStage<RoomOverrides> overrides(String roomId, String dataCenter);

  /**
   * Changes the room's live overrides for the whole deployment; completes once the coordinator has
   * made the change durable, fails when it could not (nothing is changed then).
   */
  CompletionStage<RoomOverrides> override(
      String roomId, String dataCenter, Map<String, String> changes);

  /**
   * The room's history rows of minutes {@code [fromMinute, toMinute)}, asked through the data
   * center {@code dataCenter}'s object (which asks the room's global object).
   */
  CompletionStage<java.util.List<io.anteroom.room.history.HistoryRow>> history(
      String roomId, String dataCenter, long fromMinute, long toMinute);

  /**
   * Claims a proof-of-work challenge deployment-wide, through the data center {@code dataCenter}'s
   * object (which asks the room's global object): true the first time.
   */
  CompletionStage<Boolean> claimChallenge(
      String roomId, String dataCenter, String nonce, long expiresAtMillis);

  /**
   * An account's one place in the room, through the data center {@code dataCenter}'s object (which
   * asks the room's global object; {@link io.anteroom.room.AccountPlaces#place}). Coordinations
   * without it fail the call (the gateway's own memory decides).
   */
  default CompletionStage<io.anteroom.room.AccountPlaces.Reply> place(
      String roomId,
      String dataCenter,
      String account,
      io.anteroom.room.AccountPlaces.Place offer,
      long replacesId) {
    return java.util.concurrent.CompletableFuture.failedFuture(
        new UnsupportedOperationException("this coordination keeps no account places"));
  }

  /**
   * {@code take(limit)} on the counter object named by {@code key}, counting its numbers of the
   * previous minute consumed at or after {@code carriedSince} ({@link
   * io.anteroom.room.Decision.Draw#carriedSince}; {@code null}: none).
   */
  CompletionStage<Grant> take(CounterKey key, long limit, Instant carriedSince);

  /**
   * {@code charge(admissions, limit)} on the counter object named by {@code key}: counts admissions
   * made without its grants; completes with how many it could not absorb ({@link
   * io.anteroom.room.Charge}).
   */
  CompletionStage<Long> charge(CounterKey key, long admissions, long limit);

  /** Forgets a deleted room. */
  CompletionStage<Void> remove(String roomId);

  /**
   * How often this process saw the coordinator's objects recreated so far (a coordinator restart, a
   * new leader of its shard; {@link io.anteroom.objects.http.IncarnationWatch}), counted before the
   * reply that showed it completes; it only grows. Every such change is an outage for the rooms,
   * even when none of this process's calls failed: other gateways' calls to the old instance may
   * have, and those gateways then admit from their last state. 0 for objects in this process.
   */
  default long incarnationChanges() {
    return 0;
  }

  /**
   * The metrics of the objects runtime this coordination runs in this process (the embedded
   * coordination of {@code run}), to export with the gateway's; empty when the objects live
   * elsewhere.
   */
  default java.util.Optional<com.codahale.metrics.MetricSet> objectMetrics() {
    return java.util.Optional.empty();
  }

  /**
   * The room's report (days {@code [fromDay, toDay)} and its events), asked through the data
   * center's object of its global object; a coordination without reports fails the stage.
   */
  default CompletionStage<io.anteroom.room.report.RoomReport> eventReport(
      String roomId, String dataCenter, long fromDay, long toDay) {
    return java.util.concurrent.CompletableFuture.failedFuture(
        new UnsupportedOperationException("this coordination keeps no reports"));
  }

  /**
   * The deployment's audit log kept with these objects (every gateway of the deployment sees the
   * same); a coordination without one (a test fake) keeps one in its own memory.
   */
  default AuditLog audit() {
    return AuditLog.inMemory(System::currentTimeMillis);
  }

  /**
   * The deployment's room documents kept with these objects (every gateway of the deployment
   * follows the same); a coordination without them (a test fake) keeps them in its own memory.
   */
  default RoomDocumentStore roomDocuments() {
    return RoomDocumentStore.inMemory(System::currentTimeMillis);
  }

  @Override
  default void close() {}
}
