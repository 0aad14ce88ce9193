package io.anteroom.coordinator;

import io.anteroom.room.DataCenterAggregate;
import io.anteroom.room.RoomConfig;
import io.anteroom.room.history.HistoryRow;
import java.util.List;

/**
 * The RPC interface of a room's global durable object ({@link RoomObjects#GLOBAL_NAMESPACE}, object
 * name = room id): data center coordinators report their aggregates and receive every data center's
 * newest one.
 */
public interface GlobalCoordinator {

  /**
   * Keeps {@code aggregate} if it is the newest of its data center; returns all data centers'
   * newest aggregates.
   */
  GlobalReply report(RoomConfig config, DataCenterAggregate aggregate);

  /**
   * The global object's answer.
   *
   * @param dataCenters the newest aggregate of every data center heard from recently
   * @param throttle true when the global object is over its threshold: report less often
   */
  record GlobalReply(List<DataCenterAggregate> dataCenters, boolean throttle) {}

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
}
