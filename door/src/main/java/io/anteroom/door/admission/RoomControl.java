package io.anteroom.door.admission;

import io.anteroom.door.admission.RoomGate.RoomStatus;
import io.anteroom.door.config.GatewayConfig.RoomSettings;
import io.anteroom.room.RoomOverrides;
import io.anteroom.room.history.HistoryRow;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * One room's control, apart from the request path ({@link RoomGate}): its state for operators,
 * history, settings changes, origin protection's rate, the background report loop and live
 * overrides. The admin API, the composition root and the timers use it; a request never does.
 *
 * <p>Threading: any thread; {@link #tick} must not block.
 */
public interface RoomControl extends AutoCloseable {

  /** The room's request-path API (the same room). */
  RoomGate gate();

  /** The room's current state for the admin API, status page and metrics. */
  RoomStatus status(long nowMillis);

  /**
   * The room's history rows of minutes {@code [fromMinute, toMinute)} (minutes since the epoch),
   * merged over every gateway and data center; fails when the room's coordination cannot answer.
   */
  default CompletionStage<io.anteroom.room.report.RoomReport> report(long fromDay, long toDay) {
    return java.util.concurrent.CompletableFuture.failedFuture(
        new UnsupportedOperationException("this room keeps no reports"));
  }

  default CompletionStage<List<HistoryRow>> history(long fromMinute, long toMinute) {
    return CompletableFuture.failedFuture(
        new UnsupportedOperationException("this room keeps no history"));
  }

  /** Applies changed settings (admin API) without losing the room's counts. */
  void reconfigure(RoomSettings settings);

  /**
   * Sets the new users per minute in force (origin protection), at most the configured value; takes
   * effect from the next minute's pool.
   */
  void limitNewUsersPerMinute(int effective);

  /**
   * Called about four times a second with the current time: background work such as sending reports
   * when due. Must not block.
   */
  default void tick(long nowMillis) {}

  /**
   * Registers who applies the room's live overrides: called with every newer version the room
   * learns (at once with the newest one already known). Rooms without a coordinator never call it.
   */
  default void onOverrides(Consumer<RoomOverrides> listener) {}

  /**
   * Changes the room's live overrides for the whole deployment; completes once the change is
   * durable (and handed to the {@link #onOverrides} listener), fails when it could not be made
   * (nothing changed then).
   */
  default CompletionStage<RoomOverrides> override(Map<String, String> changes) {
    return CompletableFuture.failedFuture(
        new UnsupportedOperationException("this room has no coordinator to keep overrides"));
  }

  @Override
  void close();
}
