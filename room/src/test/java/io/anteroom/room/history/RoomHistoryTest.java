package io.anteroom.room.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class RoomHistoryTest {
  static final long NOW = RoomHistory.minuteOf(Instant.parse("2026-11-22T10:00:30Z"));

  static MinuteActivity admitted(long n, long waitSeconds) {
    WaitHistogram h = WaitHistogram.EMPTY;
    for (int i = 0; i < n; i++) {
      h = h.with(Duration.ofSeconds(waitSeconds));
    }
    return new MinuteActivity(0, n, 0, 0, 0, h);
  }

  static TreeMap<Long, MinuteActivity> at(long minute, MinuteActivity a) {
    TreeMap<Long, MinuteActivity> m = new TreeMap<>();
    m.put(minute, a);
    return m;
  }

  @Test
  void countsAreSummedOverDataCentersAndWaitPercentilesMerged() {
    RoomHistory h = new RoomHistory(List.of());
    h.applyActivity("dublin", at(NOW, admitted(19, 0)), NOW);
    h.applyActivity("nairobi", at(NOW, admitted(1, 1000)), NOW);
    HistoryPoint p = RoomHistory.series(h.live()).getFirst();
    assertThat(p.admissions()).isEqualTo(20);
    assertThat(p.admittedMeasured()).isEqualTo(20);
    assertThat(p.realWaitP50Seconds()).isZero();
    assertThat(p.realWaitP95Seconds()).isZero();
    assertThat(p.dataCenters()).containsExactly("dublin", "nairobi");
    h.applyActivity("nairobi", at(NOW, admitted(2, 1000)), NOW);
    assertThat(RoomHistory.series(h.live()).getFirst().realWaitP95Seconds())
        .as("2 of 21 waited long: the 95th percentile is theirs")
        .isEqualTo(1200);
  }

  @Test
  void aDataCentersNewerTotalsReplaceItsOlderOnesSoRepeatsCountOnce() {
    RoomHistory h = new RoomHistory(List.of());
    h.applyActivity("dublin", at(NOW, admitted(3, 0)), NOW);
    h.applyActivity("dublin", at(NOW, admitted(3, 0)), NOW);
    assertThat(h.takeChanged()).hasSize(1);
    h.applyActivity("dublin", at(NOW, admitted(3, 0)), NOW);
    assertThat(h.hasChanges()).as("the same totals again change nothing").isFalse();
    h.applyActivity("dublin", at(NOW, admitted(5, 0)), NOW);
    assertThat(RoomHistory.series(h.live()).getFirst().admissions()).isEqualTo(5);
  }

  @Test
  void gaugesKeepTheLatestSampleOfTheMinuteAndEstimatesTheirMean() {
    RoomHistory h = new RoomHistory(List.of());
    h.recordGauges(NOW, new HistoryRow.Gauges(3, 9, 10, 5), NOW);
    h.recordGauges(NOW, new HistoryRow.Gauges(4, 8, 10, 5), NOW);
    h.recordAbandoned(NOW - 1, 2, NOW);
    h.applyActivity("dublin", at(NOW, new MinuteActivity(6, 0, 1, 3, 7.5, null)), NOW);
    List<HistoryPoint> s = RoomHistory.series(h.live());
    assertThat(s).hasSize(2);
    assertThat(s.get(0).abandoned()).isEqualTo(2);
    assertThat(s.get(0).activeUsers()).as("no gauge sampled in that minute").isNull();
    HistoryPoint p = s.get(1);
    assertThat(p.activeUsers()).isEqualTo(4);
    assertThat(p.waitingUsers()).isEqualTo(8);
    assertThat(p.totalActiveUsers()).isEqualTo(10);
    assertThat(p.arrivals()).isEqualTo(6);
    assertThat(p.revoked()).isEqualTo(1);
    assertThat(p.estimatedWaitMinutes()).isEqualTo(2.5);
    assertThat(p.realWaitP50Seconds()).isNull();
  }

  @Test
  void noAbandonmentInAMinuteWithoutReportsMakesNoRow() {
    RoomHistory h = new RoomHistory(List.of());
    h.recordAbandoned(NOW - 1, 0, NOW);
    assertThat(h.live()).isEmpty();
    h.recordAbandoned(NOW - 1, 1, NOW);
    assertThat(h.live()).hasSize(1);
  }

  @Test
  void minutesOutsideTheLiveWindowAreIgnored() {
    RoomHistory h = new RoomHistory(List.of());
    h.applyActivity("dublin", at(NOW - RoomHistory.LIVE_MINUTES, admitted(1, 0)), NOW);
    h.applyActivity("dublin", at(NOW + 2, admitted(1, 0)), NOW);
    h.recordGauges(NOW - 100, new HistoryRow.Gauges(1, 1, 1, 1), NOW);
    assertThat(h.live()).isEmpty();
    h.applyActivity("dublin", at(NOW - RoomHistory.LIVE_MINUTES + 1, admitted(1, 0)), NOW);
    assertThat(h.live()).hasSize(1);
  }

  @Test
  void evictionKeepsRowsNotYetHandedOutAndDropsStoredOnes() {
    RoomHistory h = new RoomHistory(List.of());
    h.applyActivity("dublin", at(NOW, admitted(1, 0)), NOW);
    long later = NOW + RoomHistory.LIVE_MINUTES;
    h.evict(later);
    assertThat(h.live()).as("not stored yet").hasSize(1);
    assertThat(h.takeChanged()).hasSize(1);
    h.evict(later);
    assertThat(h.live()).isEmpty();
  }

  @Test
  void storedRowsAreOverlaidByLiveOnesWithinTheAskedRange() {
    HistoryRow old = HistoryRow.empty(NOW - 2).withDataCenter("dublin", admitted(1, 0));
    HistoryRow staleNow = HistoryRow.empty(NOW).withDataCenter("dublin", admitted(1, 0));
    HistoryRow liveNow = HistoryRow.empty(NOW).withDataCenter("dublin", admitted(4, 0));
    List<HistoryRow> rows =
        RoomHistory.merge(List.of(old, staleNow), List.of(liveNow), NOW - 2, NOW + 1);
    assertThat(rows).containsExactly(old, liveNow);
    assertThat(RoomHistory.merge(List.of(old), List.of(liveNow), NOW - 1, NOW)).isEmpty();
    assertThat(RoomHistory.merge(List.of(old), List.of(), NOW, NOW - 5)).isEmpty();
  }

  @Test
  void sevenDaysOfMinutesAreKept() {
    assertThat(NOW - RoomHistory.firstKept(NOW) + 1).isEqualTo(7 * 24 * 60);
  }
}
