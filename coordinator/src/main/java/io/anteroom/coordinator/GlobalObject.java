package io.anteroom.coordinator;

import io.anteroom.backpressure.ThresholdMonitor;
import io.anteroom.objects.AlarmHandler;
import io.anteroom.objects.ListOptions;
import io.anteroom.objects.ObjectContext;
import io.anteroom.objects.Storage;
import io.anteroom.objects.StorageOptions;
import io.anteroom.room.ConfigAgreement;
import io.anteroom.room.DataCenterAggregate;
import io.anteroom.room.GlobalLedger;
import io.anteroom.room.RoomConfig;
import io.anteroom.room.RoomOverrides;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 *
 * <p>The room's live overrides ({@link RoomOverrides}) are the exception to "memory first": {@link
 * #override} writes them under {@value #OVERRIDES_KEY} with a confirmed write, so its answer (held
 * by the output gate) means they are durable; the constructor reads them back. The gateways' config
 * fingerprints are kept in memory only ({@link ConfigAgreement}): they are re-sent with every sync,
 * so after a restart the agreement is rebuilt within one report interval (the first gateway heard
 * from then is the first seen).
 */
final class GlobalObject implements GlobalCoordinator, AlarmHandler {
  static final String CONFIG_KEY = "config";
  static final String AGGREGATE_PREFIX = "dc/";
  static final String OVERRIDES_KEY = "overrides";

  /** A gateway whose fingerprint was not heard of for this long no longer counts. */
  static final Duration AGREEMENT_WINDOW = Duration.ofSeconds(60);

  private static final Logger LOG = LoggerFactory.getLogger(GlobalObject.class);

  private final ObjectContext ctx;
  private final Storage storage;
  private final ThresholdMonitor monitor;
  private RoomConfig config;
  private GlobalLedger ledger;
  private final Set<String> changed = new HashSet<>();
  private boolean alarmSet;
  private RoomOverrides overrides = RoomOverrides.NONE;
  private final ConfigAgreement agreement = new ConfigAgreement(AGREEMENT_WINDOW);

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
          storage.get(OVERRIDES_KEY, RoomOverrides.class).ifPresent(saved -> overrides = saved);
          alarmSet = storage.getAlarm().isPresent();
          return null;
        });
  }

  @Override
  public GlobalReply sync(
      RoomConfig roomConfig,
      DataCenterAggregate aggregate,
      List<ConfigAgreement.Fingerprint> fingerprints) {
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
    for (ConfigAgreement.Fingerprint f :
        fingerprints == null ? List.<ConfigAgreement.Fingerprint>of() : fingerprints) {
      agreement.see(f, now);
    }
    List<DataCenterAggregate> view = ledger.view(now);
    sample.succeeded();
    return new GlobalReply(
        view, monitor.thresholdExceeded(), overrides.version(), agreement.verdict(now));
  }

  @Override
  public RoomOverrides overrides() {
    return overrides;
  }

  @Override
  public RoomOverrides override(Map<String, String> changes) {
    RoomOverrides next = overrides.with(changes);
    if (next != overrides) {
      storage.put(OVERRIDES_KEY, next); // confirmed: the answer waits until it is durable
      overrides = next;
      LOG.info(
          "room {}: live overrides now version {}: {}",
          config != null ? config.roomId() : ctx.id(),
          next.version(),
          next.values());
    }
    return next;
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
