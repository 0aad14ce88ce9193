package io.anteroom.sim;

import io.anteroom.room.Charge;
import io.anteroom.room.CounterMemory;
import io.anteroom.room.DataCenterAggregate;
import io.anteroom.room.DataCenterLedger;
import io.anteroom.room.Decision;
import io.anteroom.room.GlobalLedger;
import io.anteroom.room.Grant;
import io.anteroom.room.MinuteCounter;
import io.anteroom.room.Outages;
import io.anteroom.room.RoomConfig;
import io.anteroom.room.RoomState;
import io.anteroom.room.RoomWorker;
import io.anteroom.room.Rules;
import io.anteroom.room.Ticket;
import io.anteroom.room.WaitEstimate;
import io.anteroom.room.WorkerReport;
import io.anteroom.room.slots.StrategyKind;
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
 * <p>Each worker stands for a gateway process, with the gateway's degraded fallback (an even split
 * of the last state's free slots, {@link RoomWorker#withoutCoordinator}) and its {@link Outages}.
 * In a scenario's outage ({@link Scenario.Outage}) reports and counter calls fail: the process
 * decides degraded, and its first report after the outage charges what it admitted without a grant
 * ({@link Charge}) and recovers, as the gateway does: no draws for {@code W}, and nothing admitted
 * on a state that may not count the others' outage ({@link RoomWorker#recoveringWith}).
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
  private final List<List<Gateway>> gateways = new ArrayList<>();
  private final List<DataCenterLedger> ledgers = new ArrayList<>();
  private final List<List<DataCenterAggregate>> heldGlobalViews = new ArrayList<>();
  private final List<MinuteCounter> dataCenterCounters = new ArrayList<>();

  /** A data center's index in {@link #dataCenterCounters}, by its name. */
  private final java.util.Map<String, Integer> dataCenterIndex = new java.util.HashMap<>();

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
      List<Gateway> gs = new ArrayList<>();
      for (int i = 0; i < dc.workerWeights().size(); i++) {
        Gateway g = new Gateway(dc.name(), dc.name() + "/w" + i, now);
        ws.add(g.shard);
        gs.add(g);
      }
      workers.add(ws);
      gateways.add(gs);
      ledgers.add(new DataCenterLedger(config, dc.name()));
      heldGlobalViews.add(List.of());
      dataCenterIndex.put(dc.name(), dataCenterCounters.size());
      dataCenterCounters.add(new MinuteCounter(config.rules()));
    }
    this.anywhere = new MinuteCounter(config.rules());
    this.global = new GlobalLedger(config);
  }

  /**
   * One gateway process: its worker, its degraded fallback, its outages and uncharged admissions.
   */
  private final class Gateway {
    final Outages outages = new Outages();

    /** The gateway's memory of its counters' answers ({@link CounterMemory}), as at the gateway. */
    final CounterMemory counters = new CounterMemory(config.rules());

    final RoomWorker shard;
    final RoomWorker fallback;
    long uncharged;

    Gateway(String dataCenter, String id, Instant now) {
      shard = new RoomWorker(config, dataCenter, id, now).recoveringWith(outages);
      fallback =
          new RoomWorker(
                  config.withStrategy(StrategyKind.EVEN_SPLIT), dataCenter, id + "/degraded", now)
              .withoutCoordinator(shard::admittedSinceState)
              .recoveringWith(outages);
    }
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

  private boolean cutOff() {
    return topology.cutOffAt(loop.now());
  }

  private void workerReports(int dc, int w) {
    loop.after(topology.workerReportMillis(), () -> workerReports(dc, w));
    Gateway g = gateways.get(dc).get(w);
    if (cutOff()) {
      g.outages.failed();
      return;
    }
    long failuresBefore = g.outages.failures();
    WorkerReport report = g.shard.report(now());
    WorkerReport fromFallback = g.fallback.hasSomethingToReport() ? g.fallback.report(now()) : null;
    long half = topology.inDataCenterMillis() / 2;
    loop.after(
        half,
        () -> {
          DataCenterLedger ledger = ledgers.get(dc);
          ledger.apply(report, now());
          if (fromFallback != null) {
            ledger.apply(fromFallback, now());
          }
          RoomState state = ledger.roomState(heldGlobalViews.get(dc), now());
          loop.after(
              topology.inDataCenterMillis() - half,
              () -> {
                g.shard.applyState(state);
                g.fallback.applyState(state);
                if (g.outages.degraded()) {
                  charge(dc, g);
                  g.outages.recovered(failuresBefore, now(), config.propagationWindow());
                }
              });
        });
  }

  /**
   * Charges what {@code g} admitted without a grant to the counters of the current minute, the data
   * center's first ({@link Charge}); the gateway sends it after the round that proved the
   * coordinator back (here at once: no call fails outside an outage).
   */
  private void charge(int dc, Gateway g) {
    if (g.uncharged == 0) {
      return;
    }
    Charge c = g.shard.charge(g.uncharged, now());
    long rest =
        dataCenterCounters
            .get(dc)
            .charge(c.dataCenter().minute(), c.admissions(), c.dataCenterLimit(), now());
    anywhere.charge(c.anywhere().minute(), rest, Long.MAX_VALUE, now());
    g.uncharged = 0;
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
    Gateway g = gateways.get(dc).get(w);
    if (g.outages.degraded()) {
      Decision d = g.fallback.decide(ticket, now());
      if (Charge.owedFor(d, config)) {
        g.uncharged++;
      }
      settle(dc, g, d, reply);
      return;
    }
    settle(dc, g, g.shard.decide(ticket, now()), reply);
  }

  /**
   * Follows a decision through its counter draws (each a delayed round trip) to admit or queue; a
   * call the outage cuts off fails and turns the gateway degraded, a grant answered after an outage
   * began is settled by {@link Outages#settleLateGrant}, as at the gateway.
   */
  private void settle(int dc, Gateway g, Decision decision, Consumer<Reply<Ticket>> reply) {
    RoomWorker worker = g.shard;
    switch (decision) {
      case Decision.Admit a ->
          reply.accept(new Reply<>(true, a.ticket(), Double.NaN, a.reason().name()));
      case Decision.Queue q ->
          reply.accept(
              new Reply<>(false, q.ticket(), shown(q.estimate()), "", q.estimate().place()));
      case Decision.Draw draw when g.outages.drawsPaused(now()) ->
          settle(dc, g, worker.refuse(draw, now()), reply);
      case Decision.Draw draw when g.counters.refuses(draw) ->
          // the gateway's counter memory: a refusal the counter already answered, without a call
          settle(dc, g, worker.onCounterReply(draw, g.counters.refusal(draw), now()), reply);
      case Decision.Draw draw -> {
        Outages.Mark mark = g.outages.mark(0);
        boolean anywhereCall = draw.counter().isAnywhere();
        // a decision early in a minute also asks the other data centers' counters (limit 0)
        int counterDc = anywhereCall ? 0 : dataCenterIndex.get(draw.counter().dataCenter());
        MinuteCounter counter = anywhereCall ? anywhere : dataCenterCounters.get(counterDc);
        long roundTrip =
            counterDc != dc ? topology.anywhereCounterMillis() : topology.inDataCenterMillis();
        long there = roundTrip / 2;
        loop.after(
            there,
            () -> {
              boolean reached = !cutOff();
              Grant grant =
                  reached ? counter.take(draw, now()) : Grant.unavailable(draw.counter().minute());
              loop.after(
                  roundTrip - there,
                  () -> {
                    if (!reached) {
                      g.outages.failed();
                    }
                    g.counters.answered(draw, grant);
                    Decision next =
                        grant.granted() && g.outages.late(mark, 0)
                            ? g.outages.settleLateGrant(
                                worker, true, g.fallback, draw, grant, now())
                            : worker.onCounterReply(draw, grant, now());
                    settle(dc, g, next, reply);
                  });
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
