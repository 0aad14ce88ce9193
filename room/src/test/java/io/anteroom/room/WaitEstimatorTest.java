package io.anteroom.room;

import static io.anteroom.room.Fixtures.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class WaitEstimatorTest {
  static final Instant NOW = at("2026-01-01T10:00:10Z");
  static final long M = Minutes.minuteOf(NOW);
  static final List<BucketState> BUCKETS =
      List.of(new BucketState(M - 2, 30, 0), new BucketState(M - 1, 30, 0));

  /** T = 1000, N = 200, S = 5 min, refresh 20 s: a user enters 10 s after its slot on average. */
  static final RoomConfig ROOM =
      RoomConfig.builder("shop")
          .totalActiveUsers(1000)
          .newUsersPerMinute(200)
          .sessionDurationMinutes(5)
          .build();

  static final double REFRESH_LATENCY = 10 / 60.0;
  static final RoomConfig PUBLISHED = ROOM.withRules(Rules.published());

  /**
   * A state at {@code asOf} with {@code active} users ending in minute {@code m + endsIn}, {@code
   * admitted} admissions in its minute so far and free slots as the core computes them.
   */
  static RoomState state(
      Instant asOf,
      long active,
      long endsIn,
      long admitted,
      List<BucketState> buckets,
      double admissionsPerMinute,
      double abandonmentsPerMinute) {
    long m = Minutes.minuteOf(asOf);
    TreeMap<Long, Long> h = new TreeMap<>();
    if (active > 0) {
      h.put(m + endsIn, active);
    }
    long free = SlotMath.freeSlots(ROOM, active, admitted);
    return new RoomState(
        "dc",
        asOf,
        m,
        h,
        active,
        admitted,
        buckets,
        new TreeMap<Long, Map<String, Long>>(),
        1,
        1,
        admissionsPerMinute,
        abandonmentsPerMinute,
        free,
        null);
  }

  @Test
  void withFreeSlotsAUserEntersOnItsNextRefresh() {
    // 500 slots free under T and 200 under N: the 60 users ahead are all eligible
    RoomState s =
        state(
            at("2026-01-01T10:00:00Z"),
            500,
            3,
            0,
            List.of(new BucketState(M - 2, 30, 30), new BucketState(M - 1, 30, 30)),
            100,
            0);

    WaitEstimate w = WaitEstimator.estimate(s, M - 1, ROOM);

    assertThat(w.ahead()).isZero();
    assertThat(w.minutes()).isCloseTo(REFRESH_LATENCY, within(1e-9));
  }

  @Test
  void whenNBindsTheQueueMovesNUsersAMinuteFromTheNextMinuteOn() {
    // N spent in this minute (30 s in), T far away: 400 waiting in one bucket, places 100/200/300
    RoomState s =
        state(
            at("2026-01-01T10:00:30Z"),
            300,
            4,
            200,
            List.of(new BucketState(M - 1, 400, 0)),
            100,
            0);

    WaitEstimate w = WaitEstimator.estimate(s, M - 1, ROOM);

    // places 100 and 200 enter with the next minute's N at its start (in 30 s), 300 a minute later
    assertThat(w.p25()).isCloseTo(0.5 + REFRESH_LATENCY, within(1e-9));
    assertThat(w.p50()).isCloseTo(0.5 + REFRESH_LATENCY, within(1e-9));
    assertThat(w.p75()).isCloseTo(1.5 + REFRESH_LATENCY, within(1e-9));
    assertThat(w.minutes()).isEqualTo(w.p50());
  }

  @Test
  void whenTBindsTheQueueMovesAsSessionsEnd() {
    // the room is full (T = 1000), nothing admitted this minute; all sessions end in minute m + 2
    RoomState s =
        state(
            at("2026-01-01T10:00:00Z"),
            1000,
            2,
            0,
            List.of(new BucketState(M - 1, 200, 0)),
            150,
            0);

    WaitEstimate w = WaitEstimator.estimate(s, M - 1, ROOM);

    // 1000 sessions end over minute m + 2 (1000 a minute): place 100 is taken 0.1 min into it,
    // place 150 0.15 min in; N (200) then holds the rest of that minute back
    assertThat(w.p50()).isCloseTo(2.1 + REFRESH_LATENCY, within(1e-9));
    assertThat(w.p75()).isCloseTo(2.15 + REFRESH_LATENCY, within(1e-9));
    // the spec's formula would say 200 / 150 minutes, blind to the sessions not ending before
    assertThat(w.minutes()).isGreaterThan(200 / 150.0);
  }

  @Test
  void usersTheForecastAdmitsLeaveASessionLaterAndFreeTheirSlots() {
    // the room is full; all 1000 sessions end in minute m + 1, then N (200) binds for five minutes
    // while the freed slots are taken; from minute m + 6 on only the users admitted in m + 1 leave
    RoomState s =
        state(
            at("2026-01-01T10:00:00Z"),
            1000,
            1,
            0,
            List.of(new BucketState(M - 1, 2400, 0)),
            150,
            0);

    WaitEstimate w = WaitEstimator.estimate(s, M - 1, ROOM);

    // place 600: 200 in m + 1 (as the sessions end), 200 at the start of m + 2 and of m + 3
    assertThat(w.p25()).isCloseTo(3 + REFRESH_LATENCY, within(1e-9));
    // place 1200: 1000 by the end of m + 5, then the 200 admitted in m + 1 leave over m + 6
    assertThat(w.p50()).isCloseTo(7 + REFRESH_LATENCY, within(1e-9));
  }

  @Test
  void aSpikeAfterALowPeriodIsEstimatedAtNAMinuteNotAtThePastAdmissions() {
    // 15 admissions a minute before the spike; now N binds with 700 free slots under T
    RoomState s =
        state(
            at("2026-01-01T10:00:30Z"),
            300,
            4,
            200,
            List.of(new BucketState(M - 1, 1200, 0)),
            15,
            0);

    WaitEstimate spec = WaitEstimator.estimate(s, M - 1, ROOM);
    WaitEstimate published = WaitEstimator.estimate(s, M - 1, PUBLISHED);

    // place 600: three minutes of N (200 at each minute start), the first in 30 s
    assertThat(spec.minutes()).isCloseTo(2.5 + REFRESH_LATENCY, within(1e-9));
    assertThat(published.minutes()).isEqualTo(1200 / 15.0); // 80 minutes, 30 times too long
  }

  @Test
  void theBucketOfTheCurrentMinuteIsExtrapolatedToTheWholeMinute() {
    // 15 s into the minute, 50 users of this minute's bucket counted: 200 by its end
    Instant asOf = at("2026-01-01T10:00:15Z");
    long m = Minutes.minuteOf(asOf);
    RoomState s = state(asOf, 300, 4, 200, List.of(new BucketState(m, 50, 0)), 100, 0);

    assertThat(WaitEstimator.bucketSize(s, m, 50)).isCloseTo(200, within(1e-9));
    assertThat(WaitEstimator.bucketSize(s, m + 1, 0)).isCloseTo(200, within(1e-9));
    assertThat(WaitEstimator.bucketSize(s, m - 1, 40)).isEqualTo(40); // a past bucket is complete
    // place 100 of 200: the next minute's N
    assertThat(WaitEstimator.estimate(s, m, ROOM).minutes())
        .isCloseTo(0.75 + REFRESH_LATENCY, within(1e-9));
  }

  @Test
  void theHazardCountsTheUsersTheAbandonmentsCameFrom() {
    // 12 abandonments a minute; 100 users waiting for 2+ minutes, 900 who just arrived
    RoomState s =
        state(
            NOW,
            1000,
            2,
            0,
            List.of(new BucketState(M - 2, 100, 0), new BucketState(M, 900, 0)),
            20,
            12);

    // from: 100 waiting long + a minute of users leaving the queue (20 admitted + 12 gave up)
    assertThat(WaitEstimator.hazard(s)).isCloseTo(12 / 132.0, within(1e-12));
  }

  @Test
  void abandonmentShortensTheEstimate() {
    RoomState without = state(NOW, 1000, 2, 0, BUCKETS, 30, 0);
    RoomState with = state(NOW, 1000, 2, 0, BUCKETS, 30, 6);

    assertThat(WaitEstimator.estimate(with, M - 1, ROOM).minutes())
        .isLessThan(WaitEstimator.estimate(without, M - 1, ROOM).minutes());
  }

  @Test
  void theSpecFormulaShortensTheEstimateByAbandonment() {
    // h = 6 / 60 = 0.1 per minute; ahead 60 at 30 per minute: ln(1 + 0.1 × 2) / 0.1
    RoomConfig specFormula =
        ROOM.withRules(
            new Rules(true, true, true, true, true, true, /* admissionForecastWait */ false));
    WaitEstimate w =
        WaitEstimator.estimate(Fixtures.state(NOW, BUCKETS, 30, 6), M - 1, specFormula);

    assertThat(w.minutes()).isCloseTo(Math.log(1.2) / 0.1, within(1e-9));
    assertThat(w.minutes()).isLessThan(2.0);
  }

  @Test
  void publishedEstimateIgnoresAbandonment() {
    WaitEstimate w = WaitEstimator.estimate(Fixtures.state(NOW, BUCKETS, 30, 6), M - 1, PUBLISHED);

    assertThat(w.minutes()).isEqualTo(2.0);
  }

  @Test
  void publishedSpreadFollowsTheUsersPlaceInItsOwnBucket() {
    WaitEstimate w = WaitEstimator.estimate(Fixtures.state(NOW, BUCKETS, 30, 0), M - 1, PUBLISHED);

    assertThat(w.p25()).isEqualTo(1.25);
    assertThat(w.p50()).isEqualTo(1.5);
    assertThat(w.p75()).isEqualTo(1.75);
    assertThat(w.p25()).isLessThan(w.p50()).isLessThan(w.p75()).isLessThan(w.minutes());
  }

  @Test
  void theSpreadFollowsTheUsersPlaceInItsBucket() {
    RoomState s = state(NOW, 1000, 2, 0, List.of(new BucketState(M - 1, 200, 0)), 150, 0);

    WaitEstimate w = WaitEstimator.estimate(s, M - 1, ROOM);

    assertThat(w.p25()).isLessThan(w.p50()).isLessThan(w.p75());
  }

  @Test
  void withoutAdmissionsTheWaitIsUnknown() {
    for (RoomConfig c : List.of(ROOM, PUBLISHED)) {
      WaitEstimate w = WaitEstimator.estimate(Fixtures.state(NOW, BUCKETS, 0, 0), M - 1, c);

      assertThat(w.known()).isFalse();
      assertThat(w.ahead()).isEqualTo(60);
    }
  }

  @Test
  void aQueueTheForecastDoesNotReachWithinADayHasAnInfiniteWait() {
    // the room is full and no session ends within the forecast's day
    RoomState s =
        state(
            at("2026-01-01T10:00:00Z"),
            1000,
            AdmissionForecast.HORIZON_MINUTES + 10,
            0,
            List.of(new BucketState(M - 1, 200, 0)),
            1,
            0);

    assertThat(WaitEstimator.estimate(s, M - 1, ROOM).minutes()).isInfinite();
  }

  @Test
  void eligibleUsersAreNotAhead() {
    List<BucketState> partlyServed =
        List.of(new BucketState(M - 2, 30, 30), new BucketState(M - 1, 30, 10));

    WaitEstimate w =
        WaitEstimator.estimate(Fixtures.state(NOW, partlyServed, 10, 0), M - 1, PUBLISHED);

    assertThat(w.ahead()).isEqualTo(20);
    assertThat(w.minutes()).isEqualTo(2.0);
  }
}
