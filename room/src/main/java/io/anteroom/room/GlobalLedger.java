package io.anteroom.room;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The global object's memory: the newest {@link DataCenterAggregate} of every data center. Applying
 * an aggregate is idempotent and order-insensitive (an older one than the held one is ignored).
 *
 * <p>Invariant: methods are {@code synchronized}; for each data center the held aggregate only gets
 * newer.
 *
 * <pre>{@code
 * GlobalLedger global = new GlobalLedger(config);
 * global.apply(dublin.aggregate(now));                     // every dataCenterReportInterval, from each data center
 * List<DataCenterAggregate> view = global.view(now);       // back to the data center, for its roomState(view, now)
 * }</pre>
 */
public final class GlobalLedger {
  private RoomConfig config;
  private final Map<String, DataCenterAggregate> latest = new TreeMap<>();

  public GlobalLedger(RoomConfig config) {
    this.config = config;
  }

  /** Takes an operator's new limits into account from now on. */
  public synchronized void configure(RoomConfig newer) {
    if (!newer.roomId().equals(config.roomId())) {
      throw new IllegalArgumentException(
          "global ledger of room '"
              + config.roomId()
              + "' cannot take the config of room '"
              + newer.roomId()
              + "'");
    }
    config = newer;
  }

  /**
   * Keeps {@code a} if it is newer than the held aggregate of its data center; returns whether it
   * did.
   */
  public synchronized boolean apply(DataCenterAggregate a) {
    DataCenterAggregate held = latest.get(a.dataCenter());
    if (held != null && !a.newerThan(held)) {
      return false;
    }
    latest.put(a.dataCenter(), a);
    return true;
  }

  /**
   * All data centers' newest aggregates, forgetting those silent for longer than a session plus the
   * queue timeout (nothing they counted can still count).
   */
  public synchronized List<DataCenterAggregate> view(Instant now) {
    Instant forget = now.minus(config.sessionDuration()).minus(config.queueTimeout());
    latest.values().removeIf(a -> a.asOf().isBefore(forget));
    return List.copyOf(latest.values());
  }

  /** A ledger rebuilt from a saved {@link #view}. */
  public static GlobalLedger restore(RoomConfig config, Collection<DataCenterAggregate> saved) {
    GlobalLedger g = new GlobalLedger(config);
    saved.forEach(g::apply);
    return g;
  }

  /** For the backup: the held aggregates, without forgetting any. */
  public synchronized List<DataCenterAggregate> snapshot() {
    return new ArrayList<>(latest.values());
  }
}
