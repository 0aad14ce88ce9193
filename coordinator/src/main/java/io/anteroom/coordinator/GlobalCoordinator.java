package io.anteroom.coordinator;

import io.anteroom.room.ConfigAgreement;
import io.anteroom.room.DataCenterAggregate;
import io.anteroom.room.RoomConfig;
import io.anteroom.room.RoomOverrides;
import io.anteroom.room.history.HistoryRow;
import java.util.List;
import java.util.Map;

/**
 * The RPC interface of a room's global durable object ({@link RoomObjects#GLOBAL_NAMESPACE}, object
 * name = room id): data center coordinators report their aggregates and their gateways' config
 * fingerprints, and receive every data center's newest aggregate, the version of the room's live
 * overrides and whether the gateways agree on the room's configuration. The object also keeps the
 * room's {@link RoomOverrides} (durable; a write is answered once it is).
 */
public interface GlobalCoordinator {

  /**
   * Keeps {@code aggregate} if it is the newest of its data center and records the gateways' {@code
   * fingerprints}; returns all data centers' newest aggregates and the room's overrides version and
   * config agreement.
   */
  GlobalReply sync(
      RoomConfig config,
      DataCenterAggregate aggregate,
      List<ConfigAgreement.Fingerprint> fingerprints);

  /** {@link #sync} without fingerprints. */
  default GlobalReply report(RoomConfig config, DataCenterAggregate aggregate) {
    return sync(config, aggregate, List.of());
  }

  /** The room's live overrides ({@link RoomOverrides#NONE} before the first change). */
  RoomOverrides overrides();

  /**
   * Applies {@code changes} to the room's overrides (see {@link RoomOverrides#with}) and returns
   * the result once it is durable.
   */
  RoomOverrides override(Map<String, String> changes);

  /**
   * The global object's answer.
   *
   * @param dataCenters the newest aggregate of every data center heard from recently
   * @param throttle true when the global object is over its threshold: report less often
   * @param overridesVersion the version of the room's live overrides
   * @param agreement whether the gateways heard from recently agree on the room's config
   */
  record GlobalReply(
      List<DataCenterAggregate> dataCenters,
      boolean throttle,
      long overridesVersion,
      ConfigAgreement.Verdict agreement) {}

  /**
   * The room's history rows of minutes {@code [fromMinute, toMinute)} (minutes since the epoch),
   * oldest first; minutes without a row are left out. At most seven days are kept.
   */
  HistoryReply history(long fromMinute, long toMinute);

  /**
   * The rows of a history query.
   *
   * @param rows one per minute with data, oldest first
   */
  record HistoryReply(List<HistoryRow> rows) {}

  /**
   * The room's report ({@link io.anteroom.room.report.EventReport}): the lines of UTC days {@code
   * [fromDay, toDay)} (days since the epoch) with data, and of every event known, with the minutes
   * not folded yet added. At most {@value io.anteroom.room.report.EventReport#RETENTION_DAYS} days
   * are kept.
   */
  ReportReply eventReport(long fromDay, long toDay);

  /**
   * The answer of {@link #eventReport}.
   *
   * @param days one line per day with data, oldest first
   * @param events one line per known event, by start
   */
  record ReportReply(
      List<io.anteroom.room.report.ReportLine> days,
      List<io.anteroom.room.report.ReportLine> events) {}

  /**
   * Claims a proof-of-work challenge for the whole deployment: {@code first} is true the first time
   * {@code nonce} (base64url, 12 bytes) is claimed before {@code expiresAtMillis}, false for a
   * replay, or when the memory is full of unexpired challenges (the client then solves a fresh
   * one). Kept in memory: a restarted coordinator forgets the claims, and only the gateways' own
   * memories hold until the challenges expire.
   */
  ClaimReply claim(String nonce, long expiresAtMillis);

  /**
   * The answer of a {@link #claim}.
   *
   * @param first true when this was the first use
   */
  record ClaimReply(boolean first) {}

  /**
   * An account's one place in the room ({@link io.anteroom.room.AccountPlaces#place}): looks the
   * place of account key {@code account} up and, with an {@code offer}, stores it when the account
   * has none, its place is {@code replacesId}, or the offer is its waiting place's first admission.
   * A stored place is durable before the answer leaves (a restarted coordinator reads it back).
   */
  PlaceReply place(String account, io.anteroom.room.AccountPlaces.Place offer, long replacesId);

  /**
   * The answer of a {@link #place}.
   *
   * @param place the account's place now, or null
   * @param stored whether the offer is now the account's place
   * @param full the coordinator's memory was full: the offer was not stored
   */
  record PlaceReply(io.anteroom.room.AccountPlaces.Place place, boolean stored, boolean full) {}
}
