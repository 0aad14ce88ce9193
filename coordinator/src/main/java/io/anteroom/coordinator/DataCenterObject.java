package io.anteroom.coordinator;

import io.anteroom.backpressure.AimdRateController;
import io.anteroom.backpressure.RateController;
import io.anteroom.backpressure.ThresholdMonitor;
import io.anteroom.objects.AlarmHandler;
import io.anteroom.objects.ListOptions;
import io.anteroom.objects.ObjectContext;
import io.anteroom.objects.Storage;
import io.anteroom.objects.StorageOptions;
import io.anteroom.room.ConfigAgreement;
import io.anteroom.room.DataCenterAggregate;
import io.anteroom.room.DataCenterLedger;
import io.anteroom.room.RoomConfig;
import io.anteroom.room.RoomOverrides;
import io.anteroom.room.RoomState;
import io.anteroom.room.WorkerReport;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A data center's coordinating durable object: a thin shell over {@link DataCenterLedger}.
 *
 * <p>Invariants: the runtime runs one event at a time per object, so the ledger and the global view
 * are only touched by this object's events. Each worker report is applied in memory and also
 * written under {@code report/<worker>/<sequence>}, so its answer leaves only once the report is
 * durable (the output gate; many objects' reports share one group commit, or one Raft entry): a
 * report the worker saw answered is never lost with this object, and the worker, which forgets its
 * deltas once answered, needs no copy. The alarm (every {@code dataCenterReportInterval}, slower
 * while the global object throttles, by AIMD) sends the aggregate to the global object, keeps its
 * answer, and backs the memory up with an {@code allowUnconfirmed} write that also deletes the
 * reports it covers (one atomic batch). After a restart, or on a new Raft leader, the constructor
 * rebuilds the memory from that backup and applies the reports written after it (each once: the
 * backup marks the report ids it covers). A report whose answer was lost in flight is not marked
 * applied either when it was not durable, so its retry counts it once, correctly. A failed call to
 * the global object is logged and retried at the next alarm; the data center keeps deciding with
 * the view it has.
 *
 * <p>Gateways' config fingerprints are kept in memory per gateway and sent with the aggregate
 * (those heard from within {@link RoomConfig#WORKER_ACTIVE_WINDOW}); the global object's answer
 * (overrides version, config agreement) is passed back in every {@link StateReply}. A report whose
 * fingerprint disagrees with the authoritative one is counted, but its config is not adopted.
 * Override reads and writes are passed to the global object as they come.
 */
final class DataCenterObject implements DataCenterCoordinator, AlarmHandler {
  private static final Logger LOG = LoggerFactory.getLogger(DataCenterObject.class);
  static final String BACKUP_KEY = "backup";

  /** Reports answered since the last backup: {@code report/<worker>/<sequence>}. */
  static final String REPORT_PREFIX = "report/";

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
  private long overridesVersion = -1;
  private ConfigAgreement.Verdict agreement = ConfigAgreement.Verdict.UNKNOWN;
  private final Map<String, Heard> fingerprints = new LinkedHashMap<>();

  /** The keys of the reports written since the last backup. */
  private final List<String> unbackedReports = new ArrayList<>();

  private record Heard(ConfigAgreement.Fingerprint fingerprint, Instant at) {}

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
          // the reports answered after that backup (a crash, or a new leader, before its alarm)
          storage
              .list(ListOptions.builder().prefix(REPORT_PREFIX).build(), Logged.class)
              .forEach(this::replay);
          alarmSet = storage.getAlarm().isPresent();
          return null;
        });
  }

  /** A report as written before its answer: the config it came with, and when it was applied. */
  record Logged(RoomConfig config, WorkerReport report, Instant appliedAt) {}

  private void replay(String key, Logged logged) {
    unbackedReports.add(key);
    if (ledger == null) {
      config = logged.config();
      ledger = new DataCenterLedger(logged.config(), logged.report().dataCenter());
    }
    ledger.apply(logged.report(), logged.appliedAt());
    if (logged.appliedAt().isAfter(lastReport)) {
      lastReport = logged.appliedAt();
    }
  }

  /** The key a report is logged under; refuses a worker id too long for a storage key. */
  static String reportKey(WorkerReport report) {
    String key = REPORT_PREFIX + report.workerId() + "/" + report.sequence();
    int bytes = key.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    if (bytes > Storage.MAX_KEY_BYTES) {
      throw new IllegalArgumentException(
          "worker id of "
              + report.workerId().length()
              + " characters is too long: a report's log key may have at most "
              + Storage.MAX_KEY_BYTES
              + " bytes; the report was not applied");
    }
    return key;
  }

  /** What the backup holds. */
  record Saved(
      RoomConfig config, DataCenterLedger.Backup ledger, List<DataCenterAggregate> globalView) {}

  @Override
  public StateReply report(RoomConfig roomConfig, WorkerReport report) {
    return sync(roomConfig, report, null);
  }

  private StateReply sync(
      RoomConfig roomConfig, WorkerReport report, ConfigAgreement.Fingerprint fingerprint) {
    ThresholdMonitor.Sample sample = monitor.start();
    Instant now = ctx.clock().instant();
    adopt(
        roomConfig,
        report.dataCenter(),
        fingerprint == null || !agreement.disagrees(fingerprint.hash()));
    if (fingerprint != null) {
      fingerprints.put(fingerprint.gateway(), new Heard(fingerprint, now));
    }
    // checked before anything is applied: a report that cannot be logged is refused whole, never
    // counted in memory only (it would be lost with this object while its worker forgot it)
    String key = reportKey(report);
    if (ledger.apply(report, now)) {
      // durable before the answer leaves (output gate): the worker forgets what it answered
      storage.put(key, new Logged(config, report, now));
      unbackedReports.add(key);
    }
    lastReport = now;
    if (!alarmSet) {
      storage.setAlarm(now.plus(config.dataCenterReportInterval()));
      alarmSet = true;
    }
    RoomState state = ledger.roomState(globalView, now);
    sample.succeeded();
    return new StateReply(state, monitor.thresholdExceeded(), overridesVersion, agreement);
  }

  @Override
  public CompletableFuture<StateReply> reportAsync(RoomConfig roomConfig, WorkerReport report) {
    return CompletableFuture.completedFuture(report(roomConfig, report));
  }

  @Override
  public CompletableFuture<StateReply> syncAsync(
      RoomConfig roomConfig, WorkerReport report, ConfigAgreement.Fingerprint fingerprint) {
    return CompletableFuture.completedFuture(sync(roomConfig, report, fingerprint));
  }

  @Override
  public CompletableFuture<RoomOverrides> overridesAsync(String roomId) {
    RoomOverrides o = global(roomId).overrides();
    overridesVersion = Math.max(overridesVersion, o.version());
    return CompletableFuture.completedFuture(o);
  }

  @Override
  public CompletableFuture<RoomOverrides> overrideAsync(
      String roomId, Map<String, String> changes) {
    RoomOverrides o = global(roomId).override(changes);
    overridesVersion = Math.max(overridesVersion, o.version());
    return CompletableFuture.completedFuture(o);
  }

  private GlobalCoordinator global(String roomId) {
    if (config != null && !config.roomId().equals(roomId)) {
      throw new IllegalArgumentException(
          "data center object of room '"
              + config.roomId()
              + "' was asked about room '"
              + roomId
              + "'");
    }
    return ctx.namespace(RoomObjects.GLOBAL_NAMESPACE, GlobalCoordinator.class).get(roomId);
  }

  @Override
  public CompletableFuture<GlobalCoordinator.ClaimReply> claimAsync(
      String roomId, String nonce, long expiresAtMillis) {
    return CompletableFuture.completedFuture(global(roomId).claim(nonce, expiresAtMillis));
  }

  @Override
  public CompletableFuture<GlobalCoordinator.PlaceReply> placeAsync(
      String roomId, String account, io.anteroom.room.AccountPlaces.Place offer, long replacesId) {
    return CompletableFuture.completedFuture(global(roomId).place(account, offer, replacesId));
  }

  @Override
  public CompletableFuture<GlobalCoordinator.ReportReply> eventReportAsync(
      String roomId, long fromDay, long toDay) {
    return CompletableFuture.completedFuture(global(roomId).eventReport(fromDay, toDay));
  }

  @Override
  public CompletableFuture<GlobalCoordinator.HistoryReply> historyAsync(
      String roomId, long fromMinute, long toMinute) {
    return CompletableFuture.completedFuture(global(roomId).history(fromMinute, toMinute));
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
    // the backup covers every report applied so far: in the same batch, so never one without the
    // other
    if (!unbackedReports.isEmpty()) {
      storage.delete(List.copyOf(unbackedReports), StorageOptions.DEFAULT.withAllowUnconfirmed());
      unbackedReports.clear();
    }
    fingerprints
        .values()
        .removeIf(h -> h.at().isBefore(now.minus(RoomConfig.WORKER_ACTIVE_WINDOW)));
    List<ConfigAgreement.Fingerprint> heard =
        fingerprints.values().stream().map(Heard::fingerprint).toList();
    try {
      GlobalCoordinator.GlobalReply reply = global(config.roomId()).sync(config, aggregate, heard);
      globalView = reply.dataCenters();
      overridesVersion = Math.max(overridesVersion, reply.overridesVersion());
      agreement = reply.agreement() == null ? ConfigAgreement.Verdict.UNKNOWN : reply.agreement();
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

  /**
   * {@code replace}: take {@code roomConfig} as the data center's config (else keep the one it
   * has).
   */
  private void adopt(RoomConfig roomConfig, String dataCenter, boolean replace) {
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
    if (replace || config == null) {
      config = roomConfig;
      ledger.configure(roomConfig);
    }
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
