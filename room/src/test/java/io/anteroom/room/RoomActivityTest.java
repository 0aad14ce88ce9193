package io.anteroom.room;

import static io.anteroom.room.RoomWorkerTest.EVEN;
import static io.anteroom.room.RoomWorkerTest.M;
import static io.anteroom.room.RoomWorkerTest.NOW;
import static io.anteroom.room.RoomWorkerTest.state;
import static io.anteroom.room.RoomWorkerTest.waiting;
import static io.anteroom.room.RoomWorkerTest.worker;
import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.room.history.MinuteActivity;
import io.anteroom.room.history.RoomHistory;
import io.anteroom.room.history.WaitHistogram;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** What workers record for the room's history, and how a data center sums it. */
class RoomActivityTest {

  @Test
  void aNewQueuedUserIsAnArrivalOnceAndItsRefreshesAreNot() {
    RoomWorker w = worker(EVEN, state(List.of(new BucketState(M - 3, 10, 0)), 0));
    Decision first = w.decide(null, NOW);
    assertThat(first).isInstanceOf(Decision.Queue.class);
    w.decide(first.ticket(), NOW.plusSeconds(20));
    MinuteActivity a = w.report(NOW.plusSeconds(21)).activity().get(M);
    assertThat(a.arrivals()).isEqualTo(1);
    assertThat(a.admissions()).isZero();
    assertThat(w.report(NOW.plusSeconds(22)).activity())
        .as("a report hands its activity out once")
        .isEmpty();
  }

  @Test
  void anAdmittedWaitingUsersRealWaitRunsFromItsArrivalMinute() {
    RoomWorker w = worker(EVEN, state(List.of(new BucketState(M - 3, 1, 1)), 30));
    Decision d = w.decide(waiting(M - 3, NOW.minusSeconds(5), 0), NOW);
    assertThat(d).isInstanceOf(Decision.Admit.class);
    Decision atOnce = w.decide(null, NOW);
    assertThat(atOnce).isInstanceOf(Decision.Admit.class);
    MinuteActivity a = w.report(NOW).activity().get(M);
    assertThat(a.admissions()).isEqualTo(2);
    assertThat(a.realWaits())
        .isEqualTo(
            WaitHistogram.EMPTY
                .with(Duration.ofSeconds(190)) // 10:00:10 - 09:57:00
                .with(Duration.ZERO));
  }

  @Test
  void anEndedSessionIsCountedAsRevoked() {
    RoomWorker w = worker(EVEN, state(List.of(), 30));
    Ticket admitted = new Ticket("shop", 77, M - 4, NOW.minusSeconds(90), NOW.minusSeconds(200), 0);
    assertThat(w.endSession(admitted, NOW)).isTrue();
    assertThat(w.endSession(admitted, NOW)).isFalse();
    assertThat(w.report(NOW).activity().get(M).revoked()).isEqualTo(1);
  }

  private static WorkerReport report(String worker, long seq, long minute, long admissions) {
    TreeMap<Long, MinuteActivity> a = new TreeMap<>();
    a.put(minute, new MinuteActivity(0, admissions, 0, 0, 0, null));
    return new WorkerReport(worker, seq, "dublin", NOW, Deltas.EMPTY, a);
  }

  @Test
  void aDataCenterSumsItsWorkersActivityOncePerReportAndKeepsItsLastMinutes() {
    DataCenterLedger dc = new DataCenterLedger(EVEN, "dublin");
    dc.apply(report("w1", 1, M, 2), NOW);
    dc.apply(report("w1", 1, M, 2), NOW); // a retry
    dc.apply(report("w2", 1, M, 3), NOW);
    dc.apply(report("w2", 2, M - RoomHistory.ACTIVITY_WINDOW_MINUTES, 9), NOW);
    DataCenterAggregate a = dc.aggregate(NOW);
    assertThat(a.activity()).containsOnlyKeys(M);
    assertThat(a.activity().get(M).admissions()).isEqualTo(5);

    DataCenterLedger restored = DataCenterLedger.restore(EVEN, dc.backup());
    assertThat(restored.aggregate(NOW).activity()).isEqualTo(a.activity());
    assertThat(
            DataCenterLedger.restore(
                    EVEN, new DataCenterLedger.Backup("dublin", 1, Deltas.EMPTY, Map.of()))
                .aggregate(NOW)
                .activity())
        .as("a backup from before the history")
        .isEmpty();
  }

  @Test
  void theGlobalGaugesCountActiveWaitingAndAbandonedUsersOfTheView() {
    RoomConfig config = EVEN;
    long key = Counting.refreshSlotKey(NOW.minusSeconds(120), config);
    TreeMap<Long, Long> keys = new TreeMap<>(Map.of(key, 2L));
    TreeMap<Long, java.util.SortedMap<Long, Long>> waitingByBucket = new TreeMap<>();
    waitingByBucket.put(M - 2, keys);
    Deltas d =
        new Deltas(
            new TreeMap<>(Map.of(M + 5, 3L)), waitingByBucket, new TreeMap<>(), new TreeMap<>());
    var view = List.of(new DataCenterAggregate("dublin", NOW, 1, 1, d));
    long expiredIn = Counting.expiryMinuteOf(key, config);
    RoomGauges g = RoomGauges.of(config, view, Minutes.startOf(expiredIn + 1).plusSeconds(1));
    assertThat(g.activeUsers()).isEqualTo(3);
    assertThat(g.waitingUsers()).as("their place stopped counting").isZero();
    assertThat(g.abandonedLastMinute()).isEqualTo(2);
    RoomGauges before = RoomGauges.of(config, view, NOW.minusSeconds(100));
    assertThat(before.waitingUsers()).isEqualTo(2);
  }
}
