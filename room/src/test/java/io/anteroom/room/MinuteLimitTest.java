package io.anteroom.room;

import static io.anteroom.room.Fixtures.at;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * N bounds a minute's admissions however the whole buckets' users and the partial bucket's draws
 * interleave on the two counters. Whole-bucket users draw against all of {@code G(t)}, the data
 * center's numbers first; the partial bucket and new users draw against {@code G'(t) = G(t) - Σ
 * waiting(whole)}, split the same way. The data center's numbers the whole buckets took beyond the
 * split of {@code G'} are not on the Anywhere counter, so the partial draws' Anywhere limit takes
 * them off (found in {@code EventPrequeueEndToEndTest}: 21 admissions in one minute for N = 20,
 * about once in 40-150 runs).
 */
class MinuteLimitTest {
  private static final AtomicLong IDS = new AtomicLong();

  /** 10:00:05, the first state of the minute. */
  static final Instant T0 = at("2026-01-01T10:00:05Z");

  static final long M = Minutes.minuteOf(T0);

  /** T = 1000, N = 20, counters. */
  static final RoomConfig ROOM = Fixtures.room(1000, 20).build();

  /**
   * A state of minute M at {@code asOf}: {@code admitted} admissions in the minute so far (active
   * for 10 minutes), the given buckets, 200 users of the history minute in "dc" (its share of a
   * pool is 200 / T = 0.2: of G = 20, 4 on the data center's counter and 16 on Anywhere).
   */
  static RoomState state(Instant asOf, long admitted, List<BucketState> buckets) {
    TreeMap<Long, Map<String, Long>> history = new TreeMap<>();
    history.put(M - 2, Map.of("dc", 200L));
    long whole = buckets.stream().filter(BucketState::whole).mapToLong(BucketState::waiting).sum();
    long eligible = buckets.stream().mapToLong(BucketState::eligibleSlots).sum();
    return new RoomState(
        "dc",
        asOf,
        M,
        new TreeMap<>(Map.of(M + 10, admitted)),
        admitted,
        admitted,
        buckets,
        history,
        1,
        1,
        20,
        0,
        Math.max(eligible, whole),
        new MinutePool(M, 1000, 20, 0));
  }

  final MinuteCounter dc = new MinuteCounter(ROOM.rules());
  final MinuteCounter anywhere = new MinuteCounter(ROOM.rules());
  int admitted;

  /** {@code users} users of {@code bucket} present their waiting tickets at {@code now}. */
  void present(RoomWorker w, long bucket, int users, Instant now) {
    for (int i = 0; i < users; i++) {
      Ticket t = new Ticket("shop", IDS.incrementAndGet(), bucket, now.minusSeconds(20), null, 1);
      if (WorkedExamplesTest.settle(w, w.decide(t, now), dc, anywhere, now)
          instanceof Decision.Admit) {
        admitted++;
      }
    }
  }

  @Test
  void aMinuteAdmitsAtMostNWhenWholeBucketsTookTheDataCentersNumbersBeforeANewerState() {
    RoomWorker w = new RoomWorker(ROOM, "dc", "w1", T0.minusSeconds(30));
    // 10:00:05: 17 counted in whole buckets (10 of them admitted in the previous minute, a state
    // that is late) and a partial bucket with 3 slots: G = 20, G' = 3
    w.applyState(
        state(
            T0,
            0,
            List.of(
                new BucketState(M - 10, 10, 10),
                new BucketState(M - 9, 7, 7),
                new BucketState(M - 8, 5, 3))));
    Instant first = T0.plusSeconds(1);
    present(w, M - 8, 2, first); // two of the partial bucket: Anywhere 0 and 1
    present(w, M - 9, 7, first); // the whole bucket: data center 0-3, Anywhere 2-4
    present(w, M - 8, 3, first); // the rest of the partial bucket: nothing left of G'
    assertThat(admitted).isEqualTo(9);

    // 10:00:25: the 9 admissions are counted; 10 users in whole buckets, one slot for the partial
    // bucket: G' = 20 - 10 = 10, of which 2 on the data center's counter, which already gave 4
    Instant second = T0.plusSeconds(20);
    w.applyState(
        state(
            second,
            9,
            List.of(
                new BucketState(M - 8, 3, 3),
                new BucketState(M - 7, 7, 7),
                new BucketState(M - 6, 20, 1))));
    present(w, M - 6, 5, second.plusSeconds(1));
    present(w, M - 8, 3, second.plusSeconds(1));
    present(w, M - 7, 7, second.plusSeconds(1));

    assertThat(admitted).as("admissions in a minute of N = 20").isEqualTo(20);
  }

  @Test
  void aMinuteAdmitsAtMostNWhenNewUsersHaveNoDataCenterShareOfTheirOwn() {
    RoomWorker w = new RoomWorker(ROOM, "dc", "w1", T0.minusSeconds(30));
    // 10:00:05: 20 counted in whole buckets; G' = 0
    w.applyState(
        state(T0, 0, List.of(new BucketState(M - 10, 4, 4), new BucketState(M - 9, 16, 16))));
    present(w, M - 10, 4, T0.plusSeconds(1)); // data center 0-3
    assertThat(admitted).isEqualTo(4);

    // 10:00:25: the 4 are counted and 16 wait in a whole bucket; new users draw against G' = 20 -
    // 16 = 4, whose data-center share is 0 (floor(4 x 0.2)), and the data center's counter gave 4
    Instant second = T0.plusSeconds(20);
    w.applyState(state(second, 4, List.of(new BucketState(M - 9, 16, 16))));
    for (int i = 0; i < 6; i++) {
      Instant now = second.plusSeconds(1);
      if (WorkedExamplesTest.settle(w, w.decide(null, now), dc, anywhere, now)
          instanceof Decision.Admit) {
        admitted++;
      }
    }
    present(w, M - 9, 16, second.plusSeconds(1));

    assertThat(admitted).as("admissions in a minute of N = 20").isEqualTo(20);
  }

  /**
   * Where a refusal consumes a number too, its number counts refusals, not admissions: the
   * published rules ask no data-center count and take nothing off the Anywhere limit.
   */
  @Test
  void thePublishedRulesKeepTheirLimits() {
    RoomConfig published = ROOM.withRules(Rules.published());
    Instant now = T0.plusSeconds(1);
    RoomWorker spec = new RoomWorker(ROOM, "dc", "w1", T0.minusSeconds(30));
    RoomWorker pub = new RoomWorker(published, "dc", "w2", T0.minusSeconds(30));
    // G' = 20 - 16 = 4, whose data-center share is 0
    RoomState wholeOf16 = state(T0, 4, List.of(new BucketState(M - 9, 16, 16)));
    spec.applyState(wholeOf16);
    pub.applyState(wholeOf16);
    assertThat(
            RoomWorkerTest.nothingLateElsewhere(spec, spec.decide(null, now), now)
                .counter()
                .isAnywhere())
        .isFalse();
    Decision.Draw first = (Decision.Draw) pub.decide(null, now);
    assertThat(first.counter().isAnywhere()).isTrue();
    assertThat(first.limit()).isEqualTo(4);

    // G' = 20 - 10 = 10: 2 on the data center's counter, 8 on Anywhere; the data center answers 4
    RoomState wholeOf10 = state(T0, 0, List.of(new BucketState(M - 9, 10, 10)));
    RoomWorker spec2 = new RoomWorker(ROOM, "dc", "w3", T0.minusSeconds(30));
    RoomWorker pub2 = new RoomWorker(published, "dc", "w4", T0.minusSeconds(30));
    spec2.applyState(wholeOf10);
    pub2.applyState(wholeOf10);
    Decision.Draw specDc = RoomWorkerTest.nothingLateElsewhere(spec2, spec2.decide(null, now), now);
    Decision.Draw pubDc = (Decision.Draw) pub2.decide(null, now);
    assertThat(pubDc.limit()).isEqualTo(2);
    assertThat(((Decision.Draw) spec2.onCounterReply(specDc, new Grant(M, 4, false), now)).limit())
        .isEqualTo(6);
    assertThat(((Decision.Draw) pub2.onCounterReply(pubDc, new Grant(M, 4, false), now)).limit())
        .isEqualTo(8);
  }
}
