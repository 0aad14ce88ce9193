package io.anteroom.room;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.room.slots.StrategyKind;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SortedMap;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * One user's requests, spread over two workers whose reports arrive in any order, leave exactly the
 * counts the user's last ticket implies: the delta pairs of the ledgers (moves of an active user's
 * expiry minute, of a waiting user's refresh key, from waiting to admitted) never lose or double a
 * user.
 */
class UserLifecyclePropertiesTest {
  static final Instant START = Instant.parse("2026-01-01T10:00:00Z");

  /**
   * A request: seconds since the previous one, which worker, and whether that worker's state has
   * room.
   */
  record Step(int afterSeconds, int worker, boolean room) {}

  @Provide
  Arbitrary<List<Step>> steps() {
    return Combinators.combine(
            Arbitraries.integers().between(0, 400),
            Arbitraries.integers().between(0, 1),
            Arbitraries.of(true, false, false))
        .as(Step::new)
        .list()
        .ofMinSize(1)
        .ofMaxSize(30);
  }

  @Property(tries = 300)
  void aUsersTicketAndTheMergedLedgersAlwaysAgree(
      @ForAll("steps") List<Step> steps,
      @ForAll StrategyKind strategy,
      @ForAll boolean renewal,
      @ForAll long seed) {
    RoomConfig config =
        Fixtures.room(1000, 1000).strategy(strategy).sessionRenewal(renewal).build();
    List<RoomWorker> workers =
        List.of(new RoomWorker(config, "dc", "a", START), new RoomWorker(config, "dc", "b", START));
    MinuteCounter dcCounter = new MinuteCounter(config.rules());
    MinuteCounter anywhere = new MinuteCounter(config.rules());
    List<WorkerReport> reports = new ArrayList<>();
    Instant now = START;
    Ticket ticket = null;
    long admissions = 0;
    for (Step step : steps) {
      now = now.plusSeconds(step.afterSeconds());
      RoomWorker w = workers.get(step.worker());
      w.applyState(state(now, step.room()));
      Decision d = WorkedExamplesTest.settle(w, w.decide(ticket, now), dcCounter, anywhere, now);
      if (d instanceof Decision.Admit a && a.reason() != Decision.AdmitReason.SESSION) {
        admissions++;
      }
      ticket = d.ticket();
      reports.add(w.report(now));
    }
    Collections.shuffle(reports, new Random(seed));
    Tally merged = new Tally();
    reports.forEach(r -> merged.add(r.deltas()));
    Deltas sum = merged.toDeltas();

    // every admission adds one session; renewals only move it; the user's current session is the
    // only one
    // counted after the minute it ends in, and no session is counted after that
    SortedMap<Long, Long> h = sum.activeByExpiryMinute();
    assertThat(sum(h)).isEqualTo(admissions);
    long end =
        ticket.admitted()
            ? Minutes.minuteOf(
                (renewal ? ticket.lastCheckInTime() : ticket.acceptedAt())
                    .plus(config.sessionDuration()))
            : Minutes.minuteOf(now);
    assertThat(sum(h.tailMap(end + 1))).isZero();
    if (ticket.admitted() && end >= Minutes.minuteOf(now)) {
      assertThat(h.get(end)).isEqualTo(1L);
    }
    assertThat(sum(sum.admissionsByMinute())).isEqualTo(admissions);
    long waiting = 0;
    for (SortedMap<Long, Long> keys : sum.waitingByBucket().values()) {
      waiting += sum(keys);
    }
    assertThat(waiting).isEqualTo(ticket.admitted() ? 0 : 1);
    if (!ticket.admitted()) {
      assertThat(sum.waitingByBucket().get(ticket.bucketId()))
          .containsExactly(Map.entry(ticket.refreshSlotKey(), 1L));
    }
  }

  /**
   * With room: nothing waits and slots are free; without: an old bucket without slots blocks
   * everyone newer.
   */
  private static RoomState state(Instant now, boolean room) {
    long m = Minutes.minuteOf(now);
    List<BucketState> buckets = room ? List.of() : List.of(new BucketState(m - 100, 50, 0));
    return new RoomState(
        "dc",
        now,
        m,
        new TreeMap<>(),
        0,
        0,
        buckets,
        new TreeMap<>(),
        2,
        2,
        0,
        0,
        room ? 1000 : 0,
        new MinutePool(m, room ? 1000 : 0, 1000, 0));
  }

  private static long sum(Map<Long, Long> m) {
    long s = 0;
    for (long v : m.values()) {
      s += v;
    }
    return s;
  }
}
