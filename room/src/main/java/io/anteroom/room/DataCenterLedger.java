package io.anteroom.room;

import io.anteroom.room.history.ActivityByMinute;
import io.anteroom.room.history.MinuteActivity;
import io.anteroom.room.history.RoomHistory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A data center coordinator's memory: the sum of its workers' reports, their heartbeats, and which
 * reports were already applied. Pure: the {@code DataCenterObject} shell (and the simulator) feed
 * it reports and the global view and hand back what it computes.
 *
 * <p>Invariants: methods are {@code synchronized}; a report {@code (workerId, sequence)} is added
 * at most once (retries and duplicates return {@code false} and only refresh the heartbeat); totals
 * are sums, so the order in which reports arrive does not change them.
 *
 * <pre>{@code
 * DataCenterLedger dublin = new DataCenterLedger(config, "dublin");
 * dublin.apply(worker.report(now), now);
 * global.apply(dublin.aggregate(now));
 * worker.applyState(dublin.roomState(global.view(now), now));
 * }</pre>
 */
public final class DataCenterLedger {
  /** Workers silent for longer are forgotten (their retries are then too old to matter). */
  static final Duration FORGET_WORKER_AFTER = Duration.ofMinutes(10);

  private RoomConfig config;
  private final String dataCenter;
  private final Tally totals = new Tally();
  private final ActivityByMinute activity = new ActivityByMinute();
  private final Map<String, AppliedReports> workers = new HashMap<>();
  private long version;
  private MinutePool pool;

  public DataCenterLedger(RoomConfig config, String dataCenter) {
    this.config = config;
    this.dataCenter = dataCenter;
  }

  public String dataCenter() {
    return dataCenter;
  }

  /** Takes an operator's new limits into account from now on (the counts are kept). */
  public synchronized void configure(RoomConfig newer) {
    if (!newer.roomId().equals(config.roomId())) {
      throw new IllegalArgumentException(
          "data center ledger of room '"
              + config.roomId()
              + "' cannot take the config of room '"
              + newer.roomId()
              + "'");
    }
    config = newer;
  }

  /**
   * Adds a worker's report once.
   *
   * @return {@code true} when applied, {@code false} when this report id was applied before
   */
  public synchronized boolean apply(WorkerReport report, Instant now) {
    if (!dataCenter.equals(report.dataCenter())) {
      throw new IllegalArgumentException(
          "report "
              + report.reportId()
              + " is for data center '"
              + report.dataCenter()
              + "' but was sent to '"
              + dataCenter
              + "'");
    }
    AppliedReports seen = workers.computeIfAbsent(report.workerId(), w -> new AppliedReports());
    if (seen.lastReport == null || now.isAfter(seen.lastReport)) {
      seen.lastReport = now;
    }
    if (!seen.markApplied(report.sequence())) {
      return false;
    }
    totals.add(report.deltas());
    activity.addAll(report.activity());
    return true;
  }

  /** Workers that reported within 30 s. */
  public synchronized int workersActive(Instant now) {
    Instant since = now.minus(RoomConfig.WORKER_ACTIVE_WINDOW);
    int n = 0;
    for (AppliedReports w : workers.values()) {
      if (w.lastReport.isAfter(since)) {
        n++;
      }
    }
    return n;
  }

  /** This data center's totals for the global object; also prunes what no longer counts. */
  public synchronized DataCenterAggregate aggregate(Instant now) {
    prune(now);
    return new DataCenterAggregate(
        dataCenter, now, ++version, workersActive(now), totals.toDeltas(), activity.snapshot());
  }

  /**
   * The state this data center's workers decide with: the global view, with this data center's own
   * entry replaced by its fresher totals. The pool of a minute is fixed at the first state computed
   * in it.
   *
   * @param globalView the newest aggregate of every data center, as the global object returned it
   */
  public synchronized RoomState roomState(Collection<DataCenterAggregate> globalView, Instant now) {
    Tally sum = new Tally();
    Map<String, SortedMap<Long, Long>> traffic = new TreeMap<>();
    int globalWorkers = 0;
    Instant activeSince = now.minus(RoomConfig.WORKER_ACTIVE_WINDOW);
    for (DataCenterAggregate a : globalView) {
      if (a.dataCenter().equals(dataCenter)) {
        continue;
      }
      sum.add(a.totals());
      traffic.put(a.dataCenter(), a.totals().trafficByMinute());
      if (a.asOf().isAfter(activeSince)) {
        globalWorkers += a.workersActive();
      }
    }
    Deltas own = totals.toDeltas();
    sum.add(own);
    traffic.put(dataCenter, own.trafficByMinute());
    int dcWorkers = workersActive(now);
    RoomState state =
        RoomStates.compute(
            config,
            dataCenter,
            sum.toDeltas(),
            traffic,
            dcWorkers,
            globalWorkers + dcWorkers,
            now,
            pool);
    pool = state.pool();
    return state;
  }

  /** Everything needed to rebuild this ledger after a restart. */
  public synchronized Backup backup() {
    Map<String, Backup.Worker> w = new TreeMap<>();
    workers.forEach(
        (id, a) -> w.put(id, new Backup.Worker(a.lastReport, a.contiguous, List.copyOf(a.above))));
    return new Backup(dataCenter, version, totals.toDeltas(), w, activity.snapshot());
  }

  /** A ledger rebuilt from a {@link #backup()}. */
  public static DataCenterLedger restore(RoomConfig config, Backup backup) {
    DataCenterLedger ledger = new DataCenterLedger(config, backup.dataCenter());
    ledger.version = backup.version();
    ledger.totals.add(backup.totals());
    ledger.activity.addAll(backup.activity());
    backup
        .workers()
        .forEach(
            (id, w) -> {
              AppliedReports a = new AppliedReports();
              a.lastReport = w.lastReport();
              a.contiguous = w.appliedThrough();
              a.above.addAll(w.appliedAbove());
              ledger.workers.put(id, a);
            });
    return ledger;
  }

  private void prune(Instant now) {
    totals.prune(Minutes.minuteOf(now), config);
    activity.pruneBefore(Minutes.minuteOf(now) - RoomHistory.ACTIVITY_WINDOW_MINUTES + 1);
    Instant forget = now.minus(FORGET_WORKER_AFTER);
    workers.values().removeIf(w -> w.lastReport.isBefore(forget));
  }

  /**
   * A data center ledger's saved form.
   *
   * @param dataCenter the data center
   * @param version the last aggregate version handed out
   * @param totals the summed deltas
   * @param workers per worker: last report time and the report sequences applied
   * @param activity the activity totals of the last minutes (null in older backups)
   */
  public record Backup(
      String dataCenter,
      long version,
      Deltas totals,
      Map<String, Worker> workers,
      SortedMap<Long, MinuteActivity> activity) {

    /** A backup without activity. */
    public Backup(String dataCenter, long version, Deltas totals, Map<String, Worker> workers) {
      this(dataCenter, version, totals, workers, null);
    }

    /**
     * @param lastReport when it last reported
     * @param appliedThrough every sequence up to this one was applied
     * @param appliedAbove sequences above {@code appliedThrough} applied out of order
     */
    public record Worker(Instant lastReport, long appliedThrough, List<Long> appliedAbove) {}
  }

  /**
   * Sequences applied for one worker: all up to {@code contiguous}, plus the out-of-order ones
   * above it.
   */
  private static final class AppliedReports {
    Instant lastReport;
    long contiguous;
    final TreeSet<Long> above = new TreeSet<>();

    boolean markApplied(long sequence) {
      if (sequence <= contiguous || !above.add(sequence)) {
        return false;
      }
      while (above.remove(contiguous + 1)) {
        contiguous++;
      }
      return true;
    }
  }

  /** For tests: the worker ids currently remembered. */
  synchronized List<String> rememberedWorkers() {
    return new ArrayList<>(workers.keySet());
  }
}
