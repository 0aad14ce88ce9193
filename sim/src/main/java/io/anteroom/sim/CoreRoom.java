package io.anteroom.sim;

import io.anteroom.room.DataCenterAggregate;
import io.anteroom.room.DataCenterLedger;
import io.anteroom.room.Decision;
import io.anteroom.room.GlobalLedger;
import io.anteroom.room.Grant;
import io.anteroom.room.MinuteCounter;
import io.anteroom.room.RoomConfig;
import io.anteroom.room.RoomState;
import io.anteroom.room.RoomWorker;
import io.anteroom.room.Rules;
import io.anteroom.room.Ticket;
import io.anteroom.room.WaitEstimate;
import io.anteroom.room.WorkerReport;
import io.anteroom.sim.engine.EventLoop;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The real room core ({@code io.anteroom.room}) wired with simulated delays: one {@link RoomWorker}
 * per simulated worker, one {@link DataCenterLedger} per data center, one {@link GlobalLedger}, one
 * {@link MinuteCounter} per data center plus the Anywhere counter. Every decision, count, split,
 * pool and estimate is the core's; this class only moves messages through virtual time:
 *
 * <ul>
 *   <li>every {@code r_w} a worker sends its report; the coordinator applies it half an in-DC round
 *       trip later and answers with a fresh {@link RoomState}, applied by the worker after the
 *       other half;
 *   <li>every {@code r_dc} a coordinator sends its aggregate; the global ledger applies it after
 *       the propagation delay and the coordinator gets the global view back after another one;
 *   <li>a counter draw reaches the counter after half the call's round trip (5 ms in-DC, 65 ms to
 *       the Anywhere counter from other data centers) and the answer returns after the other half.
 * </ul>
 *
 * <p>Workers of a data center that opens late (no history) start reporting when it opens. Report
 * times are staggered across workers and data centers so they do not all fall on one instant.
 * Single-threaded, on the run's event loop.
 */
final class CoreRoom implements RoomUnderTest<Ticket> {
  private final Scenario.Topology topology;
  private final RoomConfig config;
  private final EventLoop loop;
  private final List<Scenario.DataCenter> dataCenters;
  private final List<List<RoomWorker>> workers = new ArrayList<>();
  private final List<DataCenterLedger> ledgers = new ArrayList<>();
  private final List<List<DataCenterAggregate>> heldGlobalViews = new ArrayList<>();
  private final List<MinuteCounter> dataCenterCounters = new ArrayList<>();
  private final MinuteCounter anywhere;
  private final GlobalLedger global;

  private CoreRoom(Scenario scenario, StrategyVariant strategy, EventLoop loop) {
    this.topology = scenario.topology();
    this.loop = loop;
    this.dataCenters = topology.dataCenters();
    this.config = config(scenario, strategy);
    Instant now = loop.clock().instant();
    for (Scenario.DataCenter dc : dataCenters) {
      List<RoomWorker> ws = new ArrayList<>();
      for (int i = 0; i < dc.workerWeights().size(); i++) {
        ws.add(new RoomWorker(config, dc.name(), dc.name() + "/w" + i, now));
      }
      workers.add(ws);
      ledgers.add(new DataCenterLedger(config, dc.name()));
      heldGlobalViews.add(List.of());
      dataCenterCounters.add(new MinuteCounter(config.rules()));
    }
    this.anywhere = new MinuteCounter(config.rules());
    this.global = new GlobalLedger(config);
  }

  static RoomUnderTest<Ticket> create(Scenario scenario, StrategyVariant strategy, EventLoop loop) {
    return new CoreRoom(scenario, strategy, loop);
  }

  /** The core's configuration for a scenario and a strategy (published: the write-ups' rules). */
  static RoomConfig config(Scenario scenario, StrategyVariant strategy) {
    Scenario.Limits l = scenario.limits();
    return RoomConfig.builder("sim-" + scenario.name())
        .totalActiveUsers(l.totalActiveUsers())
        .newUsersPerMinute(l.newUsersPerMinute())
        .sessionDurationMinutes(l.sessionDurationMinutes())
        .queueRefreshSeconds(l.queueRefreshSeconds())
        .queueTimeout(Duration.ofMinutes(l.queueTimeoutMinutes()))
        .curveFactor(l.curveFactor())
        .workerReportInterval(Duration.ofMillis(scenario.topology().workerReportMillis()))
        .dataCenterReportInterval(Duration.ofMillis(scenario.topology().dataCenterReportMillis()))
        .strategy(strategy.kind())
        .rules(strategy.published() ? Rules.published() : Rules.spec())
        .build();
  }

  @Override
  public void start(EventLoop l) {
    int total = topology.workerCount();
    int index = 0;
    for (int d = 0; d < dataCenters.size(); d++) {
      long opens = dataCenters.get(d).fromMinute() * 60_000L;
      for (int w = 0; w < workers.get(d).size(); w++) {
        long phase = topology.workerReportMillis() * index++ / total;
        int dc = d;
        int worker = w;
        loop.at(opens + phase, () -> workerReports(dc, worker));
      }
      long phase = topology.dataCenterReportMillis() * d / dataCenters.size();
      int dc = d;
      loop.at(opens + phase, () -> dataCenterReports(dc));
    }
  }

  private Instant now() {
    return loop.clock().instant();
  }

  private void workerReports(int dc, int w) {
    RoomWorker worker = workers.get(dc).get(w);
    WorkerReport report = worker.report(now());
    long half = topology.inDataCenterMillis() / 2;
    loop.after(
        half,
        () -> {
          DataCenterLedger ledger = ledgers.get(dc);
          ledger.apply(report, now());
          RoomState state = ledger.roomState(heldGlobalViews.get(dc), now());
          loop.after(topology.inDataCenterMillis() - half, () -> worker.applyState(state));
        });
    loop.after(topology.workerReportMillis(), () -> workerReports(dc, w));
  }

  private void dataCenterReports(int dc) {
    DataCenterAggregate aggregate = ledgers.get(dc).aggregate(now());
    loop.after(
        topology.propagationMillis(),
        () -> {
          global.apply(aggregate);
          List<DataCenterAggregate> view = global.view(now());
          loop.after(topology.propagationMillis(), () -> heldGlobalViews.set(dc, view));
        });
    loop.after(topology.dataCenterReportMillis(), () -> dataCenterReports(dc));
  }

  @Override
  public void request(int dc, int w, Ticket ticket, Consumer<Reply<Ticket>> reply) {
    RoomWorker worker = workers.get(dc).get(w);
    settle(dc, worker, worker.decide(ticket, now()), reply);
  }

  /** Follows a decision through its counter draws (each a delayed round trip) to admit or queue. */
  private void settle(int dc, RoomWorker worker, Decision decision, Consumer<Reply<Ticket>> reply) {
    switch (decision) {
      case Decision.Admit a ->
          reply.accept(new Reply<>(true, a.ticket(), Double.NaN, a.reason().name()));
      case Decision.Queue q ->
          reply.accept(new Reply<>(false, q.ticket(), shown(q.estimate()), ""));
      case Decision.Draw draw -> {
        boolean anywhereCall = draw.counter().isAnywhere();
        MinuteCounter counter = anywhereCall ? anywhere : dataCenterCounters.get(dc);
        long roundTrip =
            anywhereCall && dc != 0
                ? topology.anywhereCounterMillis()
                : topology.inDataCenterMillis();
        long there = roundTrip / 2;
        loop.after(
            there,
            () -> {
              Grant grant = counter.take(draw, now());
              loop.after(
                  roundTrip - there,
                  () -> settle(dc, worker, worker.onCounterReply(draw, grant, now()), reply));
            });
      }
    }
  }

  private static double shown(WaitEstimate wait) {
    return wait.known() ? wait.minutes() : Double.NaN;
  }

  @Override
  public String queueExplanationHeader() {
    return "path,state_age_ms,state_active,state_free_slots,state_adm_per_min,pool_base,pool_n_left,pool_expiring,"
        + "pool_available,whole_reserved,counters_spent,state_minute_behind";
  }

  /**
   * The worker's view when it queued the user: whether it queued behind an older bucket without
   * slots ({@code behind-queue}), kept the user's own bucket waiting ({@code own-bucket-waiting})
   * or drew and was refused ({@code draw-refused}); the age of its state; its state's pool (the
   * coordinator's, of the state's minute; the worker's own may differ in N_m); the seats reserved
   * for whole buckets; the numbers the minute's counters have granted.
   */
  @Override
  public String explainQueued(int dc, int w, Ticket ticket) {
    RoomWorker worker = workers.get(dc).get(w);
    RoomState state = worker.state();
    Instant now = now();
    long bucket = ticket.bucketId();
    String path = "draw-refused";
    long wholeReserved = 0;
    for (var b : state.buckets()) {
      if (b.whole()) {
        wholeReserved += b.waiting();
      }
      if (b.bucketId() < bucket && b.eligibleSlots() < b.waiting() && path.equals("draw-refused")) {
        path = "behind-queue";
      } else if (b.bucketId() == bucket && bucket < state.minute() && b.eligibleSlots() == 0) {
        path = "own-bucket-waiting";
      }
    }
    long m = Math.floorDiv(now.getEpochSecond(), 60);
    long spent = anywhere.consumed(m);
    for (MinuteCounter c : dataCenterCounters) {
      spent += c.consumed(m);
    }
    // the coordinator's pool as the state carries it: RoomWorker.pool(now) would fix the worker's
    // own pool
    // (a diagnostic must not change the run)
    var pool = state.pool() != null ? state.pool() : new io.anteroom.room.MinutePool(m, 0, 0, 0);
    return String.join(
        ",",
        path,
        Long.toString(Duration.between(state.asOf(), now).toMillis()),
        Long.toString(state.activeUsers()),
        Long.toString(state.freeSlots()),
        String.format(java.util.Locale.ROOT, "%.1f", state.admissionsPerMinute()),
        Long.toString(pool.base()),
        Long.toString(pool.newUsersLeft()),
        Long.toString(pool.expiring()),
        Long.toString(pool.available(now)),
        Long.toString(wholeReserved),
        Long.toString(spent),
        Long.toString(m - state.minute()));
  }

  @Override
  public long bucketOf(Ticket ticket) {
    return ticket.bucketId();
  }
}
