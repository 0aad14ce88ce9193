package io.anteroom.coordinator;

import io.anteroom.backpressure.AimdRateController;
import io.anteroom.backpressure.RateController;
import io.anteroom.backpressure.ThresholdMonitor;
import io.anteroom.objects.AlarmHandler;
import io.anteroom.objects.ObjectContext;
import io.anteroom.objects.Storage;
import io.anteroom.objects.StorageOptions;
import io.anteroom.room.DataCenterAggregate;
import io.anteroom.room.DataCenterLedger;
import io.anteroom.room.RoomConfig;
import io.anteroom.room.RoomState;
import io.anteroom.room.WorkerReport;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A data center's coordinating durable object: a thin shell over {@link DataCenterLedger}.
 *
 * <p>Invariants: the runtime runs one event at a time per object, so the ledger and the global view
 * are only touched by this object's events. Worker reports are applied in memory and answered at
 * once; the alarm (every {@code dataCenterReportInterval}, slower while the global object
 * throttles, by AIMD) sends the aggregate to the global object, keeps its answer, and backs the
 * memory up with an {@code allowUnconfirmed} write, so no reply ever waits for the disk. After a
 * restart the constructor rebuilds the memory from that backup; reports applied after the last
 * backup are lost and come back only as the sessions they counted renew (their ids are not marked
 * applied either, so a retry of such a report is counted again, correctly). A failed call to the
 * global object is logged and retried at the next alarm; the data center keeps deciding with the
 * view it has.
 */
final class DataCenterObject implements DataCenterCoordinator, AlarmHandler {
  private static final Logger LOG = LoggerFactory.getLogger(DataCenterObject.class);
  static final String BACKUP_KEY = "backup";

  /** The alarm stops after this long without a worker report (idle rooms cost nothing). */
  static final Duration STOP_AFTER_IDLE = Duration.ofMinutes(15);

  private final ObjectContext ctx;
  private final Storage storage;
  private final ThresholdMonitor monitor;
  private RoomConfig config;
  private DataCenterLedger ledger;
  private List<DataCenterAggregate> globalView = List.of();
  private RateController globalPace;
  private Instant lastReport = Instant.MIN;
  private boolean alarmSet;

  DataCenterObject(ObjectContext ctx, ThresholdMonitor monitor) {
    this.ctx = ctx;
    this.storage = ctx.storage();
    this.monitor = monitor;
    ctx.blockConcurrencyWhile(
        () -> {
          storage
              .get(BACKUP_KEY, Saved.class)
              .ifPresent(
                  saved -> {
                    config = saved.config();
                    ledger = DataCenterLedger.restore(saved.config(), saved.ledger());
                    globalView = saved.globalView();
                    saved
                        .ledger()
                        .workers()
                        .values()
                        .forEach(
                            w -> {
                              if (w.lastReport().isAfter(lastReport)) {
                                lastReport = w.lastReport();
                              }
                            });
                  });
          alarmSet = storage.getAlarm().isPresent();
          return null;
        });
  }

  /** What the backup holds. */
  record Saved(
      RoomConfig config, DataCenterLedger.Backup ledger, List<DataCenterAggregate> globalView) {}

  @Override
  public StateReply report(RoomConfig roomConfig, WorkerReport report) {
    ThresholdMonitor.Sample sample = monitor.start();
    adopt(roomConfig, report.dataCenter());
    Instant now = ctx.clock().instant();
    ledger.apply(report, now);
    lastReport = now;
    if (!alarmSet) {
      storage.setAlarm(now.plus(config.dataCenterReportInterval()));
      alarmSet = true;
    }
    RoomState state = ledger.roomState(globalView, now);
    sample.succeeded();
    return new StateReply(state, monitor.thresholdExceeded());
  }

  @Override
  public CompletableFuture<StateReply> reportAsync(RoomConfig roomConfig, WorkerReport report) {
    return CompletableFuture.completedFuture(report(roomConfig, report));
  }

  @Override
  public CompletableFuture<GlobalCoordinator.HistoryReply> historyAsync(
      String roomId, long fromMinute, long toMinute) {
    if (config != null && !config.roomId().equals(roomId)) {
      throw new IllegalArgumentException(
          "data center object of room '"
              + config.roomId()
              + "' was asked the history of room '"
              + roomId
              + "'");
    }
    return CompletableFuture.completedFuture(
        ctx.namespace(RoomObjects.GLOBAL_NAMESPACE, GlobalCoordinator.class)
            .get(roomId)
            .history(fromMinute, toMinute));
  }

  @Override
  public void alarm() {
    alarmSet = false;
    if (ledger == null) {
      return;
    }
    Instant now = ctx.clock().instant();
    DataCenterAggregate aggregate = ledger.aggregate(now);
    // back up first: a slow or failing global object must not hold the backup back
    storage.put(
        BACKUP_KEY,
        new Saved(config, ledger.backup(), globalView),
        StorageOptions.DEFAULT.withAllowUnconfirmed());
    try {
      GlobalCoordinator.GlobalReply reply =
          ctx.namespace(RoomObjects.GLOBAL_NAMESPACE, GlobalCoordinator.class)
              .get(config.roomId())
              .report(config, aggregate);
      globalView = reply.dataCenters();
      pace().onResponse(reply.throttle());
    } catch (RuntimeException e) {
      LOG.warn(
          "room {}: data center {} could not report to the global object; retrying at the next alarm: {}",
          config.roomId(),
          ledger.dataCenter(),
          e.toString());
    }
    if (lastReport.isAfter(now.minus(STOP_AFTER_IDLE))) {
      storage.setAlarm(now.plus(pace().nextDelay()));
      alarmSet = true;
    }
  }

  private void adopt(RoomConfig roomConfig, String dataCenter) {
    if (ledger == null) {
      ledger = new DataCenterLedger(roomConfig, dataCenter);
    } else if (!ledger.dataCenter().equals(dataCenter)
        || !config.roomId().equals(roomConfig.roomId())) {
      throw new IllegalArgumentException(
          "data center object of room '"
              + config.roomId()
              + "', data center '"
              + ledger.dataCenter()
              + "' received a report of room '"
              + roomConfig.roomId()
              + "', data center '"
              + dataCenter
              + "'");
    }
    config = roomConfig;
    ledger.configure(roomConfig);
  }

  /** DC → global pacing: AIMD on the global object's throttle, never faster than {@code r_dc}. */
  private RateController pace() {
    if (globalPace == null) {
      Duration min = config.dataCenterReportInterval();
      globalPace =
          AimdRateController.builder()
              .minInterval(min)
              .initialInterval(min)
              .maxInterval(Duration.ofSeconds(60).compareTo(min) > 0 ? Duration.ofSeconds(60) : min)
              .random(new Random(config.roomId().hashCode() * 31L + ledger.dataCenter().hashCode()))
              .clock(ctx.clock())
              .build();
    }
    return globalPace;
  }
}
