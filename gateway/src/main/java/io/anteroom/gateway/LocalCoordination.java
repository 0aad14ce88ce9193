package io.anteroom.gateway;

import io.anteroom.room.CounterKey;
import io.anteroom.room.DataCenterLedger;
import io.anteroom.room.GlobalLedger;
import io.anteroom.room.Grant;
import io.anteroom.room.MinuteCounter;
import io.anteroom.room.RoomConfig;
import io.anteroom.room.RoomState;
import io.anteroom.room.WorkerReport;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The coordinating state of every room held in this process: per room one {@link GlobalLedger},
 * one {@link DataCenterLedger} per data center and one {@link MinuteCounter} per data center plus
 * the Anywhere counter. A thin shell: every rule is in the room core. Each report is applied to
 * its data center, the data center's aggregate to the global ledger, and the data center's room
 * state computed from the global view (the data center → global hop is synchronous here).
 *
 * <p>Invariants: one monitor per room serializes everything that touches that room's ledgers and
 * counters, as a single-threaded coordinating object would; rooms do not share locks. Nothing is
 * persisted: a restart rebuilds the counts from the workers' next reports and live tickets.
 */
final class LocalCoordination implements Coordination {

  private static final class Room {
    RoomConfig config;
    GlobalLedger global;
    final Map<String, DataCenterLedger> dataCenters = new HashMap<>();
    final Map<String, MinuteCounter> counters = new HashMap<>();

    Room(RoomConfig config) {
      this.config = config;
      this.global = new GlobalLedger(config);
    }
  }

  private final Clock clock;
  private final Map<String, Room> rooms = new ConcurrentHashMap<>();

  LocalCoordination(Clock clock) {
    this.clock = clock;
  }

  @Override
  public CompletionStage<Void> configure(RoomConfig config) {
    Room room = rooms.computeIfAbsent(config.roomId(), id -> new Room(config));
    synchronized (room) {
      if (!room.config.equals(config)) {
        room.config = config;
        room.global = GlobalLedger.restore(config, room.global.snapshot());
        room.dataCenters.replaceAll((dc, ledger) -> DataCenterLedger.restore(config,
            ledger.backup()));
      }
    }
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public CompletionStage<RoomState> report(String roomId, WorkerReport report) {
    Room room = rooms.get(roomId);
    if (room == null) {
      return CompletableFuture.failedFuture(new IllegalStateException("room \"" + roomId
          + "\" is not configured on this coordinator"));
    }
    synchronized (room) {
      var now = clock.instant();
      DataCenterLedger dc = room.dataCenters.computeIfAbsent(report.dataCenter(),
          name -> new DataCenterLedger(room.config, name));
      dc.apply(report, now);
      room.global.apply(dc.aggregate(now));
      return CompletableFuture.completedFuture(dc.roomState(room.global.view(now), now));
    }
  }

  @Override
  public CompletionStage<Grant> take(CounterKey key, long limit) {
    Room room = rooms.get(key.roomId());
    if (room == null) {
      return CompletableFuture.failedFuture(new IllegalStateException("room \"" + key.roomId()
          + "\" is not configured on this coordinator"));
    }
    synchronized (room) {
      MinuteCounter counter = room.counters.computeIfAbsent(key.dataCenter(),
          dc -> new MinuteCounter(room.config.rules()));
      return CompletableFuture.completedFuture(counter.take(key.minute(), limit));
    }
  }

  @Override
  public CompletionStage<Void> remove(String roomId) {
    rooms.remove(roomId);
    return CompletableFuture.completedFuture(null);
  }
}
