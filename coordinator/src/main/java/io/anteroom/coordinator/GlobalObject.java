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
import io.anteroom.room.RoomGauges;
import io.anteroom.room.RoomOverrides;
import io.anteroom.room.UsedChallenges;
import io.anteroom.room.history.HistoryRow;
import io.anteroom.room.history.RoomHistory;
import io.anteroom.room.report.EventReport;
import io.anteroom.room.report.StateChanges;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
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
 *
 * <p>Account places ({@link #place}) are kept in memory and, each one the answer stores, written
 * under {@code place/<account>} with a confirmed write, so the answer means the place is durable; a
 * restarted object reads an account's place back the first time it is asked about it, and the alarm
 * deletes expired stored places a page at a time.
 *
 * <p>History: each report also brings the data center's activity totals of its last minutes, and
 * the view's counts are recorded per minute ({@link RoomHistory}). The same alarm stores the rows
 * that changed, one key per minute ({@code history/<epochMinute>}, zero-padded so keys sort by
 * minute), and deletes rows older than seven days, so the history is bounded by {@value
 * RoomHistory#RETENTION_MINUTES} keys. A restart loses at most the rows of the last alarm interval,
 * and the next aggregates (totals of the last minutes) restore those too.
 *
 * <p>Reports: the same alarm folds every minute that can no longer change into the room's {@link
 * EventReport} (per UTC day and per event, kept {@value EventReport#RETENTION_DAYS} days), stored
 * under {@value #REPORT_KEY} with its {@code foldedThrough} in the same value, so a lost write only
 * makes the next alarm fold the same minutes again from the stored history.
 *
 * <p>State changes and webhooks: this object is the one place that sees the whole room, so it is
 * the one that detects its state changes ({@link StateChanges}: on every sync, on {@link
 * #override}, and on the alarm, which keeps running while a data center is believed to report so
 * that one whose gateways all went silent is noticed); {@link RoomWebhooks} stores each change
 * before delivering it from the alarm, retried with back-off, so a restart loses none. The object's
 * one alarm serves both: it is set to the earlier of the next backup and the next delivery due.
 */
final class GlobalObject implements GlobalCoordinator, AlarmHandler {
  static final String CONFIG_KEY = "config";
  static final String AGGREGATE_PREFIX = "dc/";
  static final String OVERRIDES_KEY = "overrides";

  /** A gateway whose fingerprint was not heard of for this long no longer counts. */
  static final Duration AGREEMENT_WINDOW = Duration.ofSeconds(60);

  private static final Logger LOG = LoggerFactory.getLogger(GlobalObject.class);
  static final String HISTORY_PREFIX = "history/";

  private final ObjectContext ctx;
  private final Storage storage;
  private final ThresholdMonitor monitor;
  private RoomConfig config;
  private GlobalLedger ledger;
  private final Set<String> changed = new HashSet<>();
  private RoomHistory history;
  private Instant alarmAt;
  private EventReport report;
  private boolean reportChanged;
  private final RoomWebhooks webhooks;
  private RoomOverrides overrides = RoomOverrides.NONE;
  private final ConfigAgreement agreement = new ConfigAgreement(AGREEMENT_WINDOW);

  /** Proof-of-work challenges claimed deployment-wide (in memory; see {@link #claim}). */
  private final UsedChallenges claimed = new UsedChallenges(CLAIMED_CAPACITY);

  static final int CLAIMED_CAPACITY = 1 << 18;

  /**
   * Each account's one place in the room: in memory, and each stored place also under {@value
   * #PLACE_PREFIX}{@code <account>} (see {@link #place}).
   */
  private final io.anteroom.room.AccountPlaces places =
      new io.anteroom.room.AccountPlaces(PLACES_CAPACITY);

  static final int PLACES_CAPACITY = 1 << 18;

  static final String PLACE_PREFIX = "place/";

  /** Where the alarm's sweep of expired stored places goes on (null: from the start). */
  private String placeSweepAfter;

  static final String REPORT_KEY = "report";

  /** A data center counts as reporting while its aggregate is this recent with active workers. */
  static final Duration REPORTING_WINDOW = RoomConfig.WORKER_ACTIVE_WINDOW;

  GlobalObject(ObjectContext ctx, ThresholdMonitor monitor) {
    this(ctx, monitor, WebhookTargets.NONE);
  }

  GlobalObject(ObjectContext ctx, ThresholdMonitor monitor, WebhookTargets targets) {
    this.ctx = ctx;
    this.storage = ctx.storage();
    this.monitor = monitor;
    this.webhooks = ctx.blockConcurrencyWhile(() -> new RoomWebhooks(ctx, targets));
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
          long nowMinute = RoomHistory.minuteOf(ctx.clock().instant());
          history =
              new RoomHistory(
                  storage
                      .list(
                          ListOptions.builder()
                              .start(historyKey(nowMinute - RoomHistory.LIVE_MINUTES + 1))
                              .prefix(HISTORY_PREFIX)
                              .build(),
                          HistoryRow.class)
                      .values());
          report =
              EventReport.restore(storage.get(REPORT_KEY, EventReport.Saved.class).orElse(null));
          alarmAt = storage.getAlarm().orElse(null);
          if (alarmAt == null && webhooks.owed() > 0) {
            alarm(ctx.clock().instant()); // deliveries owed from before a restart
          }
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
    long nowMinute = RoomHistory.minuteOf(now);
    if (ledger.apply(aggregate)) {
      changed.add(aggregate.dataCenter());
      history.applyActivity(aggregate.dataCenter(), aggregate.activity(), nowMinute);
    }
    alarm(now.plus(config.dataCenterReportInterval()));
    reportChanged |= report.noteEvent(config.event());
    for (ConfigAgreement.Fingerprint f :
        fingerprints == null ? List.<ConfigAgreement.Fingerprint>of() : fingerprints) {
      agreement.see(f, now);
    }
    List<DataCenterAggregate> view = ledger.view(now);
    RoomGauges gauges = RoomGauges.of(config, view, now);
    history.recordGauges(
        nowMinute,
        new HistoryRow.Gauges(
            gauges.activeUsers(),
            gauges.waitingUsers(),
            config.totalActiveUsers(),
            config.newUsersPerMinute()),
        nowMinute);
    history.recordAbandoned(nowMinute - 1, gauges.abandonedLastMinute(), nowMinute);
    detect(now, gauges.waitingUsers());
    var authoritative = agreement.verdict(now).authoritative();
    changed(
        webhooks
            .changes(config.roomId())
            .configChanged(
                configKey(authoritative == null ? null : authoritative.hash()),
                "config file",
                authoritative == null
                    ? "the room's configuration changed"
                    : "the room's config file changed (fingerprint "
                        + authoritative.hash()
                        + ", gateway "
                        + authoritative.gateway()
                        + ")",
                now));
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
      if (config != null) {
        var v = agreement.verdict(ctx.clock().instant());
        changed(
            webhooks
                .changes(config.roomId())
                .configChanged(
                    configKey(v.authoritative() == null ? null : v.authoritative().hash()),
                    "admin API",
                    "live overrides version "
                        + next.version()
                        + " (changed keys: "
                        + String.join(", ", new java.util.TreeSet<>(changes.keySet()))
                        + ")",
                    ctx.clock().instant()));
      }
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
    alarmAt = null;
    Instant now = ctx.clock().instant();
    if (ledger != null) {
      detect(now, RoomGauges.of(config, ledger.view(now), now).waitingUsers());
    }
    webhooks.deliverDue();
    webhooks.nextDue().ifPresent(t -> alarm(Instant.ofEpochMilli(t)));
    if (ledger == null) {
      return;
    }
    nextWatch(ctx.clock().instant()).ifPresent(this::alarm);
    if (changed.isEmpty() && !history.hasChanges() && !reportChanged) {
      foldReport(RoomHistory.minuteOf(ctx.clock().instant()));
      return; // nothing new since the last backup: the next report sets the alarm again
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
    storeHistory(RoomHistory.minuteOf(ctx.clock().instant()));
    sweepStoredPlaces(ctx.clock().millis());
    foldReport(RoomHistory.minuteOf(ctx.clock().instant()));
    alarm(ctx.clock().instant().plus(config.dataCenterReportInterval()));
  }

  /** Sets the alarm to {@code at} unless it is set earlier already. */
  private void alarm(Instant at) {
    if (alarmAt == null || at.isBefore(alarmAt)) {
      storage.setAlarm(at);
      alarmAt = at;
    }
  }

  /**
   * When the alarm must look again without reports: after one report interval while a data center
   * is believed to report (its silence would be a change) or the room is queueing (its end is);
   * else at the next phase of a known event (pre-queue, start, end); else never.
   */
  private java.util.Optional<Instant> nextWatch(Instant now) {
    var memory = webhooks.changes(config.roomId()).memory();
    if (memory.dataCenters().containsValue(true) || memory.queueing()) {
      return java.util.Optional.of(now.plus(config.dataCenterReportInterval()));
    }
    return report.events().stream()
        .flatMap(e -> java.util.stream.Stream.of(e.prequeueFrom(), e.opensAt(), e.closesAt()))
        .filter(t -> t != null && t.isAfter(now))
        .min(Instant::compareTo);
  }

  /** Feeds what this object sees now to the room's state-change detector. */
  private void detect(Instant now, long waitingUsers) {
    java.util.Set<String> reporting = new java.util.TreeSet<>();
    for (DataCenterAggregate a : ledger.snapshot()) {
      if (a.workersActive() > 0
          && Duration.between(a.asOf(), now).compareTo(REPORTING_WINDOW) <= 0) {
        reporting.add(a.dataCenter());
      }
    }
    changed(
        webhooks
            .changes(config.roomId())
            .observe(
                new StateChanges.Observation(
                    now,
                    waitingUsers,
                    "true".equals(overrides.value("queueAll")),
                    reporting,
                    report.events())));
  }

  private void changed(List<io.anteroom.room.report.StateChange> detected) {
    if (webhooks.emit(detected)) {
      webhooks.nextDue().ifPresent(t -> alarm(Instant.ofEpochMilli(t)));
    }
  }

  /** The overrides version and the authoritative config fingerprint: a change of either is one. */
  private String configKey(String fingerprint) {
    return overrides.version() + "/" + (fingerprint == null ? "-" : fingerprint);
  }

  /**
   * Folds the minutes that can no longer change into the report and stores it when it changed
   * (unconfirmed: a lost write is folded again from the stored history).
   */
  private void foldReport(long nowMinute) {
    long through = EventReport.finalThrough(nowMinute);
    if (through > report.foldedThrough()) {
      long from = Math.max(report.foldedThrough() + 1, RoomHistory.firstKept(nowMinute));
      var rows =
          storage
              .list(
                  ListOptions.builder()
                      .start(historyKey(from))
                      .end(historyKey(through + 1))
                      .build(),
                  HistoryRow.class)
              .values();
      report.fold(rows, through);
      reportChanged = true;
    }
    if (reportChanged) {
      storage.put(REPORT_KEY, report.save(), StorageOptions.DEFAULT.withAllowUnconfirmed());
      reportChanged = false;
    }
  }

  @Override
  public ReportReply eventReport(long fromDay, long toDay) {
    long nowMinute = RoomHistory.minuteOf(ctx.clock().instant());
    long from = Math.max(report.foldedThrough() + 1, RoomHistory.firstKept(nowMinute));
    var stored =
        storage
            .list(
                ListOptions.builder()
                    .start(historyKey(from))
                    .end(historyKey(nowMinute + 2))
                    .build(),
                HistoryRow.class)
            .values();
    var unfolded = RoomHistory.merge(stored, history.live(), from, nowMinute + 2);
    return new ReportReply(report.days(fromDay, toDay, unfolded), report.eventLines(unfolded));
  }

  @Override
  public ClaimReply claim(String nonce, long expiresAtMillis) {
    byte[] bytes;
    try {
      bytes = java.util.Base64.getUrlDecoder().decode(nonce);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("nonce: not base64url", e);
    }
    if (bytes.length != UsedChallenges.NONCE_BYTES) {
      throw new IllegalArgumentException(
          "nonce: " + UsedChallenges.NONCE_BYTES + " bytes expected, found " + bytes.length);
    }
    long now = ctx.clock().millis();
    return new ClaimReply(claimed.use(bytes, expiresAtMillis, now) == UsedChallenges.Use.FIRST);
  }

  @Override
  public PlaceReply place(
      String account, io.anteroom.room.AccountPlaces.Place offer, long replacesId) {
    byte[] bytes;
    try {
      bytes = java.util.Base64.getUrlDecoder().decode(account);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("account: not base64url", e);
    }
    if (bytes.length != 12) {
      throw new IllegalArgumentException("account: 12 bytes expected, found " + bytes.length);
    }
    if (offer != null && (offer.sealed() == null || offer.sealed().length() > 1024)) {
      throw new IllegalArgumentException("offer: a sealed ticket of at most 1024 characters");
    }
    long now = ctx.clock().millis();
    if (!places.knows(account)) {
      // not in memory (a restart, or the account is new): the stored place, if any
      storage
          .get(PLACE_PREFIX + account, io.anteroom.room.AccountPlaces.Place.class)
          .ifPresent(
              stored -> {
                if (stored.expiresAtMillis() > now) {
                  places.remember(account, stored, now);
                } else {
                  storage.delete(
                      PLACE_PREFIX + account, StorageOptions.DEFAULT.withAllowUnconfirmed());
                }
              });
    }
    var r = places.place(account, offer, replacesId, now);
    if (r.stored()) {
      // confirmed: the answer (held by the output gate) means the place outlives a restart
      storage.put(PLACE_PREFIX + account, offer);
    }
    return new PlaceReply(r.place(), r.stored(), r.full());
  }

  @Override
  public HistoryReply history(long fromMinute, long toMinute) {
    long from =
        Math.max(fromMinute, RoomHistory.firstKept(RoomHistory.minuteOf(ctx.clock().instant())));
    if (from >= toMinute) {
      return new HistoryReply(List.of());
    }
    var stored =
        storage
            .list(
                ListOptions.builder().start(historyKey(from)).end(historyKey(toMinute)).build(),
                HistoryRow.class)
            .values();
    return new HistoryReply(RoomHistory.merge(stored, history.live(), from, toMinute));
  }

  /**
   * Writes the history rows that changed and deletes those older than the retention, at most {@link
   * Storage#MAX_KEYS_PER_CALL} keys per call.
   */
  private void storeHistory(long nowMinute) {
    List<HistoryRow> rows = history.takeChanged();
    for (int i = 0; i < rows.size(); i += Storage.MAX_KEYS_PER_CALL) {
      Map<String, Object> batch = new LinkedHashMap<>();
      for (HistoryRow r : rows.subList(i, Math.min(rows.size(), i + Storage.MAX_KEYS_PER_CALL))) {
        batch.put(historyKey(r.minute()), r);
      }
      storage.put(batch, StorageOptions.DEFAULT.withAllowUnconfirmed());
    }
    history.evict(nowMinute);
    List<String> expired =
        new ArrayList<>(
            storage
                .list(
                    ListOptions.builder()
                        .prefix(HISTORY_PREFIX)
                        .end(historyKey(RoomHistory.firstKept(nowMinute)))
                        .limit(Storage.MAX_KEYS_PER_CALL)
                        .build(),
                    HistoryRow.class)
                .keySet());
    if (!expired.isEmpty()) {
      storage.delete(expired, StorageOptions.DEFAULT.withAllowUnconfirmed());
    }
  }

  /**
   * Deletes the expired places among the next {@link Storage#MAX_KEYS_PER_CALL} stored ones (one
   * page an alarm, round the key space), so that stored places are bounded as the memory's are: a
   * place lives 24 hours after its last change, and a full round takes {@code places / 128} alarms.
   */
  private void sweepStoredPlaces(long now) {
    ListOptions.Builder page =
        ListOptions.builder().prefix(PLACE_PREFIX).limit(Storage.MAX_KEYS_PER_CALL);
    if (placeSweepAfter != null) {
      page.startAfter(placeSweepAfter);
    }
    var stored = storage.list(page.build(), io.anteroom.room.AccountPlaces.Place.class);
    List<String> expired = new ArrayList<>();
    String last = null;
    for (var e : stored.entrySet()) { // in key order
      last = e.getKey();
      if (e.getValue().expiresAtMillis() <= now) {
        expired.add(last);
      }
    }
    if (!expired.isEmpty()) {
      storage.delete(expired, StorageOptions.DEFAULT.withAllowUnconfirmed());
    }
    placeSweepAfter = stored.size() < Storage.MAX_KEYS_PER_CALL ? null : last; // else round again
  }

  /** {@code history/<epochMinute>}, zero-padded to 12 digits so that keys sort by minute. */
  static String historyKey(long minute) {
    return HISTORY_PREFIX + String.format("%012d", Math.max(0, minute));
  }
}
