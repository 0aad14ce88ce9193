package io.anteroom.room;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One data center with one worker, its ledgers and counters, in virtual time: every request is
 * decided to the end (counter draws answered at once) and {@link #sync} carries the worker's report
 * through the data-center and global ledgers and back as a state. For rules that need the whole
 * loop (pre-queue, shuffle, random queueing), not just one decision.
 */
final class MiniRoom {
  private final TicketLedger ledger = new TicketLedger();
  private final MinuteCounter dcCounter;
  private final MinuteCounter anywhere;
  private final DataCenterLedger dc;
  private final GlobalLedger global;
  private final List<WorkerReport> retired = new ArrayList<>();
  private final long seed;
  private RoomConfig config;
  private RoomWorker worker;
  private Instant now;
  private int generation;

  MiniRoom(RoomConfig config, Instant start, long seed) {
    this.config = config;
    this.now = start;
    this.seed = seed;
    this.dcCounter = new MinuteCounter(config.rules());
    this.anywhere = new MinuteCounter(config.rules());
    this.dc = new DataCenterLedger(config, "dc");
    this.global = new GlobalLedger(config);
    this.worker = newWorker();
  }

  private RoomWorker newWorker() {
    return new RoomWorker(
        config, "dc", "w" + generation++, now, ledger, new SplittableRandom(seed));
  }

  Instant now() {
    return now;
  }

  void advanceTo(Instant t) {
    now = t;
  }

  RoomState state() {
    return worker.state();
  }

  /** Replaces the config (the gateway does this at an event's boundaries), keeping the counts. */
  void reconfigure(RoomConfig newer) {
    RoomState held = worker.state();
    retired.add(worker.report(now));
    config = newer;
    dc.configure(newer);
    global.configure(newer);
    worker = newWorker();
    worker.applyState(held);
  }

  /** The final decision for one request at the current time. */
  Decision request(Ticket ticket) {
    Decision d = worker.decide(ticket, now);
    while (d instanceof Decision.Draw draw) {
      MinuteCounter c = draw.counter().isAnywhere() ? anywhere : dcCounter;
      d = worker.onCounterReply(draw, c.take(draw, now), now);
    }
    return d;
  }

  /** Report, aggregate and state: the worker then decides with a state of {@code now}. */
  void sync() {
    for (WorkerReport r : retired) {
      dc.apply(r, now);
    }
    retired.clear();
    dc.apply(worker.report(now), now);
    global.apply(dc.aggregate(now));
    worker.applyState(dc.roomState(global.view(now), now));
  }
}
