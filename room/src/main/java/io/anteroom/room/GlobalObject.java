package io.anteroom.room;

import io.anteroom.backpressure.ThresholdMonitor;
import io.anteroom.objects.AlarmHandler;
import io.anteroom.objects.ObjectContext;
import io.anteroom.objects.Storage;
import io.anteroom.objects.StorageOptions;
import java.time.Instant;
import java.util.List;

/**
 * A room's global durable object: a thin shell over {@link GlobalLedger}.
 *
 * <p>Invariants: one event at a time; everything lives in memory and is answered at once. An alarm (every
 * {@code dataCenterReportInterval} while data centers report) backs the newest aggregates up with an
 * {@code allowUnconfirmed} write, so no reply waits for the disk; the constructor rebuilds from that backup after a
 * restart, and data centers' next reports (full totals, not deltas) bring it up to date within seconds.
 */
final class GlobalObject implements GlobalCoordinator, AlarmHandler {
    static final String BACKUP_KEY = "backup";

    private final ObjectContext ctx;
    private final Storage storage;
    private final ThresholdMonitor monitor;
    private RoomConfig config;
    private GlobalLedger ledger;
    private boolean dirty;
    private boolean alarmSet;

    GlobalObject(ObjectContext ctx, ThresholdMonitor monitor) {
        this.ctx = ctx;
        this.storage = ctx.storage();
        this.monitor = monitor;
        ctx.blockConcurrencyWhile(() -> {
            storage.get(BACKUP_KEY, Saved.class).ifPresent(saved -> {
                config = saved.config();
                ledger = GlobalLedger.restore(saved.config(), saved.dataCenters());
            });
            alarmSet = storage.getAlarm().isPresent();
            return null;
        });
    }

    /** What the backup holds. */
    record Saved(RoomConfig config, List<DataCenterAggregate> dataCenters) {
    }

    @Override
    public GlobalReply report(RoomConfig roomConfig, DataCenterAggregate aggregate) {
        ThresholdMonitor.Sample sample = monitor.start();
        if (config != null && !config.roomId().equals(roomConfig.roomId())) {
            throw new IllegalArgumentException("global object of room '" + config.roomId()
                    + "' received a report of room '" + roomConfig.roomId() + "'");
        }
        if (ledger == null) {
            ledger = new GlobalLedger(roomConfig);
        }
        config = roomConfig;
        Instant now = ctx.clock().instant();
        dirty |= ledger.apply(aggregate);
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
        if (ledger == null || !dirty) {
            return;   // nothing new since the last backup: sleep until the next report sets the alarm again
        }
        storage.put(BACKUP_KEY, new Saved(config, ledger.snapshot()), StorageOptions.DEFAULT.withAllowUnconfirmed());
        dirty = false;
        storage.setAlarm(ctx.clock().instant().plus(config.dataCenterReportInterval()));
        alarmSet = true;
    }
}
