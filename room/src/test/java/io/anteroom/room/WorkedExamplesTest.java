package io.anteroom.room;

import static io.anteroom.room.Fixtures.at;
import static io.anteroom.room.Fixtures.minute;
import static io.anteroom.room.Fixtures.report;
import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.room.slots.SlotSplit;
import io.anteroom.room.slots.SlotStrategy;
import io.anteroom.room.slots.StrategyKind;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The eight worked examples of {@code waiting-room.md}, with their numbers verbatim. */
class WorkedExamplesTest {
  static final Instant NOW = at("2021-05-27T15:57:10Z");
  static final long B1554 = minute("2021-05-27T15:54:00Z");
  static final long B1555 = minute("2021-05-27T15:55:00Z");
  static final long B1556 = minute("2021-05-27T15:56:00Z");
  static final RoomConfig T200 = Fixtures.room(200, 200).build();

  /** Dublin and Nairobi report to their coordinators, which report to the global object. */
  private RoomState aggregated(int dublinActive, int nairobiActive) {
    long expiry = Minutes.minuteOf(NOW) + 5;
    DataCenterLedger dublin = new DataCenterLedger(T200, "Dublin");
    DataCenterLedger nairobi = new DataCenterLedger(T200, "Nairobi");
    dublin.apply(
        report(T200, "Dublin", "d1", 1, NOW, expiry, dublinActive, Map.of(B1555, 20L, B1556, 40L)),
        NOW);
    nairobi.apply(
        report(
            T200,
            "Nairobi",
            "n1",
            1,
            NOW,
            expiry,
            nairobiActive,
            Map.of(B1554, 2L, B1555, 30L, B1556, 20L)),
        NOW);
    GlobalLedger global = new GlobalLedger(T200);
    global.apply(dublin.aggregate(NOW));
    global.apply(nairobi.aggregate(NOW));
    return dublin.roomState(global.view(NOW), NOW);
  }

  @Test
  void workedExample1_aggregationQueuesEveryoneNewWhenActiveExceedsLimit() {
    RoomState state = aggregated(50, 151);

    assertThat(state.activeUsers()).isEqualTo(201);
    assertThat(state.buckets())
        .extracting(BucketState::bucketId, BucketState::waiting)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(B1554, 2L),
            org.assertj.core.groups.Tuple.tuple(B1555, 50L),
            org.assertj.core.groups.Tuple.tuple(B1556, 60L));
    assertThat(state.freeSlots()).isZero();

    RoomWorker worker = new RoomWorker(T200, "Dublin", "d1", NOW);
    worker.applyState(state);
    assertThat(worker.decide(null, NOW)).isInstanceOf(Decision.Queue.class);
  }

  @Test
  void workedExample2_eligibleSlotsGoToOldestBucketsFirst() {
    RoomState state = aggregated(50, 98);

    assertThat(state.activeUsers()).isEqualTo(148);
    assertThat(state.freeSlots()).isEqualTo(52);
    assertThat(state.buckets())
        .containsExactly(
            new BucketState(B1554, 2, 2),
            new BucketState(B1555, 50, 50),
            new BucketState(B1556, 60, 0));
  }

  @Test
  void workedExample3_estimatedWaitIsUsersAheadOverAdmissionRate() {
    RoomState state =
        Fixtures.state(
            NOW,
            List.of(
                new BucketState(B1554, 2, 2),
                new BucketState(B1555, 50, 50),
                new BucketState(B1556, 60, 0)),
            30,
            0);

    // the spec's formula, which the published rules keep (spec rules forecast the admissions:
    // WaitEstimatorTest)
    WaitEstimate wait = WaitEstimator.estimate(state, B1556, T200.withRules(Rules.published()));

    assertThat(wait.known()).isTrue();
    assertThat(wait.ahead()).isEqualTo(60);
    assertThat(wait.minutes()).isEqualTo(2.0);
  }

  @Test
  void workedExample3_admissionRateIsTheMeanOfTheLastThreeMinutes() {
    DataCenterLedger dc = new DataCenterLedger(T200, "Dublin");
    Tally t = new Tally();
    long m = Minutes.minuteOf(NOW);
    t.addAdmission(m - 1, 20);
    t.addAdmission(m - 2, 40);
    t.addAdmission(m - 3, 30);
    t.addAdmission(m - 4, 500);
    dc.apply(Fixtures.deltas("Dublin", "d1", 1, NOW, t), NOW);

    assertThat(dc.roomState(List.of(), NOW).admissionsPerMinute()).isEqualTo(30.0);
  }

  @Test
  void workedExample4_trafficSplitUsesHistoryTwoMinutesBack() {
    RoomConfig t100 = Fixtures.room(100, 100).build();
    DataCenterLedger nairobi = new DataCenterLedger(t100, "Nairobi");
    DataCenterLedger dublin = new DataCenterLedger(t100, "Dublin");
    Tally n = new Tally();
    n.addTraffic(minute("2021-05-27T16:31:00Z"), 50);
    n.addTraffic(minute("2021-05-27T16:32:00Z"), 45);
    Tally d = new Tally();
    d.addTraffic(minute("2021-05-27T16:31:00Z"), 50);
    d.addTraffic(minute("2021-05-27T16:32:00Z"), 55);
    Instant during1633 = at("2021-05-27T16:33:20Z");
    nairobi.apply(Fixtures.deltas("Nairobi", "n1", 1, during1633, n), during1633);
    dublin.apply(Fixtures.deltas("Dublin", "d1", 1, during1633, d), during1633);
    GlobalLedger global = new GlobalLedger(t100);
    global.apply(nairobi.aggregate(during1633));

    RoomState at1633 = dublin.roomState(global.view(during1633), during1633);
    Map<String, Long> history1633 = at1633.trafficOf(at1633.minute() - t100.historyLagMinutes());
    assertThat(SlotMath.split(40, history1633, 100, "Nairobi")).isEqualTo(new SlotSplit(20, 0));
    assertThat(SlotMath.split(40, history1633, 100, "Dublin")).isEqualTo(new SlotSplit(20, 0));

    Instant during1634 = at("2021-05-27T16:34:10Z");
    RoomState at1634 = dublin.roomState(global.view(during1634), during1634);
    Map<String, Long> history1634 = at1634.trafficOf(at1634.minute() - t100.historyLagMinutes());
    assertThat(SlotMath.split(40, history1634, 100, "Nairobi")).isEqualTo(new SlotSplit(18, 0));
    assertThat(SlotMath.split(40, history1634, 100, "Dublin")).isEqualTo(new SlotSplit(22, 0));
  }

  @Test
  void workedExample5_anywhereSlots() {
    RoomConfig config = Fixtures.room(200, 200).historyLagMinutes(1).build();
    Instant now = at("2023-09-11T11:45:54Z");
    long history = minute("2023-09-11T11:44:00Z");
    DataCenterLedger sanJose = new DataCenterLedger(config, "San Jose");
    DataCenterLedger london = new DataCenterLedger(config, "London");
    Tally sj = new Tally();
    sj.addTraffic(history, 20);
    sj.addActive(Minutes.minuteOf(now) + 5, 20);
    Tally lo = new Tally();
    lo.addTraffic(history, 30);
    lo.addActive(Minutes.minuteOf(now) + 5, 30);
    sanJose.apply(Fixtures.deltas("San Jose", "s1", 1, now, sj), now);
    london.apply(Fixtures.deltas("London", "l1", 1, now, lo), now);
    GlobalLedger global = new GlobalLedger(config);
    global.apply(london.aggregate(now));

    RoomState state = sanJose.roomState(global.view(now), now);

    assertThat(state.activeUsers()).isEqualTo(50);
    assertThat(state.freeSlots()).isEqualTo(150);
    Map<String, Long> h = state.trafficOf(history);
    assertThat(SlotMath.split(150, h, 200, "San Jose")).isEqualTo(new SlotSplit(15, 113));
    assertThat(SlotMath.split(150, h, 200, "London")).isEqualTo(new SlotSplit(22, 113));
    assertThat(SlotMath.split(150, h, 200, "Delhi")).isEqualTo(new SlotSplit(0, 113));
  }

  @Test
  void workedExample6_evenSplitGivesEachWorkerItsShareOfDataCenterAndAnywhereSlots() {
    SlotStrategy even = SlotStrategy.of(StrategyKind.EVEN_SPLIT, T200.curveFactor());

    assertThat(even.allowance(new SlotSplit(15, 113), 3, 10, 0.25))
        .isEqualTo(new SlotStrategy.Allowance.PerWorker(16));
    assertThat(even.allowance(new SlotSplit(0, 113), 2, 10, 0.25))
        .isEqualTo(new SlotStrategy.Allowance.PerWorker(11));
  }

  @Test
  void workedExample7_utilizationScaledDividesByAdaptedWorkers() {
    SlotStrategy scaled = SlotStrategy.of(StrategyKind.UTILIZATION_SCALED, T200.curveFactor());

    assertThat(scaled.allowance(new SlotSplit(0, 113), 1, 10, 50.0 / 200))
        .isEqualTo(new SlotStrategy.Allowance.PerWorker(45));
  }

  /**
   * DC slots 10, two workers, with {@code atFirst} and {@code atSecond} new users; returns the
   * admitted count.
   */
  private int admittedWithTwoWorkers(StrategyKind strategy, int atFirst, int atSecond) {
    RoomConfig config = Fixtures.room(10, 10).strategy(strategy).build();
    Instant now = at("2023-09-11T11:45:10Z");
    DataCenterLedger dc = new DataCenterLedger(config, "San Jose");
    Tally history = new Tally();
    history.addTraffic(Minutes.minuteOf(now) - 2, 10);
    dc.apply(Fixtures.deltas("San Jose", "w1", 1, now, history), now);
    dc.apply(Fixtures.deltas("San Jose", "w2", 1, now, new Tally()), now);
    RoomState state = dc.roomState(List.of(), now);
    RoomWorker first = new RoomWorker(config, "San Jose", "w1", now);
    RoomWorker second = new RoomWorker(config, "San Jose", "w2", now);
    first.applyState(state);
    second.applyState(state);
    MinuteCounter dcCounter = new MinuteCounter(config.rules());
    MinuteCounter anywhere = new MinuteCounter(config.rules());
    List<Decision> outcomes = new ArrayList<>();
    for (int i = 0; i < Math.max(atFirst, atSecond); i++) {
      if (i < atFirst) {
        outcomes.add(settle(first, first.decide(null, now), dcCounter, anywhere, now));
      }
      if (i < atSecond) {
        outcomes.add(settle(second, second.decide(null, now), dcCounter, anywhere, now));
      }
    }
    return (int) outcomes.stream().filter(d -> d instanceof Decision.Admit).count();
  }

  static Decision settle(
      RoomWorker w, Decision d, MinuteCounter dc, MinuteCounter anywhere, Instant now) {
    while (d instanceof Decision.Draw draw) {
      MinuteCounter c = draw.counter().isAnywhere() ? anywhere : dc;
      d = w.onCounterReply(draw, c.take(draw, now), now);
    }
    return d;
  }

  @Test
  void workedExample8_evenSplitQueuesTwoOfEightWhenUsersAreUneven() {
    assertThat(admittedWithTwoWorkers(StrategyKind.EVEN_SPLIT, 7, 1)).isEqualTo(6);
  }

  @Test
  void workedExample8_countersAdmitAllEight() {
    assertThat(admittedWithTwoWorkers(StrategyKind.COUNTERS, 7, 1)).isEqualTo(8);
  }

  @Test
  void workedExample8_countersAdmitExactlyTenOfFifteen() {
    assertThat(admittedWithTwoWorkers(StrategyKind.COUNTERS, 8, 7)).isEqualTo(10);
  }
}
