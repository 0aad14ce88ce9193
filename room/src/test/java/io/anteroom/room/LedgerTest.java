package io.anteroom.room;

import static io.anteroom.room.Fixtures.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class LedgerTest {
  static final RoomConfig CONFIG = Fixtures.room(100, 100).build();
  static final Instant NOW = at("2026-01-01T10:00:10Z");
  static final long M = Minutes.minuteOf(NOW);

  static WorkerReport admissions(String worker, long seq, long n) {
    return admissions("dc", worker, seq, n);
  }

  static WorkerReport admissions(String dc, String worker, long seq, long n) {
    Tally t = new Tally();
    t.addAdmission(M, n);
    t.addActive(M + 10, n);
    return Fixtures.deltas(dc, worker, seq, NOW, t);
  }

  @Test
  void aRetriedReportIsCountedOnce() {
    DataCenterLedger dc = new DataCenterLedger(CONFIG, "dc");
    WorkerReport r = admissions("w1", 1, 5);

    assertThat(dc.apply(r, NOW)).isTrue();
    assertThat(dc.apply(r, NOW.plusSeconds(1))).isFalse();

    assertThat(dc.roomState(List.of(), NOW).newUsersThisMinute()).isEqualTo(5);
  }

  @Test
  void reportsArrivingOutOfOrderAreEachCountedOnce() {
    DataCenterLedger dc = new DataCenterLedger(CONFIG, "dc");

    assertThat(dc.apply(admissions("w1", 3, 1), NOW)).isTrue();
    assertThat(dc.apply(admissions("w1", 1, 1), NOW)).isTrue();
    assertThat(dc.apply(admissions("w1", 3, 1), NOW)).isFalse();
    assertThat(dc.apply(admissions("w1", 2, 1), NOW)).isTrue();
    assertThat(dc.apply(admissions("w1", 1, 1), NOW)).isFalse();

    assertThat(dc.roomState(List.of(), NOW).newUsersThisMinute()).isEqualTo(3);
  }

  @Test
  void newLimitsApplyToTheNextStateAndKeepTheCounts() {
    DataCenterLedger dc = new DataCenterLedger(CONFIG, "dc");
    dc.apply(admissions("w1", 1, 30), NOW);
    assertThat(dc.roomState(List.of(), NOW).freeSlots()).isEqualTo(70);

    dc.configure(Fixtures.room(200, 200).build());

    assertThat(dc.roomState(List.of(), NOW).freeSlots()).isEqualTo(170);
    assertThatThrownBy(
            () ->
                dc.configure(
                    RoomConfig.builder("blog")
                        .totalActiveUsers(1)
                        .newUsersPerMinute(1)
                        .sessionDurationMinutes(1)
                        .build()))
        .hasMessage("data center ledger of room 'shop' cannot take the config of room 'blog'");
  }

  @Test
  void aReportForAnotherDataCenterIsRejected() {
    DataCenterLedger dc = new DataCenterLedger(CONFIG, "dc");

    assertThatThrownBy(() -> dc.apply(Fixtures.deltas("paris", "w1", 1, NOW, new Tally()), NOW))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("report w1#1 is for data center 'paris' but was sent to 'dc'");
  }

  @Test
  void aWorkerIsActiveWhileItReportedWithinThirtySeconds() {
    DataCenterLedger dc = new DataCenterLedger(CONFIG, "dc");
    dc.apply(Fixtures.deltas("dc", "idle", 1, NOW, new Tally()), NOW);
    dc.apply(Fixtures.deltas("dc", "busy", 1, NOW, new Tally()), NOW.plusSeconds(20));

    assertThat(dc.workersActive(NOW.plusSeconds(29))).isEqualTo(2);
    assertThat(dc.workersActive(NOW.plusSeconds(30))).isEqualTo(1);
    assertThat(dc.roomState(List.of(), NOW.plusSeconds(30)).dataCenterWorkersActive()).isEqualTo(1);
  }

  @Test
  void aWorkerSilentForTenMinutesIsForgotten() {
    DataCenterLedger dc = new DataCenterLedger(CONFIG, "dc");
    dc.apply(admissions("quiet", 1, 1), NOW);
    dc.apply(admissions("busy", 1, 1), NOW.plusSeconds(300));

    dc.aggregate(NOW.plusSeconds(600));
    assertThat(dc.rememberedWorkers()).containsExactlyInAnyOrder("quiet", "busy");
    dc.aggregate(NOW.plusSeconds(601));
    assertThat(dc.rememberedWorkers()).containsExactly("busy");
  }

  @Test
  void theGlobalViewAddsOtherDataCentersAndItsOwnFreshTotals() {
    DataCenterLedger a = new DataCenterLedger(CONFIG, "a");
    DataCenterLedger b = new DataCenterLedger(CONFIG, "b");
    GlobalLedger global = new GlobalLedger(CONFIG);
    b.apply(admissions("b", "wb", 1, 7), NOW);
    a.apply(admissions("a", "wa", 1, 3), NOW);
    global.apply(a.aggregate(NOW));
    global.apply(b.aggregate(NOW));
    a.apply(admissions("a", "wa", 2, 1), NOW.plusSeconds(1));

    RoomState s = a.roomState(global.view(NOW.plusSeconds(1)), NOW.plusSeconds(1));

    assertThat(s.newUsersThisMinute()).isEqualTo(11);
    assertThat(s.activeUsers()).isEqualTo(11);
    assertThat(s.globalWorkersActive()).isEqualTo(2);
    assertThat(s.dataCenterWorkersActive()).isEqualTo(1);
  }

  @Test
  void theGlobalLedgerKeepsOnlyTheNewestAggregateOfEachDataCenter() {
    GlobalLedger global = new GlobalLedger(CONFIG);
    DataCenterLedger a = new DataCenterLedger(CONFIG, "a");
    DataCenterAggregate first = a.aggregate(NOW);
    a.apply(admissions("a", "wa", 1, 3), NOW);
    DataCenterAggregate second = a.aggregate(NOW);

    assertThat(global.apply(second)).isTrue();
    assertThat(global.apply(first)).isFalse();
    assertThat(global.apply(second)).isFalse();
    assertThat(global.view(NOW)).containsExactly(second);
  }

  @Test
  void aDataCenterSilentLongerThanASessionAndTheQueueTimeoutIsForgotten() {
    GlobalLedger global = new GlobalLedger(CONFIG);
    global.apply(new DataCenterLedger(CONFIG, "gone").aggregate(NOW));

    assertThat(global.view(NOW.plusSeconds(15 * 60))).hasSize(1);
    assertThat(global.view(NOW.plusSeconds(15 * 60 + 1))).isEmpty();
  }

  @Test
  void aRestoredDataCenterLedgerHasTheSameTotalsAndStillRefusesAppliedReports() {
    DataCenterLedger dc = new DataCenterLedger(CONFIG, "dc");
    dc.apply(admissions("w1", 1, 4), NOW);
    dc.apply(admissions("w1", 3, 2), NOW);

    DataCenterLedger restored = DataCenterLedger.restore(CONFIG, dc.backup());

    assertThat(restored.aggregate(NOW).totals()).isEqualTo(dc.aggregate(NOW).totals());
    assertThat(restored.apply(admissions("w1", 3, 2), NOW)).isFalse();
    assertThat(restored.apply(admissions("w1", 2, 1), NOW)).isTrue();
    assertThat(restored.aggregate(NOW).version()).isGreaterThan(dc.backup().version());
  }

  @Test
  void pruningDropsOnlyWhatCanNoLongerCount() {
    DataCenterLedger dc = new DataCenterLedger(CONFIG, "dc");
    Tally t = new Tally();
    t.addActive(M - 1, 5);
    t.addActive(M, 6);
    t.addAdmission(M - 3, 1);
    t.addAdmission(M - 9, 1);
    t.addTraffic(M - 2, 4);
    t.addTraffic(M - 9, 4);
    dc.apply(Fixtures.deltas("dc", "w", 1, NOW, t), NOW);

    Deltas totals = dc.aggregate(NOW).totals();

    assertThat(totals.activeByExpiryMinute()).containsOnlyKeys(M);
    assertThat(totals.admissionsByMinute()).containsOnlyKeys(M - 3);
    assertThat(totals.trafficByMinute()).containsOnlyKeys(M - 2);
  }

  @Test
  void stateReportsAndBackupsSurviveAJsonRoundTrip() throws Exception {
    ObjectMapper json =
        new ObjectMapper()
            .registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
    DataCenterLedger dc = new DataCenterLedger(CONFIG, "dc");
    Tally t = new Tally();
    t.addWaiting(M - 2, Counting.refreshSlotKey(NOW, CONFIG), 4);
    t.addActive(M + 3, 2);
    t.addTraffic(M - 2, 9);
    WorkerReport report = Fixtures.deltas("dc", "w", 1, NOW, t);
    dc.apply(report, NOW);
    RoomState state = dc.roomState(List.of(), NOW);

    assertThat(json.readValue(json.writeValueAsString(report), WorkerReport.class))
        .isEqualTo(report);
    assertThat(json.readValue(json.writeValueAsString(state), RoomState.class)).isEqualTo(state);
    DataCenterAggregate agg = dc.aggregate(NOW);
    assertThat(json.readValue(json.writeValueAsString(agg), DataCenterAggregate.class))
        .isEqualTo(agg);
    DataCenterLedger.Backup backup = dc.backup();
    assertThat(json.readValue(json.writeValueAsString(backup), DataCenterLedger.Backup.class))
        .isEqualTo(backup);
    assertThat(state.buckets()).isNotEmpty();
    assertThat(state.trafficHistory()).containsKey(M - 2);
  }
}
