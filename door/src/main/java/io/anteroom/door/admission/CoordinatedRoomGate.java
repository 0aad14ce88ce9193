package io.anteroom.door.admission;

import io.anteroom.backpressure.AimdRateController;
import io.anteroom.backpressure.RateController;
import io.anteroom.door.config.FailMode;
import io.anteroom.door.config.GatewayConfig.RoomSettings;
import io.anteroom.door.config.LiveOverrides;
import io.anteroom.room.BucketState;
import io.anteroom.room.Charge;
import io.anteroom.room.ConfigAgreement;
import io.anteroom.room.CounterMemory;
import io.anteroom.room.Decision;
import io.anteroom.room.Grant;
import io.anteroom.room.Outages;
import io.anteroom.room.RoomConfig;
import io.anteroom.room.RoomOverrides;
import io.anteroom.room.RoomState;
import io.anteroom.room.RoomWorker;
import io.anteroom.room.Ticket;
import io.anteroom.room.TicketLedger;
import io.anteroom.room.WaitEstimate;
import io.anteroom.room.WorkerReport;
import io.anteroom.room.slots.StrategyKind;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A room's admission gate backed by the room core: one {@link RoomWorker} per event-loop thread (a
 * worker shard, so the admitted path takes only an uncontended monitor), counters and room state
 * through a {@link Coordination}. All decisions are the room core's; this class only carries
 * tickets, counter calls and reports, and applies the room's {@code failMode} when the coordination
 * fails.
 *
 * <p>Invariants: a shard worker decides for the threads assigned to it (one event loop each; at
 * most {@link #MAX_SHARDS} shards, so the threads of a thread-per-request server share them); its
 * {@code onCounterReply} may run on the coordination's thread (the worker is synchronized). The
 * degraded fallback (even split from the last known state) is one worker per gate, shared by all
 * event loops: one share of the free slots for the whole process, never one per loop. A report that
 * failed is resent as the same object before the worker's later deltas (the data center applies
 * each report once). Settings changes flush the old workers' deltas into the pending reports before
 * new workers replace them. The gate is degraded ({@link Outages}) from a failed coordination call
 * until a report round succeeds and every admission made meanwhile without a counter grant is
 * charged to the counters ({@link Charge}: otherwise the counters would hand those slots out again
 * in the same minute); for {@code W = r_w + 2 × r_dc} after that, new users draw no counter (they
 * are queued), so that other gateways back from the same outage have charged theirs first. The
 * fallback's one share also covers the shards' admissions since the state, and a counter grant
 * answered after an outage began admits only within it ({@link Outages#settleLateGrant}).
 *
 * <p>Live overrides: every report carries the fingerprint of the room's settings ({@link
 * LiveOverrides#fingerprint}); every answer carries the room's overrides version and config
 * agreement. The gate fetches the overrides when it starts and whenever the answered version is
 * newer than the one it delivered, and hands each newer version, once and in order, to the listener
 * ({@link #onOverrides}, the edge's {@code Rooms}), which applies it. A config conflict is logged
 * at WARN when it starts or its set of disagreeing gateways changes, and again every {@link
 * #CONFLICT_LOG_INTERVAL} while it lasts.
 */
public final class CoordinatedRoomGate implements RoomGate, RoomControl {

  private static final Logger LOG = LoggerFactory.getLogger(CoordinatedRoomGate.class);

  /**
   * Every admission of a new user at DEBUG, with what it rested on (a counter's number, a late
   * grant, the degraded fallback's share, a whole bucket, a worker's slot) and the state it was
   * decided on: for finding which rule let a user in, as the fault suite does.
   */
  public static final String ADMISSIONS_LOGGER = "anteroom.admissions";

  private static final Logger ADMISSIONS = LoggerFactory.getLogger(ADMISSIONS_LOGGER);

  /** A lasting config conflict is logged again this often. */
  static final Duration CONFLICT_LOG_INTERVAL = Duration.ofMinutes(5);

  /**
   * Room settings, the new users per minute in force (origin protection) and the room-core config
   * derived from both; replaced as a whole.
   */
  private record Setup(
      RoomSettings base,
      RoomSettings settings,
      int effectiveNewUsersPerMinute,
      RoomConfig config,
      long validUntilMillis) {}

  /**
   * The setup of {@code base} at {@code now}: the settings in force (a scheduled event's overrides)
   * and the room-core config with the event's window, valid until the next event boundary.
   */
  private static Setup setupAt(RoomSettings base, int effective, Instant now) {
    Instant next = base.nextEventChange(now);
    return new Setup(
        base,
        base.at(now),
        effective,
        base.roomConfigAt(now, effective),
        next.equals(Instant.MAX) ? Long.MAX_VALUE : next.toEpochMilli());
  }

  /**
   * The workers of one room configuration: one per deciding thread with the configured strategy, up
   * to {@link #MAX_SHARDS} (threads beyond that share them, in turn), and the process's single
   * degraded fallback ({@link RoomWorker#withoutCoordinator}: an even split of the last known
   * state's free slots for the whole outage). The fallback reports only when it has something to
   * report, so an unused fallback is not counted as an active worker and does not shrink the
   * shards' even-split shares.
   */
  private record Workers(
      RoomConfig config,
      List<RoomWorker> shards,
      ThreadLocal<RoomWorker> assigned,
      RoomWorker fallback,
      CounterMemory counters) {

    /** Every worker that decides or reports: the shards and the fallback. */
    List<RoomWorker> all() {
      var all = new ArrayList<RoomWorker>(shards);
      all.add(fallback);
      return all;
    }
  }

  /**
   * At most this many worker shards per room configuration: an event-loop server (Vert.x: twice the
   * cores by default) gets one per loop; a thread-per-request server (a servlet container's pool of
   * up to hundreds of threads, which it renews, or a virtual thread per request) shares them, so
   * that the shards, their reports and the active workers the room counts do not grow with the
   * threads. A shard is a synchronized worker: sharing it costs at most a contended monitor.
   */
  public static final int MAX_SHARDS = Math.max(8, 2 * Runtime.getRuntime().availableProcessors());

  public static final Duration MAX_REPORT_INTERVAL = Duration.ofSeconds(20);

  /** The room's draws: the deployment's lottery key, or the room id only without one. */
  private final DrawSecrets draws;

  private final String dataCenter;
  private final String processId;
  private final Coordination coordination;

  private final Clock clock;
  private final AtomicLong shardIds = new AtomicLong();

  /** Which shard a thread beyond {@link #MAX_SHARDS} shares next. */
  private final java.util.concurrent.atomic.AtomicInteger shardTurn =
      new java.util.concurrent.atomic.AtomicInteger();

  /**
   * The ticket ids this process admitted or ended, for all workers of the room, kept across
   * settings changes.
   */
  private final TicketLedger ledger;

  private final java.security.SecureRandom seeds = new java.security.SecureRandom();
  private volatile Setup setup;
  private volatile Workers workers;
  private final Map<RoomWorker, WorkerReport> unsent = new ConcurrentHashMap<>();
  private final List<WorkerReport> retired = new java.util.concurrent.CopyOnWriteArrayList<>();

  /**
   * The newest state answered (guarded by {@link #stateLock} for writes; see {@link #applyState}).
   */
  private volatile RoomState lastState;

  private final Object stateLock = new Object();

  /** Degraded or not, and which counter grants came after an outage began (late grants). */
  private final Outages outages;

  /**
   * Admissions of new users that no counter granted (degraded, with the counters strategy), not yet
   * charged to the counters ({@link Charge}).
   */
  private final AtomicLong uncharged = new AtomicLong();

  private volatile boolean configured;
  private long nextReportAt;
  private volatile ConfigAgreement.Fingerprint fingerprint;
  private volatile ConfigAgreement.Verdict agreement = ConfigAgreement.Verdict.UNKNOWN;
  private volatile Consumer<RoomOverrides> overridesListener = o -> {};

  /** The newest overrides version delivered to the listener (-1: none yet). */
  private final AtomicLong deliveredOverrides = new AtomicLong(-1);

  private final java.util.concurrent.atomic.AtomicBoolean fetchingOverrides =
      new java.util.concurrent.atomic.AtomicBoolean();
  private List<String> loggedConflict = List.of();
  private Instant conflictLoggedAt = Instant.MIN;

  /**
   * Report pacing: from the room core's {@code workerReportInterval} up to 20 s, so a worker still
   * reports well within the 30 s window that counts it as active.
   */
  private final RateController reportPace;

  private boolean reporting;

  public CoordinatedRoomGate(
      RoomSettings settings,
      String dataCenter,
      String processId,
      Coordination coordination,
      Clock clock) {
    this(settings, dataCenter, processId, coordination, clock, null);
  }

  /**
   * @param lotteryKey the secret of random queueing's lots and of the pre-queue shuffle (at least
   *     16 bytes; the same on every gateway of a deployment, see {@link #lotteryKey}); null for the
   *     room core's default, keyed by the room id only
   */
  public CoordinatedRoomGate(
      RoomSettings settings,
      String dataCenter,
      String processId,
      Coordination coordination,
      Clock clock,
      byte[] lotteryKey) {
    this.draws =
        lotteryKey == null
            ? DrawSecrets.unkeyed("anteroom lottery " + settings.id())
            : new DrawSecrets(lotteryKey);
    this.dataCenter = dataCenter;
    this.processId = processId;
    this.coordination = coordination;
    this.outages = new Outages(coordination.incarnationChanges());
    this.clock = clock;
    // sized for the largest T the room will have, its scheduled events' included
    int largestT =
        settings.events().stream()
            .flatMap(e -> e.totalActiveUsers().stream())
            .reduce(settings.limits().totalActiveUsers(), Math::max);
    this.ledger = new TicketLedger(TicketLedger.capacityFor(largestT));
    this.setup = setupAt(settings, settings.limits().newUsersPerMinute(), clock.instant());
    this.lastState = RoomState.initial(setup.config(), dataCenter, clock.instant());
    this.workers = newWorkers(setup.config());
    this.fingerprint = fingerprintOf(settings);
    Duration min = setup.config().workerReportInterval();
    this.reportPace =
        RateController.synchronizedController(
            AimdRateController.builder()
                .minInterval(min)
                .maxInterval(MAX_REPORT_INTERVAL.compareTo(min) > 0 ? MAX_REPORT_INTERVAL : min)
                .clock(clock)
                .build());
    configureCoordinator();
    fetchOverrides();
  }

  private ConfigAgreement.Fingerprint fingerprintOf(RoomSettings settings) {
    return new ConfigAgreement.Fingerprint(
        processId, dataCenter, LiveOverrides.fingerprint(settings), settings.generation());
  }

  @Override
  public void onOverrides(Consumer<RoomOverrides> listener) {
    this.overridesListener = listener;
    RoomOverrides last = lastOverrides.get();
    if (last != null) {
      listener.accept(last); // perhaps twice with a concurrent delivery: the listener keeps newest
    }
  }

  /** The newest overrides learnt (null: none yet). */
  private final java.util.concurrent.atomic.AtomicReference<RoomOverrides> lastOverrides =
      new java.util.concurrent.atomic.AtomicReference<>();

  @Override
  public CompletionStage<RoomOverrides> override(java.util.Map<String, String> changes) {
    return coordination
        .override(setup.settings().id(), dataCenter, changes)
        .thenApply(
            o -> {
              deliver(o);
              return o;
            });
  }

  /** Fetches the room's overrides (one fetch at a time); a failure is retried by later reports. */
  private void fetchOverrides() {
    if (!fetchingOverrides.compareAndSet(false, true)) {
      return;
    }
    coordination
        .overrides(setup.settings().id(), dataCenter)
        .whenComplete(
            (o, e) -> {
              fetchingOverrides.set(false);
              if (o != null) {
                deliver(o);
              }
            });
  }

  /**
   * Hands {@code o} to the listener if it is newer than every version learnt before. No lock is
   * held while the listener runs (it takes the edge's lock, which calls into this gate); two
   * deliveries may reach it out of order, so the listener keeps only the newest version.
   */
  private void deliver(RoomOverrides o) {
    RoomOverrides seen;
    do {
      seen = lastOverrides.get();
      if (seen != null && o.version() <= seen.version()) {
        return;
      }
    } while (!lastOverrides.compareAndSet(seen, o));
    deliveredOverrides.accumulateAndGet(o.version(), Math::max);
    overridesListener.accept(o);
  }

  /** Keeps the answered agreement and logs a conflict (rate-limited). */
  private void agreement(ConfigAgreement.Verdict verdict) {
    agreement = verdict == null ? ConfigAgreement.Verdict.UNKNOWN : verdict;
    List<String> disagreeing =
        agreement.disagreeing().stream()
            .map(f -> f.gateway() + "@" + f.dataCenter() + "=" + f.hash())
            .toList();
    Instant now = clock.instant();
    synchronized (this) {
      if (disagreeing.isEmpty()) {
        if (!loggedConflict.isEmpty()) {
          LOG.info("room {}: the gateways agree on its config again", setup.settings().id());
        }
        loggedConflict = List.of();
        return;
      }
      if (disagreeing.equals(loggedConflict)
          && now.isBefore(conflictLoggedAt.plus(CONFLICT_LOG_INTERVAL))) {
        return;
      }
      loggedConflict = disagreeing;
      conflictLoggedAt = now;
    }
    ConfigAgreement.Fingerprint a = agreement.authoritative();
    LOG.warn(
        "room {}: CONFIG CONFLICT: gateways disagree on the room's config; the coordinator goes by"
            + " {}@{}={} (generation {}); disagreeing: {}; this gateway's fingerprint is {}. Give"
            + " every gateway the same room config.",
        setup.settings().id(),
        a == null ? "?" : a.gateway(),
        a == null ? "?" : a.dataCenter(),
        a == null ? "?" : a.hash(),
        a == null ? "?" : a.generation(),
        disagreeing,
        fingerprint.hash());
  }

  private void configureCoordinator() {
    configured = false;
    coordination
        .configure(setup.config())
        .whenComplete(
            (v, e) -> {
              if (e != null) {
                goDegraded(e);
              } else {
                configured = true;
              }
            });
  }

  /**
   * How many worker shards exist: one per thread that has decided for this room (an event loop), at
   * most {@link #MAX_SHARDS}.
   */
  public int shardCount() {
    return workers.shards().size();
  }

  /**
   * The calling thread's worker of the current configuration: assigned on the thread's first
   * decision, a new one while there are fewer than {@link #MAX_SHARDS}, else the existing ones in
   * turn. The assignment lives and dies with the thread (a thread-local of this configuration).
   */
  private RoomWorker shard() {
    Workers current = workers;
    RoomWorker w = current.assigned().get();
    if (w == null) {
      w = assign(current);
      current.assigned().set(w);
    }
    return w;
  }

  private RoomWorker assign(Workers current) {
    synchronized (current) {
      List<RoomWorker> shards = current.shards();
      if (shards.size() < MAX_SHARDS) {
        RoomWorker w = newWorker(current.config(), "");
        shards.add(w);
        return w;
      }
      return shards.get(Math.floorMod(shardTurn.getAndIncrement(), MAX_SHARDS));
    }
  }

  private Workers newWorkers(RoomConfig config) {
    // failMode degrade decides from the last known state with even split: no counter calls
    // the process's one share also covers what its shards admitted since the state
    List<RoomWorker> shards = new java.util.concurrent.CopyOnWriteArrayList<>();
    RoomWorker fallback =
        newWorker(config.withStrategy(StrategyKind.EVEN_SPLIT), "/degraded")
            .withoutCoordinator(
                () -> shards.stream().mapToLong(RoomWorker::admittedSinceState).sum());
    return new Workers(
        config, shards, new ThreadLocal<>(), fallback, new CounterMemory(config.rules()));
  }

  private RoomWorker newWorker(RoomConfig config, String suffix) {
    String id = config.roomId() + "/" + processId + "/" + shardIds.incrementAndGet() + suffix;
    var ids = new java.util.SplittableRandom(seeds.nextLong());
    var worker = new RoomWorker(config, dataCenter, id, clock.instant(), ledger, ids, draws);
    worker.applyState(lastState);
    return worker.recoveringWith(outages);
  }

  @Override
  public RoomGate gate() {
    return this;
  }

  @Override
  public DrawSecrets draws() {
    return draws;
  }

  @Override
  public boolean startsOver(Ticket ticket, long nowMillis) {
    RoomWorker worker =
        outages.degraded() && setup.settings().resilience().failMode() == FailMode.DEGRADE
            ? workers.fallback()
            : shard();
    return worker.startsOver(ticket, Instant.ofEpochMilli(nowMillis));
  }

  @Override
  public CompletionStage<Verdict> decide(Ticket ticket, long nowMillis) {
    Setup current = setup;
    if (nowMillis >= current.validUntilMillis()) {
      current = onEventBoundary(nowMillis); // a scheduled event starts or ends: rare
    }
    Instant now = Instant.ofEpochMilli(nowMillis);
    noticeIncarnationChanges(coordination.incarnationChanges());
    boolean useFallback =
        outages.degraded() && current.settings().resilience().failMode() == FailMode.DEGRADE;
    RoomWorker worker = useFallback ? workers.fallback() : shard();
    if (current.settings().switches().queueAll() && !worker.hasRunningSession(ticket, now)) {
      // queue-all: nobody new enters; the worker still places (and counts) the user in its bucket
      return CompletableFuture.completedFuture(queueAll(worker, ticket, now, current));
    }
    Decision d = worker.decide(ticket, now);
    if (useFallback) {
      countUncharged(d, current);
    }
    traceAdmission(d, worker, "decided on the state", null, null);
    if (d instanceof Decision.Draw draw) {
      return draw(worker, draw, now, current);
    }
    return CompletableFuture.completedFuture(verdict(d, worker, current));
  }

  private CompletionStage<Verdict> draw(
      RoomWorker worker, Decision.Draw draw, Instant now, Setup current) {
    // first: an outage from here on, or a change of the coordinator's instance seen from here on,
    // makes the grant late; a recovery before the mark has paused draws, checked after it
    long changes = coordination.incarnationChanges();
    noticeIncarnationChanges(changes);
    Outages.Mark mark = outages.mark(changes);
    if (outages.drawsPaused(now)) {
      // just back from an outage: the others' charges may not be on the counters yet, nor their
      // admissions in the state that makes a bucket whole; nobody draws, a whole bucket neither
      return CompletableFuture.completedFuture(verdict(worker.refuse(draw, now), worker, current));
    }
    if (outages.degraded() && current.settings().resilience().failMode() != FailMode.DEGRADE) {
      // open: let new users through (still counted); closed: queue them (a refusal)
      Grant grant =
          current.settings().resilience().failMode() == FailMode.OPEN
              ? new Grant(draw.counter().minute(), 0, true)
              : Grant.unavailable(draw.counter().minute());
      Decision next = worker.onCounterReply(draw, grant, now);
      if (grant.granted()) {
        countUncharged(next, current); // open: a grant no counter gave
      }
      traceAdmission(
          next, worker, "failMode " + current.settings().resilience().failMode(), null, null);
      return settle(worker, next, now, current);
    }
    CounterMemory counters = workers.counters();
    if (counters.refuses(draw)) {
      // the counter already answered a number at or above this limit in this minute: it would
      // refuse again, so it is not asked (a head-of-queue user's every refresh was a call)
      Decision next = worker.onCounterReply(draw, counters.refusal(draw), now);
      traceAdmission(next, worker, "remembered refusal", draw, null);
      return settle(worker, next, now, current);
    }
    return coordination
        .take(draw.counter(), draw.limit(), draw.carriedSince())
        .exceptionally(
            failure -> {
              goDegraded(failure);
              return Grant.unavailable(draw.counter().minute());
            })
        .thenCompose(
            grant -> {
              counters.answered(draw, grant);
              // this reply's instance too
              long changesNow = coordination.incarnationChanges();
              noticeIncarnationChanges(changesNow);
              boolean isLate = outages.late(mark, changesNow);
              // the core's time is the answer's: one answered after its minute admits nobody
              Instant answered = clock.instant();
              if (grant.granted()
                  && isLate
                  && current.settings().resilience().failMode() == FailMode.DEGRADE) {
                Workers shards = workers;
                Decision late =
                    outages.settleLateGrant(
                        worker,
                        shards.shards().contains(worker),
                        shards.fallback(),
                        draw,
                        grant,
                        answered);
                traceAdmission(late, worker, "late grant", draw, grant);
                return CompletableFuture.completedFuture(verdict(late, worker, current));
              }
              Decision next = worker.onCounterReply(draw, grant, answered);
              traceAdmission(next, worker, grant.granted() ? "number" : "refusal", draw, grant);
              return settle(worker, next, answered, current);
            });
  }

  /**
   * One DEBUG line on {@link #ADMISSIONS_LOGGER} when {@code d} admits a new user: the room, the
   * ticket's first 6 hex digits, the reason, {@code how} it was decided (with the counter's answer
   * to {@code draw}: "number 3 of Draw[...]"; {@code draw} and {@code grant} may be null), whether
   * by the degraded fallback, and the worker's state (as of when, how many active). The text is
   * built only when the line is written: the remembered refusal is on a full room's hot path.
   */
  private void traceAdmission(
      Decision d, RoomWorker worker, String how, Decision.Draw draw, Grant grant) {
    if (!(d instanceof Decision.Admit a)
        || a.reason() == Decision.AdmitReason.SESSION
        || !ADMISSIONS.isDebugEnabled()) { // a running session's request, the most common, first
      return;
    }
    if (draw != null) {
      how += (grant == null ? "" : " " + grant.number()) + " of " + draw;
    }
    RoomState state = worker.state();
    ADMISSIONS.debug(
        "room {}: admitted {} ({}, {}{}; degraded {}; state as of {} with {} active, {} admitted in"
            + " its minute; pool {})",
        setup.settings().id(),
        String.format("%016x", a.ticket().id()).substring(0, 6),
        a.reason(),
        how,
        worker == workers.fallback() ? ", by the fallback's share" : "",
        outages.degraded(),
        state == null ? "none" : state.asOf(),
        state == null ? "?" : state.activeUsers(),
        state == null ? "?" : state.newUsersThisMinute(),
        worker.lastPool());
  }

  /** A coordination call failed: degraded (a new outage, if it was not degraded yet). */
  private void goDegraded(Throwable failure) {
    Throwable cause = failure;
    while (cause instanceof java.util.concurrent.CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    goDegraded("the coordinator did not answer (" + cause + ")");
  }

  private void goDegraded(String why) {
    boolean was = outages.degraded();
    outages.failed();
    if (!was) {
      logOutage(why);
    }
  }

  private void logOutage(String why) {
    LOG.warn(
        "room {}: {}; deciding from the last known state until it answers again (failMode {})",
        setup.settings().id(),
        why,
        setup.settings().resilience().failMode());
  }

  /**
   * An outage when the coordination saw the coordinator's objects recreated ({@link
   * Coordination#incarnationChanges}) since the last notice ({@link
   * Outages#noticeInstanceChanges}): grants of the new instance are then late here, and new users
   * are decided by the fallback. Logged like a failed call.
   */
  private void noticeIncarnationChanges(long changes) {
    if (outages.noticeInstanceChanges(changes)) {
      logOutage("the coordinator's objects were recreated (a restart or a new leader)");
    }
  }

  /** Counts an admission of a new user that no counter granted, when the room draws counters. */
  private void countUncharged(Decision d, Setup current) {
    if (Charge.owedFor(d, current.config())) {
      uncharged.incrementAndGet();
    }
  }

  /**
   * Charges the admissions that no counter granted to the counters of the current minute ({@link
   * Charge}); true when nothing is left uncharged. A charge whose answer was lost may be applied
   * twice when it is retried: that holds back slots for the rest of the minute, never hands one out
   * twice. Admissions from a minute that is over are charged to the current one too, since the
   * other data centers' states may not count them yet; once they do, the slots stay held back for
   * the rest of the minute (the room errs on the side of its limit).
   */
  private CompletionStage<Boolean> chargeUncharged() {
    long n = uncharged.getAndSet(0);
    if (n == 0) {
      return CompletableFuture.completedFuture(true);
    }
    Charge c = anyWorker().charge(n, clock.instant());
    var left = new AtomicLong(n);
    return coordination
        .charge(c.dataCenter(), n, c.dataCenterLimit())
        .thenCompose(
            rest -> {
              left.set(rest);
              return rest == 0
                  ? CompletableFuture.completedFuture(0L)
                  : coordination.charge(c.anywhere(), rest, Long.MAX_VALUE);
            })
        .handle(
            (rest, failure) -> {
              if (failure != null) {
                uncharged.addAndGet(left.get());
                return false;
              }
              LOG.info(
                  "room {}: {} admission(s) made without the coordinator charged to minute {}'s"
                      + " counters",
                  setup.settings().id(),
                  n,
                  c.dataCenter().minute());
              return true;
            })
        .thenCompose(
            charged ->
                charged && uncharged.get() > 0
                    ? chargeUncharged() // admitted while the charge was on its way
                    : CompletableFuture.completedFuture(charged));
  }

  /**
   * Ends the degraded state once a report round succeeded and every admission made without a grant
   * is charged, unless a call failed since the round's answers ({@code failuresBefore}); new users
   * then wait {@code W} before they draw counters again ({@link Outages#drawsPaused}).
   */
  private void recovered(boolean charged, long failuresBefore) {
    if (!charged) {
      goDegraded("a charge of the admissions made without it was not answered");
      return;
    }
    if (outages.degraded()) {
      synchronized (stateLock) {
        if (!outages.recovered(
            failuresBefore, clock.instant(), setup.config().propagationWindow())) {
          return; // a call failed meanwhile: the next round tries again
        }
        handStateToWorkers(); // held back while degraded (applyState)
      }
      LOG.info(
          "room {}: the coordinator answers again; new users draw its counters in {} s",
          setup.settings().id(),
          setup.config().propagationWindow().toSeconds());
    }
  }

  /** A worker of the current configuration holding the last known state. */
  private RoomWorker anyWorker() {
    return workers.all().get(0);
  }

  private CompletionStage<Verdict> settle(
      RoomWorker worker, Decision d, Instant now, Setup current) {
    if (d instanceof Decision.Draw next) {
      return draw(worker, next, now, current);
    }
    return CompletableFuture.completedFuture(verdict(d, worker, current));
  }

  private Verdict verdict(Decision d, RoomWorker worker, Setup current) {
    return switch (d) {
      case Decision.Admit a ->
          new Verdict(
              a.reason() == Decision.AdmitReason.SESSION ? Outcome.ADMIT_SESSION : Outcome.ADMIT,
              a.ticket(),
              null);
      case Decision.Queue q ->
          new Verdict(
              Outcome.queued(current.settings().limits().queueingMethod()),
              q.ticket(),
              view(q.estimate(), worker.state(), !outages.degraded()));
      case Decision.Draw x -> throw new IllegalStateException("undrawn counter " + x);
    };
  }

  private Verdict queueAll(RoomWorker worker, Ticket ticket, Instant now, Setup current) {
    return verdict(worker.holdInQueue(ticket, now), worker, current);
  }

  /**
   * The queue as a waiting user is shown it; no place in line while the gate is degraded: its state
   * stops moving with the coordinator's, and the simulator measured places off by up to 90 % in a
   * partition (docs/simulation.md).
   */
  private static QueueView view(WaitEstimate e, RoomState state, boolean placeHolds) {
    return new QueueView(
        e.known(),
        minutes(e.minutes()),
        minutes(e.p25()),
        minutes(e.p50()),
        minutes(e.p75()),
        state.asOf().toEpochMilli(),
        placeHolds ? e.place() : null);
  }

  private static int minutes(double m) {
    return Double.isNaN(m) ? 0 : (int) Math.min(Integer.MAX_VALUE, Math.ceil(m)); // +inf: full
  }

  @Override
  public Verdict giveBack(Ticket admitted, Ticket waiting, boolean keepWaiting, long nowMillis) {
    Setup current = setup;
    // any worker (the ledger is shared, the counts are summed); the caller may be on a thread that
    // decides nothing (a coordinator's reply), which must not get a shard of its own
    RoomWorker worker =
        outages.degraded() && current.settings().resilience().failMode() == FailMode.DEGRADE
            ? workers.fallback()
            : anyWorker();
    Decision.Queue q =
        worker.giveBack(admitted, keepWaiting ? waiting : null, Instant.ofEpochMilli(nowMillis));
    return q == null ? null : verdict(q, worker, current);
  }

  @Override
  public void passUsed(long nowMillis) {
    // any worker: a count that only adds (synchronized in the worker), and the answer may be made
    // on a thread that decides nothing (a counter's reply), which must not get a shard of its own
    anyWorker().passUsed(Instant.ofEpochMilli(nowMillis));
  }

  @Override
  public void revoke(Ticket ticket, long nowMillis) {
    if (ticket != null) {
      shard().endSession(ticket, Instant.ofEpochMilli(nowMillis)); // slot freed at once
    }
  }

  /**
   * Sends every worker's report (or its unsent previous one) and applies the answered state to all
   * workers; re-announces the room first when the coordinator may not know it (start-up failure,
   * coordinator restart). Completes when all sends are settled; never fails.
   */
  public CompletionStage<Void> reportNow() {
    Instant now = clock.instant();
    String roomId = setup.settings().id();
    var batch = new ArrayList<WorkerReport>(retired);
    retired.clear();
    Workers current = workers;
    for (RoomWorker w : current.all()) {
      WorkerReport r = unsent.remove(w);
      if (r != null) {
        batch.add(r);
      } else if (w != current.fallback() || w.hasSomethingToReport()) {
        batch.add(w.report(now));
      }
    }
    if (batch.isEmpty()) {
      // no shard yet: the fallback's heartbeat still announces the gateway, its fingerprint, and
      // learns the room's state and overrides version
      batch.add(current.fallback().report(now));
    }
    CompletionStage<Void> announced =
        configured
            ? CompletableFuture.completedFuture(null)
            : coordination.configure(setup.config()).thenRun(() -> configured = true);
    var failed = new java.util.concurrent.atomic.AtomicBoolean();
    var throttled = new java.util.concurrent.atomic.AtomicBoolean();
    var sends = new ArrayList<CompletableFuture<Void>>();
    for (WorkerReport r : batch) {
      sends.add(
          announced
              .thenCompose(v -> coordination.report(roomId, r, fingerprint))
              .handle(
                  (reply, failure) -> {
                    if (failure != null) {
                      failed.set(true);
                      retry(r);
                    } else {
                      applyState(reply.state());
                      agreement(reply.agreement());
                      if (reply.overridesVersion() > deliveredOverrides.get()) {
                        fetchOverrides();
                      }
                      if (reply.throttle()) {
                        throttled.set(true);
                      }
                    }
                    return (Void) null;
                  })
              .toCompletableFuture());
    }
    return CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new))
        .thenCompose(
            v -> {
              tellState();
              // an overloaded coordinator that fails or times out should also see fewer reports
              reportPace.onResponse(throttled.get() || failed.get());
              noticeIncarnationChanges(coordination.incarnationChanges()); // a new leader answered
              if (failed.get()) {
                goDegraded("a report was not answered");
                configured = false; // the coordinator may have restarted and forgotten the room
                return CompletableFuture.<Void>completedFuture(null);
              }
              // degraded until what was admitted without grants is on the counters, and no call
              // failed since this round's answers
              long failuresBefore = outages.failures();
              return chargeUncharged().thenAccept(charged -> recovered(charged, failuresBefore));
            });
  }

  /** Applies the settings in force after an event boundary, once; returns the setup to use. */
  private synchronized Setup onEventBoundary(long nowMillis) {
    Setup current = setup;
    if (nowMillis >= current.validUntilMillis()) {
      apply(current.base(), current.effectiveNewUsersPerMinute(), Instant.ofEpochMilli(nowMillis));
    }
    return setup;
  }

  /**
   * Claims at the room's coordinator. When it cannot answer the room is degraded anyway, and the
   * gateway's own memory (already checked) decides: an answer may then be replayed once on each
   * other gateway until the coordinator is back, never twice on one.
   */
  @Override
  public CompletionStage<Boolean> claimChallenge(String nonce, long expiresAtMillis) {
    return coordination
        .claimChallenge(setup.settings().id(), dataCenter, nonce, expiresAtMillis)
        .exceptionally(
            failure -> {
              goDegraded(failure);
              return true;
            });
  }

  @Override
  public CompletionStage<io.anteroom.room.AccountPlaces.Reply> place(
      String account, io.anteroom.room.AccountPlaces.Place offer, long replacesId) {
    return coordination
        .place(setup.settings().id(), dataCenter, account, offer, replacesId)
        .whenComplete(
            (r, failure) -> {
              if (failure != null && !(unwrap(failure) instanceof UnsupportedOperationException)) {
                goDegraded(failure);
              }
            });
  }

  private static Throwable unwrap(Throwable t) {
    return t instanceof java.util.concurrent.CompletionException && t.getCause() != null
        ? t.getCause()
        : t;
  }

  @Override
  public CompletionStage<io.anteroom.room.report.RoomReport> report(long fromDay, long toDay) {
    return coordination.eventReport(setup.settings().id(), dataCenter, fromDay, toDay);
  }

  @Override
  public CompletionStage<java.util.List<io.anteroom.room.history.HistoryRow>> history(
      long fromMinute, long toMinute) {
    return coordination.history(setup.settings().id(), dataCenter, fromMinute, toMinute);
  }

  /** Reports when due and no report round is in flight (ticks come from one timer thread). */
  @Override
  public synchronized void tick(long nowMillis) {
    if (nowMillis >= setup.validUntilMillis()) {
      onEventBoundary(nowMillis);
    }
    if (reporting || nowMillis < nextReportAt) {
      return;
    }
    reporting = true;
    long delay = reportPace.nextDelay().toMillis();
    if (uncharged.get() > 0) {
      // admissions made without the coordinator are charged by the next successful round, which
      // the other gateways' W after their recovery counts on: not later than r_w, however the
      // pace backed off after the failures
      delay = Math.min(delay, setup.config().workerReportInterval().toMillis());
    }
    nextReportAt = nowMillis + delay;
    reportNow()
        .whenComplete(
            (v, e) -> {
              synchronized (this) {
                reporting = false;
              }
            });
  }

  private void retry(WorkerReport r) {
    for (RoomWorker w : workers.all()) {
      if (w.workerId().equals(r.workerId())) {
        unsent.put(w, r);
        return;
      }
    }
    retired.add(r); // a worker replaced by a settings change: resend its last report as is
  }

  /**
   * Keeps the newest state and hands it to the workers, except while degraded: the fallback's share
   * is one for the whole outage ({@link RoomWorker#withoutCoordinator}), counted from the state it
   * held when the outage began, and a state answered before the outage is over would renew it. Such
   * a state need not count what the fallback admitted (its own report may have failed while a
   * shard's got through, as in a failover), and never counts the other gateways' admissions made
   * without the coordinator, which they charge and report only once they are back: the fallback
   * would take a second share of slots that are already gone (11 users for T = 10 in {@code
   * RecoveryAfterDegradeTest}). The workers get the newest state when the outage ends ({@link
   * #recovered}).
   */
  private void applyState(RoomState state) {
    synchronized (stateLock) {
      if (state.asOf().isBefore(lastState.asOf())) {
        return;
      }
      lastState = state;
      if (!outages.degraded()) {
        handStateToWorkers();
      }
    }
  }

  /** Hands {@link #lastState} to every worker (guarded by {@link #stateLock}). */
  private void handStateToWorkers() {
    RoomState state = lastState;
    for (RoomWorker w : workers.all()) {
      w.applyState(state);
    }
  }

  private final List<Consumer<RoomState>> stateListeners =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  /** The state the listeners were last told of. */
  private final java.util.concurrent.atomic.AtomicReference<RoomState> toldState =
      new java.util.concurrent.atomic.AtomicReference<>();

  /**
   * Tells the listeners of the newest state once a report round is settled: once per round, not
   * once per worker's answer (a round's answers carry the same or nearly the same state).
   */
  private void tellState() {
    RoomState state = lastState;
    RoomState told = toldState.get();
    if (state == told || !toldState.compareAndSet(told, state)) {
      return;
    }
    for (Consumer<RoomState> l : stateListeners) {
      l.accept(state);
    }
  }

  @Override
  public RoomState lastState() {
    return lastState;
  }

  @Override
  public void onNewState(Consumer<RoomState> listener) {
    stateListeners.add(listener);
  }

  /** The current report interval (AIMD on the data center's throttle), without jitter. */
  public Duration reportInterval() {
    return reportPace.interval();
  }

  /** Whether the room decides without its coordinator now (an outage, see {@link Outages}). */
  public boolean degraded() {
    return outages.degraded();
  }

  @Override
  public RoomStatus status(long nowMillis) {
    Setup current = setup;
    RoomState state = lastState;
    long waiting = state.totalWaiting();
    List<BucketState> buckets = state.buckets();
    int maxWait = 0;
    if (!buckets.isEmpty()) {
      RoomWorker w = anyWorker();
      maxWait = minutes(w.estimateWait(buckets.get(buckets.size() - 1).bucketId()).minutes());
    }
    String status =
        current.settings().switches().suspended()
            ? "suspended"
            : waiting > 0 || current.settings().switches().queueAll() ? "queueing" : "not_queueing";
    return new RoomStatus(
        status,
        waiting,
        state.activeUsers(),
        maxWait,
        outages.degraded(),
        current.effectiveNewUsersPerMinute(),
        state.asOf().toEpochMilli(),
        fingerprint.hash(),
        agreement,
        deliveredOverrides.get());
  }

  @Override
  public synchronized void reconfigure(RoomSettings settings) {
    apply(
        settings,
        Math.min(setup.effectiveNewUsersPerMinute(), settings.limits().newUsersPerMinute()),
        clock.instant());
  }

  @Override
  public synchronized void limitNewUsersPerMinute(int effective) {
    Setup current = setup;
    int bounded = Math.max(1, Math.min(effective, current.base().limits().newUsersPerMinute()));
    if (bounded != current.effectiveNewUsersPerMinute()) {
      apply(current.base(), bounded, clock.instant());
    }
  }

  private void apply(RoomSettings settings, int effective, Instant now) {
    Setup old = setup;
    setup = setupAt(settings, effective, now);
    RoomConfig config = setup.config();
    fingerprint = fingerprintOf(settings);
    if (!config.equals(old.config())) {
      Workers previous = workers;
      workers = newWorkers(config);
      for (RoomWorker w : previous.all()) {
        WorkerReport pending = unsent.remove(w);
        if (pending != null) {
          retired.add(pending);
        }
        retired.add(w.report(now));
      }
      configureCoordinator();
    }
  }

  /**
   * The lottery key of a deployment, derived from its first ticket key (which every gateway of the
   * deployment shares): {@code HMAC-SHA256(ticket key, "anteroom lottery")}. Clients never see it.
   */
  public static byte[] lotteryKey(byte[] ticketKeySecret) {
    try {
      var mac = javax.crypto.Mac.getInstance("HmacSHA256");
      mac.init(new javax.crypto.spec.SecretKeySpec(ticketKeySecret, "HmacSHA256"));
      return mac.doFinal("anteroom lottery".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available in this JDK", e);
    }
  }

  @Override
  public void close() {
    reportNow();
  }
}
