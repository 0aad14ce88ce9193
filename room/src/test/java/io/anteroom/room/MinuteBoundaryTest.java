package io.anteroom.room;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
        Decision d = finish(first);
        if (d instanceof Decision.Admit a) {
          admitted.add(a.ticket());
          return true;
        }
        if (d instanceof Decision.Queue q) {
          waiting.add(q.ticket());
        }
        return false;
      }

      /** The final decision: every draw answered at the current time. */
      Decision finish(Decision first) {
        Decision d = first;
        while (d instanceof Decision.Draw draw) {
          d = worker.onCounterReply(draw, counterOf(draw).take(draw, now), now);
        }
        return d;
      }

      /**
       * A new user asks while the counters do not answer (their coordinator is away): the decision
       * waits at its first draw, to be answered by {@link TwoDataCenters#answer}.
       */
      Decision.Draw newUserWaitingForTheCounter() {
        Decision d = worker.decide(null, now);
        while (d instanceof Decision.Draw draw && draw.asksForLateNumbers()) {
          d = worker.onCounterReply(draw, counterOf(draw).take(draw, now), now);
        }
        return (Decision.Draw) d;
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

    /** The counter a draw visits. */
    MinuteCounter counterOf(Decision.Draw draw) {
      return draw.counter().isAnywhere() ? anywhere : counterOf(draw.counter());
    }

    /** The counter of a data center by its key (a decision also asks the other's, limit 0). */
    MinuteCounter counterOf(CounterKey key) {
      return dcs.stream()
          .filter(d -> d.name.equals(key.dataCenter()))
          .findFirst()
          .orElseThrow()
          .counter;
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

    /** A new user whose first draw waits for its counter's answer. */
    record Waiting(Dc dc, Decision.Draw draw) {}

    /**
     * {@code n} new users, in turn at each data center, whose counter calls wait (their coordinator
     * is away without failing them).
     */
    List<Waiting> crowdWaitingForTheCounters(int n) {
      List<Waiting> crowd = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        Dc dc = dcs.get(i % dcs.size());
        crowd.add(new Waiting(dc, dc.newUserWaitingForTheCounter()));
      }
      return crowd;
    }

    /** Answers every waiting call at the current time; returns how many users were admitted. */
    long answer(List<Waiting> crowd) {
      return crowd.stream().filter(w -> w.dc().settle(w.draw())).count();
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
    List<TwoDataCenters.Waiting> crowd = room.crowdWaitingForTheCounters(20);
    room.now = START.plusMillis(4 * 60_000 + 500);
    long admittedOnAnswer = room.answer(crowd);
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
  void aStalledDecisionAnsweredInItsMinutesLastPropagationWindowOrLaterAdmitsNobody() {
    // W = r_w + 2 r_dc = 15 s: an admission at 10:00:45 or later may be in no state at 10:01
    TwoDataCenters.Dc dublin = settledRoomAt(START.plusSeconds(40)).dcs.get(0);
    Decision.Draw early = dublin.newUserWaitingForTheCounter();
    Decision.Draw inTheWindow = dublin.newUserWaitingForTheCounter();
    Decision.Draw pastTheMinute = dublin.newUserWaitingForTheCounter();
    Grant granted = new Grant(early.counter().minute(), 0, true);

    Decision before = dublin.worker.onCounterReply(early, granted, START.plusMillis(44_900));
    Decision within = dublin.worker.onCounterReply(inTheWindow, granted, START.plusSeconds(45));
    Decision after = dublin.worker.onCounterReply(pastTheMinute, granted, START.plusSeconds(61));

    assertThat(before)
        .as("stalled, but in every state before the next minute")
        .isInstanceOf(Decision.Admit.class);
    assertThat(within).isInstanceOf(Decision.Queue.class);
    assertThat(after).isInstanceOf(Decision.Queue.class);
    assertThat(((Decision.Queue) after).ticket().bucketId())
        .as("the bucket of its first arrival: first in line")
        .isEqualTo(Minutes.minuteOf(START));
  }

  @Test
  void aCrowdAnsweredAtOnceInTheLastSecondsOfItsMinuteIsNotAdmittedBeyondT() {
    TwoDataCenters room = settledRoomAt(START);
    for (int i = 0; i < 10; i++) {
      assertThat(room.dcs.get(i % 2).newUser()).as("user %d", i).isTrue();
    }
    room.runSettledUntil(START.plusSeconds(50), Duration.ofSeconds(5));
    // the calls of twenty newcomers wait from 10:00:52 to 10:00:58, then all are answered
    room.now = START.plusSeconds(52);
    List<TwoDataCenters.Waiting> crowd = room.crowdWaitingForTheCounters(20);
    room.now = START.plusSeconds(58);
    room.answer(crowd);
    room.dcs.forEach(TwoDataCenters.Dc::report);
    // new users at both data centers as the next minute starts, before any global round
    room.now = START.plusSeconds(61);
    for (int i = 0; i < 10; i++) {
      room.dcs.get(i % 2).newUser();
    }

    assertThat(room.admitted.size()).as("users holding admission").isLessThanOrEqualTo(20);
  }

  /**
   * The case {@code docs/room.md} left open: ten users held, a crowd of twenty at 10:03:59 answered
   * at once (the ten free slots admitted), and the ten it left queued come back at 10:04:01, when
   * each data center's state knows its own half of the crowd and not the other's. Before the
   * counters carried late admissions, those ten entered as a whole bucket in each data center: 30
   * users for T = 20.
   */
  @Test
  void theUsersACrowdLeftQueuedAtTheMinutesEndDoNotEnterAsAWholeBucketOnSlotsTheCrowdTook() {
    TwoDataCenters room = settledRoomAt(START);
    for (int i = 0; i < 10; i++) {
      assertThat(room.dcs.get(i % 2).newUser()).as("user %d", i).isTrue();
    }
    room.runSettledUntil(START.plusSeconds(3 * 60 + 55), Duration.ofSeconds(5));
    room.now = START.plusSeconds(3 * 60 + 59);
    for (int i = 0; i < 20; i++) {
      room.dcs.get(i % 2).newUser();
    }
    assertThat(room.admitted).as("the crowd took the ten free slots").hasSize(20);
    room.dcs.forEach(TwoDataCenters.Dc::report);
    room.now = START.plusSeconds(4 * 60 + 1);
    List<Ticket> queued = List.copyOf(room.waiting);
    for (int i = 0; i < queued.size(); i++) {
      room.dcs.get(i % 2).ask(queued.get(i));
    }

    assertThat(room.admitted).as("users holding admission").hasSize(20);
  }

  @Test
  void aDecisionsWaitCountsFromItsFirstDrawAcrossBothCounters() {
    TwoDataCenters room = settledRoomAt(START);
    TwoDataCenters.Dc dublin = room.dcs.get(0);
    assertThat(dublin.newUser()).isTrue();
    assertThat(dublin.newUser()).isTrue();
    // two minutes on, dublin's traffic gives it a data-center share: a draw asks its counter first
    room.runSettledUntil(START.plusSeconds(2 * 60 + 50), Duration.ofSeconds(5));
    Decision.Draw first = dublin.newUserWaitingForTheCounter();
    assertThat(first.counter().isAnywhere()).as("the data center's counter first").isFalse();
    Decision second =
        dublin.worker.onCounterReply(
            first,
            new Grant(first.counter().minute(), first.limit(), false),
            START.plusMillis(2 * 60_000 + 50_300));
    assertThat(second).isInstanceOf(Decision.Draw.class);

    // each call took 300 ms, the decision 600 ms: stalled, in its minute's last W
    Decision d =
        dublin.worker.onCounterReply(
            (Decision.Draw) second,
            new Grant(first.counter().minute(), 0, true),
            START.plusMillis(2 * 60_000 + 50_600));

    assertThat(d).isInstanceOf(Decision.Queue.class);
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

  /**
   * Thirty users at once at two data centers (as in the gateway's {@code MultiProcessTest}), T =
   * 10, in a fresh room whose recent admission rate is 0; everyone not admitted asks again every
   * second; workers report every 5 s and the data centers' global rounds run every 5 s, out of
   * phase. A crowd in its minute's last seconds is in no state when the next minute starts: the
   * next minute's pool, taken from those states, offered its slots again (15 users at second 56, 20
   * at 58 and 59) until the counters carried the late admissions.
   */
  @ParameterizedTest(name = "a crowd at second {0}")
  @ValueSource(ints = {30, 44, 48, 52, 56, 58, 59})
  void aCrowdAdmittedInItsMinutesLastSecondsIsNotOfferedItsSlotsAgainByTheNextMinute(int second) {
    TwoDataCenters room = new TwoDataCenters(Fixtures.room(10, 10).build());
    room.settle();
    Ticket[] tickets = new Ticket[30];
    Set<Integer> admitted = new HashSet<>();
    for (long ms = 0; ms < 3 * 60_000; ms += 500) {
      room.now = START.plusMillis(ms);
      for (int i = 0; i < tickets.length && ms >= second * 1000L; i++) {
        TwoDataCenters.Dc dc = room.dcs.get(i % 2);
        Decision d = dc.finish(dc.worker.decide(tickets[i], room.now));
        if (d instanceof Decision.Admit) {
          admitted.add(i);
        }
        if (d.ticket() != null) {
          tickets[i] = d.ticket();
        }
      }
      if (ms % 1000 == 0) {
        long s = ms / 1000 % 5;
        if (s == 2) {
          room.dcs.get(0).report();
        } else if (s == 4) {
          room.dcs.get(1).report();
        } else if (s == 3) {
          room.dcs.get(0).syncGlobal();
        } else if (s == 0) {
          room.dcs.get(1).syncGlobal();
        }
      }
    }

    assertThat(admitted).as("distinct users admitted").hasSize(10);
  }

  /**
   * A data center's late admissions beyond its share of the next minute: nairobi's crowd enters at
   * :57, on nairobi's counter (its share) and on Anywhere, in a minute whose traffic was all
   * dublin's; at :01 of the next minute dublin's pool comes from a state that counts neither the
   * crowd nor its traffic, so nairobi's share there is 0 and what its counter carries is subtracted
   * in none of dublin's decisions: 22 users for T = 20 until a decision early in a minute asked the
   * other data centers' counters what they carry (the fault suite met it after failovers: 11 and 12
   * for T = 10, docs/cluster.md).
   */
  @Test
  void anotherDataCentersLateAdmissionsBeyondItsShareAreNotOfferedAgain() {
    TwoDataCenters room = new TwoDataCenters(Fixtures.room(20, 1000).historyLagMinutes(1).build());
    TwoDataCenters.Dc dublin = room.dcs.get(0);
    TwoDataCenters.Dc nairobi = room.dcs.get(1);
    room.settle();
    room.now = START.plusSeconds(5);
    List<Ticket> atDublin = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      assertThat(dublin.newUser()).isTrue();
      atDublin.add(room.admitted.get(room.admitted.size() - 1));
      assertThat(nairobi.newUser()).isTrue();
    }
    room.now = START.plusSeconds(30);
    room.settle();
    // minute :01: only dublin's users come back, so minute :02 splits the pool by dublin's traffic
    room.now = START.plusSeconds(70);
    for (Ticket t : atDublin) assertThat(dublin.ask(t)).as("a session renewed").isTrue();
    room.now = START.plusSeconds(80);
    room.settle();
    // nairobi's crowd in the minute's last seconds: in no state when the next minute starts
    room.now = START.plusSeconds(117);
    int crowd = 0;
    for (int i = 0; i < 8; i++) if (nairobi.newUser()) crowd++;
    // G = 10, history 5/5, T = 20: H = 5, dublin 3 (the tied seat), nairobi 2, Anywhere 5
    assertThat(crowd).as("nairobi's crowd admitted at :57").isEqualTo(7);
    // the next minute at dublin, from a state that does not count the crowd yet
    room.now = START.plusSeconds(121);
    dublin.report();
    int newcomers = 0;
    for (int i = 0; i < 10; i++) if (dublin.newUser()) newcomers++;
    assertThat(10 + crowd + newcomers)
        .as("users holding admission after dublin's newcomers at :01 (T = 20)")
        .isLessThanOrEqualTo(20);
    // once the states count the crowd, the room fills up to T
    room.runSettledUntil(START.plusSeconds(150), Duration.ofSeconds(5));
    // both data centers' newcomers: each has its share of the pool (by :01's traffic), and Anywhere
    for (int i = 0; i < 10; i++) {
      if (dublin.newUser()) newcomers++;
      if (nairobi.newUser()) newcomers++;
    }
    assertThat(10 + crowd + newcomers).as("the room full once the states caught up").isEqualTo(20);
  }

  /**
   * The Anywhere counter's late numbers beyond its share of the next minute, with one data center
   * (the reviewer's example): nobody visited in 9:59, so minute :01's pool is all Anywhere's; the
   * users queued at :01:05 get nine Anywhere numbers at :01:59 as the sessions of :00 expire; at
   * :02:00 the pool, from a state that cannot count them, splits by :00's traffic (all at dublin),
   * so the data center's counter has all of it and carries nothing: 19 users for T = 10 until a
   * decision early in a minute asked the Anywhere counter too.
   */
  @Test
  void theAnywhereCountersLateAdmissionsBeyondItsShareAreNotOfferedAgain() {
    TwoDataCenters room =
        new TwoDataCenters(Fixtures.room(10, 1000).sessionDurationMinutes(1).build());
    TwoDataCenters.Dc dublin = room.dcs.get(0);
    room.settle();
    room.now = START.plusSeconds(5);
    for (int i = 0; i < 10; i++) assertThat(dublin.newUser()).isTrue();
    room.now = START.plusSeconds(30);
    room.settle();
    // minute :01: the ten sessions expire in it; thirty newcomers queue at :05
    room.now = START.plusSeconds(65);
    room.settle();
    List<Ticket> queued = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      Decision d = dublin.finish(dublin.worker.decide(null, room.now));
      assertThat(d).as("queued at :05").isInstanceOf(Decision.Queue.class);
      queued.add(d.ticket());
    }
    room.now = START.plusSeconds(100);
    room.settle();
    // at :59 the expired sessions' slots go to the queue
    room.now = START.plusSeconds(119);
    int late = 0;
    List<Ticket> still = new ArrayList<>();
    for (Ticket t : queued) {
      Decision d = dublin.finish(dublin.worker.decide(t, room.now));
      if (d instanceof Decision.Admit) {
        late++;
      } else {
        still.add(d.ticket());
      }
    }
    assertThat(late).as("admitted in the minute's last second").isPositive();
    // the next minute, from a state that does not count them yet
    room.now = START.plusSeconds(120);
    int next = 0;
    for (Ticket t : still) {
      if (dublin.finish(dublin.worker.decide(t, room.now)) instanceof Decision.Admit) next++;
    }
    assertThat(late + next)
        .as("users holding admission at :02:00 (T = 10; the ten of :00 expired)")
        .isLessThanOrEqualTo(10);
  }

  /**
   * Nairobi's crowd at 10:02:57 takes nairobi's numbers, within nairobi's share of 10:02. Dublin at
   * 10:03:01, from a state that does not count the crowd, asks every counter what it carries.
   * Nairobi at 10:03:20, from a state that counts the crowd, splits a pool of 5 and asks no
   * counter. When dublin subtracted nairobi's late numbers from nairobi's share only, it took its
   * whole share of 10 (5), which the state that counts the crowd lowered to 2, and nairobi's and
   * the Anywhere counters gave their shares of 5 again: 13 users for T = 10. Taking the late
   * numbers off the pool before it is split gives every decision of the minute the same shares.
   */
  @Test
  void aShareThatFellAtAnotherDataCenterIsNotOfferedAgain() {
    TwoDataCenters room = new TwoDataCenters(Fixtures.room(10, 1000).build());
    TwoDataCenters.Dc dublin = room.dcs.get(0);
    TwoDataCenters.Dc nairobi = room.dcs.get(1);
    room.settle();
    room.now = START.plusSeconds(5);
    List<Ticket> atDublin = new ArrayList<>();
    List<Ticket> atNairobi = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      assertThat(dublin.newUser()).isTrue();
      atDublin.add(room.admitted.get(room.admitted.size() - 1));
      assertThat(nairobi.newUser()).isTrue();
      atNairobi.add(room.admitted.get(room.admitted.size() - 1));
    }
    room.now = START.plusSeconds(30);
    room.settle();
    // 10:01: every user comes back (traffic 5/5 in the history minute of 10:03), then logs out
    room.now = START.plusSeconds(65);
    List<Ticket> d2 = new ArrayList<>();
    List<Ticket> n2 = new ArrayList<>();
    for (Ticket t : atDublin) {
      Decision d = dublin.worker.decide(t, room.now);
      assertThat(d).isInstanceOf(Decision.Admit.class);
      d2.add(d.ticket());
    }
    for (Ticket t : atNairobi) {
      Decision d = nairobi.worker.decide(t, room.now);
      assertThat(d).isInstanceOf(Decision.Admit.class);
      n2.add(d.ticket());
    }
    room.now = START.plusSeconds(90);
    for (Ticket t : d2) assertThat(dublin.worker.endSession(t, room.now)).isTrue();
    for (Ticket t : n2) assertThat(nairobi.worker.endSession(t, room.now)).isTrue();
    room.admitted.clear();
    room.runSettledUntil(START.plusSeconds(170), Duration.ofSeconds(5));
    // nairobi's crowd in 10:02's last seconds, on nairobi's counter (its share of 10:02 is 5)
    room.now = START.plusSeconds(177);
    int crowd = 0;
    for (int i = 0; i < 5; i++) if (nairobi.newUser()) crowd++;
    assertThat(crowd).isEqualTo(5);
    // 10:03:01 at dublin, from a state of 10:02:50 that does not count the crowd
    room.now = START.plusSeconds(181);
    int atDublinNext = 0;
    for (int i = 0; i < 10; i++) if (dublin.newUser()) atDublinNext++;
    // 10:03:20: every state counts the crowd and dublin's newcomers
    room.runSettledUntil(START.plusSeconds(200), Duration.ofSeconds(5));
    int atNairobiNext = 0;
    for (int i = 0; i < 10; i++) if (nairobi.newUser()) atNairobiNext++;
    assertThat(crowd + atDublinNext + atNairobiNext)
        .as(
            "users holding admission at 10:03:20 (T = 10; crowd %d, dublin %d, nairobi %d)",
            crowd, atDublinNext, atNairobiNext)
        .isLessThanOrEqualTo(10);
  }

  /**
   * At a minute's start a worker may still hold the previous minute's state, in which that minute's
   * bucket is the state's own and gets no eligible slots, while a worker with a newer state sees it
   * whole. T = 10, one data center's traffic: ten users at dublin at 10:00:05, four more queued at
   * :30 (bucket 10:00), six log out at :50. At 10:01:00.5 dublin's state of 10:01 makes the bucket
   * whole; nairobi, still holding its state of 10:00:58, is not blocked by it (it would have been
   * whole there too) and gave its six newcomers the Anywhere counter's six numbers; the bucket's
   * four users, back at dublin at :02, found the counters spent and entered without a number: 14
   * users for T = 10 until a bucket that does not block new users is set aside like a whole one.
   */
  @Test
  void thePreviousMinutesBucketIsSetAsideByAWorkerStillHoldingThatMinutesState() {
    TwoDataCenters room = new TwoDataCenters(Fixtures.room(10, 1000).build());
    TwoDataCenters.Dc dublin = room.dcs.get(0);
    TwoDataCenters.Dc nairobi = room.dcs.get(1);
    room.settle();
    room.now = START.plusSeconds(5);
    List<Ticket> in = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      assertThat(dublin.newUser()).isTrue();
      in.add(room.admitted.get(room.admitted.size() - 1));
    }
    room.now = START.plusSeconds(30);
    room.settle();
    List<Ticket> queued = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      Decision d = dublin.finish(dublin.worker.decide(null, room.now));
      assertThat(d).as("queued at :30 (T = 10)").isInstanceOf(Decision.Queue.class);
      queued.add(d.ticket());
    }
    room.now = START.plusSeconds(50);
    for (int i = 0; i < 6; i++) {
      assertThat(dublin.worker.endSession(in.get(i), room.now)).isTrue();
    }
    room.runSettledUntil(START.plusSeconds(58), Duration.ofSeconds(2));
    // 10:01:00.5: dublin's state of 10:01 makes bucket 10:00 whole; nairobi's is of 10:00:58
    room.now = START.plusMillis(60_500);
    dublin.report();
    assertThat(dublin.worker.state().bucket(Minutes.minuteOf(START)).orElseThrow().whole())
        .isTrue();
    room.now = START.plusSeconds(61);
    int newcomers = 0;
    for (int i = 0; i < 6; i++) {
      if (nairobi.newUser()) newcomers++;
    }
    room.now = START.plusSeconds(62);
    int wholeBucket = 0;
    for (Ticket t : queued) {
      if (dublin.ask(t)) wholeBucket++;
    }

    assertThat(wholeBucket).as("the bucket's users, first in line").isEqualTo(4);
    assertThat(4 + newcomers + wholeBucket)
        .as("users holding admission (T = 10; %d newcomers at nairobi)", newcomers)
        .isEqualTo(10);
  }

  /**
   * Whole-bucket users let in without a number (their counters were spent) are on no counter, so a
   * newer state of the minute, whose buckets no longer set their slots aside, must keep them among
   * the sessions. T = 100, 90 sessions, history 50/50, {@code late} numbers on dc's counter in the
   * previous minute's last seconds, a whole bucket of 4 (G = 10, G' = 6). At 10:00:10 dc's new
   * users and the bucket's users take dc's numbers, the last of the bucket entered without one,
   * "other" takes its share. At 10:00:20 a state computed from their reports splits the pool again:
   * without the reported uncounted admissions it left the numberless ones out of the sessions and
   * offered their slots again (102 users for T = 100); with them, its smaller pool lowered dc's
   * share below dc's count while "other" gave its new share in full (101). The bucket's last users
   * now draw other's counter (its share of G) before they enter without a number: 100.
   */
  @ParameterizedTest(name = "{0} late on dc")
  @ValueSource(ints = {0, 2})
  void wholeBucketUsersLetInWithoutANumberAreNotOfferedAgain(int late) {
    RoomConfig config = RoomWorkerTest.COUNTERS;
    Instant now = RoomWorkerTest.NOW;
    long m = RoomWorkerTest.M;
    MinuteCounter dc = new MinuteCounter(config.rules());
    MinuteCounter other = new MinuteCounter(config.rules());
    MinuteCounter anywhere = new MinuteCounter(config.rules());
    for (int i = 0; i < late; i++) {
      dc.take(m - 1, 100, null, now.minusSeconds(12)); // 09:59:58
    }
    Instant[] at = {now};
    java.util.function.BiPredicate<RoomWorker, Ticket> admitted =
        (w, t) -> {
          Decision d = w.decide(t, at[0]);
          while (d instanceof Decision.Draw draw) {
            MinuteCounter c =
                draw.counter().isAnywhere()
                    ? anywhere
                    : draw.counter().dataCenter().equals("dc") ? dc : other;
            d = w.onCounterReply(draw, c.take(draw, at[0]), at[0]);
          }
          return d instanceof Decision.Admit;
        };
    java.util.TreeMap<Long, java.util.Map<String, Long>> history = new java.util.TreeMap<>();
    history.put(m - 2, java.util.Map.of("dc", 50L, "other", 50L));
    java.util.function.Function<String, RoomState> first =
        name ->
            new RoomState(
                name,
                now,
                m,
                new java.util.TreeMap<>(java.util.Map.of(m + 10, 90L + late)),
                90 + late,
                0,
                List.of(new BucketState(m - 3, 4, 4)),
                history,
                1,
                2,
                0,
                0,
                10 - late,
                new MinutePool(m, 100 - 90, 100, 0));
    RoomWorker x = new RoomWorker(config, "dc", "x", now.minusSeconds(30));
    RoomWorker y = new RoomWorker(config, "other", "y", now.minusSeconds(30));
    x.applyState(first.apply("dc"));
    y.applyState(first.apply("other"));
    int in = 0;
    for (int i = 0; i < 4; i++) {
      in += admitted.test(x, null) ? 1 : 0;
    }
    for (int i = 0; i < 4; i++) {
      in += admitted.test(x, RoomWorkerTest.waiting(m - 3, now.minusSeconds(20), 1)) ? 1 : 0;
    }
    for (int i = 0; i < 4; i++) {
      in += admitted.test(y, null) ? 1 : 0;
    }
    assertThat(late + in).as("within the first state's pool").isLessThanOrEqualTo(10);
    // 10:00:20: a state computed from the sessions before and both workers' reports
    Instant later = now.plusSeconds(10);
    Deltas before =
        new Deltas(
            new java.util.TreeMap<>(java.util.Map.of(m + 10, 90L + late)),
            new java.util.TreeMap<>(),
            new java.util.TreeMap<>(),
            new java.util.TreeMap<>());
    Deltas sum = before.plus(x.report(later).deltas()).plus(y.report(later).deltas());
    java.util.Map<String, java.util.SortedMap<Long, Long>> traffic =
        java.util.Map.of(
            "dc", new java.util.TreeMap<>(java.util.Map.of(m - 2, 50L)),
            "other", new java.util.TreeMap<>(java.util.Map.of(m - 2, 50L)));
    x.applyState(RoomStates.compute(config, "dc", sum, traffic, 1, 2, later, null));
    y.applyState(RoomStates.compute(config, "other", sum, traffic, 1, 2, later, null));
    at[0] = later;
    long numberless = x.state().uncountedThisMinute();
    assertThat(y.pool(later).available(later))
        .as("the newer state keeps them among the sessions (the numbered ones are on the counters)")
        .isEqualTo(100 - 90 - late - numberless);
    for (int i = 0; i < 5; i++) {
      in += admitted.test(y, null) ? 1 : 0;
      in += admitted.test(x, null) ? 1 : 0;
    }
    // all four of the bucket's users came to dc, whose counter gave two of them numbers against its
    // share of all of G (5 of 10); the last two entered without a number, and the newer pool (8),
    // split 4/4, left dc's counter one above its share while "other" gave its 4 in full: 101 users
    // for T = 100 until they drew other's numbers (its share of G, 5), where a newer state's split
    // finds them
    assertThat(90 + late + in)
        .as("users holding admission (T = 100; %d admitted in the minute)", in)
        .isLessThanOrEqualTo(100);
    assertThat(numberless)
        .as("the bucket's last two users drew other's numbers: none let in without one")
        .isZero();
  }
}
