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
  private boolean alarmSet;
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
    long nowMinute = RoomHistory.minuteOf(now);
    if (ledger.apply(aggregate)) {
      changed.add(aggregate.dataCenter());
      history.applyActivity(aggregate.dataCenter(), aggregate.activity(), nowMinute);
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
    if (ledger == null || (changed.isEmpty() && !history.hasChanges())) {
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
    storeHistory(RoomHistory.minuteOf(ctx.clock().instant()));
    sweepStoredPlaces(ctx.clock().millis());
    storage.setAlarm(ctx.clock().instant().plus(config.dataCenterReportInterval()));
    alarmSet = true;
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
