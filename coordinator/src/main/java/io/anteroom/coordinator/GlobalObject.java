package io.anteroom.coordinator;

import io.anteroom.backpressure.ThresholdMonitor;
import io.anteroom.objects.AlarmHandler;
import io.anteroom.objects.ListOptions;
import io.anteroom.objects.ObjectContext;
import io.anteroom.objects.Storage;
import io.anteroom.objects.StorageOptions;
import io.anteroom.room.DataCenterAggregate;
import io.anteroom.room.GlobalLedger;
import io.anteroom.room.RoomConfig;
import java.time.Instant;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A room's global durable object: a thin shell over {@link GlobalLedger}.
 *
 * <p>Invariants: one event at a time; everything lives in memory and is answered at once. An alarm
 * (every {@code dataCenterReportInterval} while data centers report) backs the newest aggregates up
 * with an {@code allowUnconfirmed} write, so no reply waits for the disk; the constructor rebuilds
 * from that backup after a restart, and data centers' next reports (full totals, not deltas) bring
 * it up to date within seconds. Each data center's aggregate is its own key ({@code dc/<name>}), so
 * the backup grows by data center without meeting the storage's value size limit; only aggregates
 * that changed since the last backup are written.
 */
final class GlobalObject implements GlobalCoordinator, AlarmHandler {
  static final String CONFIG_KEY = "config";
  static final String AGGREGATE_PREFIX = "dc/";

  private final ObjectContext ctx;
  private final Storage storage;
  private final ThresholdMonitor monitor;
  private RoomConfig config;
  private GlobalLedger ledger;
  private final Set<String> changed = new HashSet<>();
  private boolean alarmSet;

  GlobalObject(ObjectContext ctx, ThresholdMonitor monitor) {
    this.ctx = ctx;
    this.storage = ctx.storage();
    this.monitor = monitor;
    ctx.blockConcurrencyWhile(
        () -> {
          storage
              .get(CONFIG_KEY, RoomConfig.class)
              .ifPresent(
                  saved -> {
                    config = saved;
                    ledger =
                        GlobalLedger.restore(
                            saved,
                            storage
                                .list(
                                    ListOptions.builder().prefix(AGGREGATE_PREFIX).build(),
                                    DataCenterAggregate.class)
                                .values());
                  });
          alarmSet = storage.getAlarm().isPresent();
          return null;
        });
  }

  @Override
  public GlobalReply report(RoomConfig roomConfig, DataCenterAggregate aggregate) {
    ThresholdMonitor.Sample sample = monitor.start();
    if (config != null && !config.roomId().equals(roomConfig.roomId())) {
      throw new IllegalArgumentException(
          "global object of room '"
              + config.roomId()
              + "' received a report of room '"
              + roomConfig.roomId()
              + "'");
    }
    if (ledger == null) {
      ledger = new GlobalLedger(roomConfig);
    }
    config = roomConfig;
    ledger.configure(roomConfig);
    Instant now = ctx.clock().instant();
    if (ledger.apply(aggregate)) {
      changed.add(aggregate.dataCenter());
    }
    if (!alarmSet) {
      storage.setAlarm(now.plus(config.dataCenterReportInterval()));
      alarmSet = true;
    }
    List<DataCenterAggregate> view = ledger.view(now);
    sample.succeeded();
    return new GlobalReply(view, monitor.thresholdExceeded());
  }

  @Override
  public void alarm() {
    alarmSet = false;
    if (ledger == null || changed.isEmpty()) {
      return; // nothing new since the last backup: sleep until the next report sets the alarm again
    }
    Map<String, Object> entries = new LinkedHashMap<>();
    entries.put(CONFIG_KEY, config);
    for (DataCenterAggregate a : ledger.snapshot()) {
      if (changed.contains(a.dataCenter())) {
        entries.put(AGGREGATE_PREFIX + a.dataCenter(), a);
      }
    }
    storage.put(entries, StorageOptions.DEFAULT.withAllowUnconfirmed());
    changed.clear();
    storage.setAlarm(ctx.clock().instant().plus(config.dataCenterReportInterval()));
    alarmSet = true;
  }
}
