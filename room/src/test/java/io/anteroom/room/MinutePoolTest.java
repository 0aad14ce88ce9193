package io.anteroom.room;

import static io.anteroom.room.Fixtures.at;
import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.room.slots.StrategyKind;
import java.time.Instant;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class MinutePoolTest {
  static final Instant START = at("2026-01-01T10:00:00Z");
  static final long M = Minutes.minuteOf(START);

  /**
   * A state from the previous minute: 60 sessions expire during M, 800 later; 60 admissions per
   * minute lately.
   */
  static RoomState previousMinuteState() {
    TreeMap<Long, Long> h = new TreeMap<>();
    h.put(M, 60L);
    h.put(M + 5, 800L);
    Instant asOf = START.minusSeconds(2);
    return new RoomState(
        "dc", asOf, M - 1, h, 860, 0, List.of(), new TreeMap<>(), 1, 1, 60, 0, 0, null);
  }

  /** A room whose workers count their own slots: the pool keeps the in-flight margin. */
  static RoomConfig.Builder perWorker(int t, int n) {
    return Fixtures.room(t, n).strategy(StrategyKind.EVEN_SPLIT);
  }

  @Test
  void inFlightMarginHoldsBackAdmissionsTooRecentToBeInAnyState() {
    RoomConfig config = perWorker(1000, 500).build(); // r_w 5 s, r_dc 5 s: 15 s of admissions

    // a state 2 s before the minute start may miss the 15 s before its own asOf up to the start: 17
    // s
    assertThat(MinutePool.inFlight(60, START.minusSeconds(2), M, config)).isEqualTo(17);
    MinutePool pool = MinutePool.of(M, previousMinuteState(), config);
    assertThat(pool.base()).isEqualTo(1000 - 860 - 17);
    assertThat(pool.available(START)).isEqualTo(123);
  }

  @Test
  void poolIsRefilledAsTheMinutesSessionsExpire() {
    MinutePool pool = MinutePool.of(M, previousMinuteState(), perWorker(1000, 500).build());

    assertThat(pool.available(START.plusSeconds(30))).isEqualTo(123 + 30);
    assertThat(pool.available(START.plusSeconds(59))).isEqualTo(123 + 59);
  }

  @Test
  void underTheCountersThePoolHoldsNoMarginForTheCountersCarryTheLateAdmissions() {
    RoomConfig counters = Fixtures.room(1000, 500).build();

    MinutePool pool = MinutePool.of(M, previousMinuteState(), counters);

    assertThat(counters.countersCarryLateAdmissions()).isTrue();
    assertThat(pool.base()).as("T - sessions, nothing held back").isEqualTo(1000 - 860);
  }

  @Test
  void underTheCountersAStateOverAMinuteOldKeepsTheMarginForWhatNoCounterRemembers() {
    RoomConfig counters = Fixtures.room(1000, 500).build(); // W = 15 s
    RoomState old = previousMinuteState();
    // computed at 9:58:50: it may miss admissions from 9:58:35, and the counters of minute 10:00
    // remember only 9:59's; 9:58:35-9:59:00 is 25 s at 60 admissions a minute
    RoomState stale =
        new RoomState(
            "dc",
            START.minusSeconds(70),
            M - 2,
            old.activeByExpiryMinute(),
            860,
            0,
            List.of(),
            new TreeMap<>(),
            1,
            1,
            60,
            0,
            0,
            null);

    assertThat(MinutePool.of(M, stale, counters).base()).isEqualTo(1000 - 860 - 25);
  }

  @Test
  void poolNeverExceedsTheNewUsersLeftThisMinute() {
    MinutePool pool = MinutePool.of(M, previousMinuteState(), Fixtures.room(1000, 100).build());

    assertThat(pool.available(START.plusSeconds(50))).isEqualTo(100);
  }

  @Test
  void publishedPoolIsFixedAtTheMinuteStartWithoutRefillOrMargin() {
    RoomConfig published = Fixtures.room(1000, 500).rules(Rules.published()).build();
    MinutePool pool = MinutePool.of(M, previousMinuteState(), published);

    // sessions expiring during M already count as gone: T - 800
    assertThat(pool.available(START)).isEqualTo(200);
    assertThat(pool.available(START.plusSeconds(59))).isEqualTo(200);
  }

  @Test
  void aStateOfTheSameMinuteSubtractsItsAdmissionsFromTheMinutesNewUsers() {
    RoomState state =
        new RoomState(
            "dc",
            START.plusSeconds(3),
            M,
            new TreeMap<>(),
            0,
            40,
            List.of(),
            new TreeMap<>(),
            1,
            1,
            0,
            0,
            0,
            null);

    assertThat(
            MinutePool.of(M, state, Fixtures.room(1000, 100).build())
                .available(START.plusSeconds(3)))
        .isEqualTo(60);
  }

  @Test
  void inFlightMarginShrinksAsTheStateCatchesUpWithTheMinuteStart() {
    RoomConfig config = perWorker(1000, 500).build(); // W = r_w + 2 r_dc = 15 s

    assertThat(MinutePool.inFlight(60, START, M, config)).isEqualTo(15);
    assertThat(MinutePool.inFlight(60, START.plusSeconds(5), M, config)).isEqualTo(10);
    assertThat(MinutePool.inFlight(60, START.plusSeconds(15), M, config)).isZero();
    assertThat(MinutePool.inFlight(60, START.plusSeconds(40), M, config)).isZero();
  }

  @Test
  void newerStateOfTheMinuteReleasesTheMarginAndKeepsTheMinutesNewUsersLeft() {
    RoomConfig config = perWorker(1000, 500).build();
    MinutePool fixed = MinutePool.of(M, previousMinuteState(), config); // R = 1000 - 860 - 17
    // 20 s into M: 30 admissions of M are counted (H[M + 5] + 30); the 860 sessions of before are
    // all there
    TreeMap<Long, Long> h = new TreeMap<>();
    h.put(M, 60L);
    h.put(M + 5, 830L);
    RoomState later =
        new RoomState(
            "dc",
            START.plusSeconds(20),
            M,
            h,
            880,
            30,
            List.of(),
            new TreeMap<>(),
            1,
            1,
            60,
            0,
            0,
            null);

    MinutePool revised = fixed.revisedBy(later, config);

    // the minute's 30 admissions are on the counters already: R counts only the 830 + 60 sessions
    // of before M
    assertThat(revised.base()).isEqualTo(1000 - 890 + 30);
    assertThat(revised.newUsersLeft()).isEqualTo(fixed.newUsersLeft());
    assertThat(revised.available(START.plusSeconds(20))).isEqualTo(140 + 20);
  }

  @Test
  void newerStateShowingMoreSessionsThanTheMarginCoveredShrinksThePool() {
    RoomConfig config = perWorker(1000, 500).build();
    MinutePool fixed = MinutePool.of(M, previousMinuteState(), config);
    TreeMap<Long, Long> h = new TreeMap<>();
    h.put(M, 60L);
    h.put(M + 5, 840L); // 40 admitted just before M, none during M yet
    RoomState later =
        new RoomState(
            "dc",
            START.plusSeconds(20),
            M,
            h,
            900,
            0,
            List.of(),
            new TreeMap<>(),
            1,
            1,
            60,
            0,
            0,
            null);

    assertThat(fixed.revisedBy(later, config).base())
        .isEqualTo(1000 - 900)
        .isLessThan(fixed.base());
  }

  @Test
  void publishedPoolIsNotRevisedByNewerStates() {
    RoomConfig published = Fixtures.room(1000, 500).rules(Rules.published()).build();
    MinutePool fixed = MinutePool.of(M, previousMinuteState(), published);
    RoomState later =
        new RoomState(
            "dc",
            START.plusSeconds(20),
            M,
            new TreeMap<>(),
            0,
            0,
            List.of(),
            new TreeMap<>(),
            1,
            1,
            60,
            0,
            0,
            null);

    assertThat(fixed.revisedBy(later, published)).isSameAs(fixed);
  }
}
