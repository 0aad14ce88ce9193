package io.anteroom.room;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The limit T across a minute boundary, with two data centers whose states reach each other only
 * through the global ledger ({@code 2 × r_dc} later).
 */
class MinuteBoundaryTest {
  static final Instant START = Fixtures.at("2026-01-01T10:00:00Z");

  /** Two data centers, one worker each, counters answered at once; time moves only by hand. */
  static final class TwoDataCenters {
    final RoomConfig config;
    final MinuteCounter anywhere;
    final GlobalLedger global;
    final List<Dc> dcs = new ArrayList<>();
    final List<Ticket> admitted = new ArrayList<>();
    final List<Ticket> waiting = new ArrayList<>();
    Instant now = START;

    final class Dc {
      final String name;
      final DataCenterLedger ledger;
      final MinuteCounter counter;
      final RoomWorker worker;

      Dc(String name) {
        this.name = name;
        this.ledger = new DataCenterLedger(config, name);
        this.counter = new MinuteCounter(config.rules());
        this.worker =
            new RoomWorker(
                config,
                name,
                name + "-w",
                now,
                new TicketLedger(),
                new SplittableRandom(name.hashCode()));
      }

      /** A new user asks; true when admitted. */
      boolean newUser() {
        return ask(null);
      }

      /** A user with this ticket (null: a new one) asks; true when admitted, else it waits. */
      boolean ask(Ticket ticket) {
        return settle(worker.decide(ticket, now));
      }

      /** Answers every draw at the current time; true when admitted, else the user waits. */
      boolean settle(Decision first) {
        Decision d = first;
        while (d instanceof Decision.Draw draw) {
          MinuteCounter c = draw.counter().isAnywhere() ? anywhere : counter;
          d = worker.onCounterReply(draw, c.take(draw.counter().minute(), draw.limit()), now);
        }
        if (d instanceof Decision.Admit a) {
          admitted.add(a.ticket());
          return true;
        }
        if (d instanceof Decision.Queue q) {
          waiting.add(q.ticket());
        }
        return false;
      }

      /**
       * A new user asks while the counters do not answer (their coordinator is away): the decision
       * waits at its first draw, to be answered by {@link TwoDataCenters#answer}.
       */
      Decision.Draw newUserWaitingForTheCounter() {
        return (Decision.Draw) worker.decide(null, now);
      }

      /** The worker reports to its data center and gets a state back (no global round). */
      void report() {
        ledger.apply(worker.report(now), now);
        worker.applyState(ledger.roomState(global.view(now), now));
      }

      /** The data center's alarm: its aggregate to the global ledger and the global view back. */
      void syncGlobal() {
        global.apply(ledger.aggregate(now));
      }
    }

    TwoDataCenters(RoomConfig config) {
      this.config = config;
      this.anywhere = new MinuteCounter(config.rules());
      this.global = new GlobalLedger(config);
      dcs.add(new Dc("dublin"));
      dcs.add(new Dc("nairobi"));
    }

    /** Every report and every data center's global round, twice: every state knows everything. */
    void settle() {
      for (int i = 0; i < 2; i++) {
        dcs.forEach(Dc::report);
        dcs.forEach(Dc::syncGlobal);
      }
      dcs.forEach(Dc::report);
    }

    /** Settles every {@code step} until {@code until}. */
    void runSettledUntil(Instant until, Duration step) {
      while (now.isBefore(until)) {
        now = now.plus(step);
        settle();
      }
    }
  }

  @Test
  void aCrowdWhoseCounterCallsAreAnsweredAfterTheirMinuteEndedIsNotAdmittedBeyondT() {
    RoomConfig config = Fixtures.room(20, 1200).sessionDurationMinutes(30).build();
    TwoDataCenters room = new TwoDataCenters(config);
    room.settle();
    // ten users admitted while everything is in sync, five in each data center
    for (int i = 0; i < 10; i++) {
      assertThat(room.dcs.get(i % 2).newUser()).as("user %d", i).isTrue();
    }
    room.runSettledUntil(START.plusSeconds(3 * 60 + 55), Duration.ofSeconds(5));
    // the coordinator goes away at 10:03:58; twenty new users arrive at both data centers and
    // their counter calls wait for a new leader, which answers them all at 10:04:00.5
    room.now = START.plusSeconds(3 * 60 + 58);
    List<TwoDataCenters.Dc> at = new ArrayList<>();
    List<Decision.Draw> waiting = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      TwoDataCenters.Dc dc = room.dcs.get(i % 2);
      at.add(dc);
      waiting.add(dc.newUserWaitingForTheCounter());
    }
    room.now = START.plusMillis(4 * 60_000 + 500);
    long admittedOnAnswer = 0;
    for (int i = 0; i < waiting.size(); i++) {
      if (at.get(i).settle(waiting.get(i))) {
        admittedOnAnswer++;
      }
    }
    // each data center reports to its own data center object, before the global round; new users
    // arrive at both (as the next user of ClusterWaitingRoomTest did, two seconds after the leader)
    room.dcs.forEach(TwoDataCenters.Dc::report);
    room.now = START.plusSeconds(4 * 60 + 1);
    for (int i = 0; i < 10; i++) {
      room.dcs.get(i % 2).newUser();
    }
    // everyone still waiting asks again at its next refresh, 20 s later, when the data centers'
    // global rounds (every 5 s) have brought each the other's queue
    room.now = START.plusSeconds(4 * 60 + 20);
    room.settle();
    List<Ticket> queued = List.copyOf(room.waiting);
    for (int i = 0; i < queued.size(); i++) {
      room.dcs.get(i % 2).ask(queued.get(i));
    }

    assertThat(room.admitted.size())
        .as("users holding admission: the ten of before, the new users and the crowd's next tries")
        .isLessThanOrEqualTo(20)
        .isGreaterThan(10);
    assertThat(admittedOnAnswer)
        .as("answers that arrived after their minute ended admitted nobody")
        .isZero();
  }

  @Test
  void aStalledDecisionAnsweredAfterItsDrawsMinuteEndedAdmitsNobodyAndTheUserKeepsItsBucket() {
    TwoDataCenters.Dc dublin = settledRoomAt(START.plusSeconds(59)).dcs.get(0);
    Decision.Draw draw = dublin.newUserWaitingForTheCounter();
    Grant granted = new Grant(draw.counter().minute(), 0, true);

    Decision stalledInItsMinute =
        dublin.worker.onCounterReply(draw, granted, START.plusMillis(59_900));
    Decision.Draw again = dublin.newUserWaitingForTheCounter();
    Decision stalledPastIt = dublin.worker.onCounterReply(again, granted, START.plusSeconds(60));

    assertThat(stalledInItsMinute)
        .as("in its minute: the minute's counter counted it")
        .isInstanceOf(Decision.Admit.class);
    assertThat(stalledPastIt).isInstanceOf(Decision.Queue.class);
    assertThat(((Decision.Queue) stalledPastIt).ticket().bucketId())
        .as("the bucket of its first arrival: first in line")
        .isEqualTo(Minutes.minuteOf(START));
  }

  @Test
  void anAnswerOfOrdinaryLatencyAcrossTheMinuteBoundaryStillAdmits() {
    TwoDataCenters.Dc dublin = settledRoomAt(START.plusMillis(59_950)).dcs.get(0);
    Decision.Draw draw = dublin.newUserWaitingForTheCounter();

    Decision d =
        dublin.worker.onCounterReply(
            draw, new Grant(draw.counter().minute(), 0, true), START.plusMillis(60_020));

    assertThat(d).isInstanceOf(Decision.Admit.class);
  }

  /** A room with T = 20 whose states know everything, its clock at {@code at}. */
  private static TwoDataCenters settledRoomAt(Instant at) {
    TwoDataCenters room = new TwoDataCenters(Fixtures.room(20, 1200).build());
    room.settle();
    room.now = at;
    return room;
  }
}
