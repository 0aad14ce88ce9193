package io.anteroom.coordinator;

import io.anteroom.room.DataCenterAggregate;
import io.anteroom.room.RoomConfig;
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
}
