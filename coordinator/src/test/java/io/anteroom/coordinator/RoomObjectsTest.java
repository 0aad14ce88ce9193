package io.anteroom.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.anteroom.backpressure.ThresholdMonitor;
import io.anteroom.backpressure.ThroughputSignal;
import io.anteroom.objects.ManualScheduler;
import io.anteroom.objects.Runtime;
import io.anteroom.objects.storage.InMemoryStorageEngine;
import io.anteroom.room.CounterKey;
import io.anteroom.room.DataCenterAggregate;
import io.anteroom.room.DataCenterLedger;
import io.anteroom.room.Decision;
import io.anteroom.room.Deltas;
import io.anteroom.room.Grant;
import io.anteroom.room.RoomConfig;
import io.anteroom.room.RoomState;
import io.anteroom.room.RoomWorker;
import io.anteroom.room.Rules;
import io.anteroom.room.WorkerReport;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The coordinating objects on the in-memory (and, for restarts, SQLite) runtime, in virtual time.
 */
class RoomObjectsTest {
  static final Instant START = Instant.parse("2026-01-01T10:00:00Z");
  static final RoomConfig CONFIG =
      RoomConfig.builder("shop")
          .totalActiveUsers(100)
          .newUsersPerMinute(100)
          .sessionDurationMinutes(10)
          .build();
  static final long START_MINUTE = Math.floorDiv(START.toEpochMilli(), 60_000);

  /**
   * A worker's report of {@code n} admissions in the minute of {@code sentAt}, their sessions
   * ending 10 minutes later.
   */
  static WorkerReport admissions(String dc, String worker, long seq, long n, Instant sentAt) {
    long m = Math.floorDiv(sentAt.toEpochMilli(), 60_000);
    Deltas d =
        new Deltas(
            new TreeMap<>(Map.of(m + 10, n)),
            new TreeMap<>(),
            new TreeMap<>(Map.of(m, n)),
            new TreeMap<>());
    return new WorkerReport(worker, seq, dc, sentAt, d);
  }

  static Decision settle(RoomObjects objects, RoomWorker worker, Decision d, Instant now) {
    while (d instanceof Decision.Draw draw) {
      Grant g =
          objects
              .counter(draw.counter())
              .takeCarrying(CONFIG.rules(), draw.counter(), draw.limit(), draw.carriedSince());
      d = worker.onCounterReply(draw, g, now);
    }
    return d;
  }

  /**
   * A report whose worker id is too long for its log key is refused before it is applied: counting
   * it in memory only would lose it with the object while the worker, answered, forgot it.
   */
  /**
   * A coordinator peer's warm-up (at its start, on a runtime of its own) draws from a counter of
   * the room {@code warm-up} through the runtime's transport: the code of a draw runs once.
   */
  @Test
  void theWarmUpDrawsFromTheWarmUpRoomsCounterOnTheRuntimeItIsGiven() {
    ManualScheduler time = new ManualScheduler(START);
    try (Runtime runtime =
        Runtime.builder().storage(new InMemoryStorageEngine()).scheduler(time).build()) {
      RoomObjects objects = RoomObjects.register(runtime);

      RoomObjects.warmUp(runtime);

      long minute = Math.floorDiv(runtime.clock().millis(), 60_000);
      CounterKey key = CounterKey.dataCenter("warm-up", "warm-up", minute);
      Grant next = objects.counter(key).takeCarrying(Rules.published(), key, Long.MAX_VALUE, null);
      assertThat(next.number()).as("three numbers drawn by the warm-up").isEqualTo(3);
    }
  }

  @Test
  void aReportThatCannotBeLoggedIsRefusedWholeAndCountsNothing() {
    ManualScheduler time = new ManualScheduler(START);
    try (Runtime runtime =
        Runtime.builder().storage(new InMemoryStorageEngine()).scheduler(time).build()) {
      RoomObjects objects = RoomObjects.register(runtime);
      DataCenterCoordinator dc = objects.dataCenter("shop", "dublin");
      String absurd = "w".repeat(3000);
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> dc.report(CONFIG, admissions("dublin", absurd, 1, 7, START)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("worker id of 3000 characters is too long")
          .hasMessageContaining("not applied");
      RoomState state = dc.report(CONFIG, admissions("dublin", "w1", 1, 2, START)).state();
      assertThat(state.activeUsers()).as("only the report that was logged counts").isEqualTo(2);
    }
  }

  @Test
  void reportsFlowFromWorkersThroughDataCentersToTheGlobalObjectAndBackAsState() {
    ManualScheduler time = new ManualScheduler(START);
    try (Runtime runtime =
        Runtime.builder().storage(new InMemoryStorageEngine()).virtualTime(time).build()) {
      RoomObjects objects = RoomObjects.register(runtime);
      RoomWorker dublin = new RoomWorker(CONFIG, "dublin", "wd", START);
      RoomWorker nairobi = new RoomWorker(CONFIG, "nairobi", "wn", START);
      for (int i = 0; i < 3; i++) {
        assertThat(settle(objects, dublin, dublin.decide(null, START), START))
            .isInstanceOf(Decision.Admit.class);
      }

      DataCenterCoordinator.StateReply own =
          objects.dataCenter("shop", "dublin").report(CONFIG, dublin.report(START));
      assertThat(own.state().activeUsers()).isEqualTo(3);
      assertThat(own.throttle()).isFalse();
      DataCenterCoordinator.StateReply before =
          objects.dataCenter("shop", "nairobi").report(CONFIG, nairobi.report(START));
      assertThat(before.state().activeUsers()).isZero();

      // alarms every 5 s: data centers report to the global object and hear back from it
      var heard = new java.util.concurrent.atomic.AtomicReference<RoomState>();
      time.advanceUntil(
          Duration.ofSeconds(1),
          60,
          () -> {
            RoomState s =
                objects
                    .dataCenter("shop", "nairobi")
                    .report(CONFIG, nairobi.report(time.clock().instant()))
                    .state();
            heard.set(s);
            return s.activeUsers() == 3 && s.globalWorkersActive() == 2;
          });
      RoomState s = heard.get();
      assertThat(s.activeUsers()).isEqualTo(3);
      assertThat(s.newUsersThisMinute()).isEqualTo(3);
      assertThat(s.globalWorkersActive()).isEqualTo(2);
      assertThat(s.dataCenterWorkersActive()).isEqualTo(1);
    }
  }

  @Test
  void aRetriedReportIsCountedOnceByTheDataCenterObject() {
    try (Runtime runtime =
        Runtime.builder()
            .storage(new InMemoryStorageEngine())
            .scheduler(new ManualScheduler(START))
            .build()) {
      RoomObjects objects = RoomObjects.register(runtime);
      RoomWorker w = new RoomWorker(CONFIG, "dublin", "w", START);
      settle(objects, w, w.decide(null, START), START);
      WorkerReport report = w.report(START);

      objects.dataCenter("shop", "dublin").report(CONFIG, report);
      RoomState again =
          objects.dataCenter("shop", "dublin").reportAsync(CONFIG, report).join().state();

      assertThat(again.activeUsers()).isEqualTo(1);
    }
  }

  @Test
  void aRestartedCoordinatorRebuildsFromItsBackup(@TempDir Path dir) {
    RoomWorker w = new RoomWorker(CONFIG, "dublin", "w", START);
    WorkerReport first;
    ManualScheduler time = new ManualScheduler(START);
    try (Runtime runtime = Runtime.builder().dataDir(dir).scheduler(time).build()) {
      RoomObjects objects = RoomObjects.register(runtime);
      for (int i = 0; i < 4; i++) {
        settle(objects, w, w.decide(null, START), START);
      }
      first = w.report(START);
      objects.dataCenter("shop", "dublin").report(CONFIG, first);
      int sweepOnly =
          1; // the runtime's idle sweep; the data center's alarm is scheduled once its write is
      // durable
      await().atMost(Duration.ofSeconds(20)).until(() -> time.pending() > sweepOnly);
      time.advance(Duration.ofSeconds(6)); // the alarm backs the memory up and sets the next alarm
      await().atMost(Duration.ofSeconds(20)).until(() -> time.pending() > sweepOnly);
    }

    Instant after = START.plusSeconds(20);
    try (Runtime restarted =
        Runtime.builder().dataDir(dir).scheduler(new ManualScheduler(after)).build()) {
      RoomObjects objects = RoomObjects.register(restarted);
      DataCenterCoordinator dublin = objects.dataCenter("shop", "dublin");

      RoomState rebuilt = dublin.report(CONFIG, w.report(after)).state(); // a heartbeat: no deltas
      assertThat(rebuilt.activeUsers()).isEqualTo(4);
      assertThat(rebuilt.newUsersThisMinute()).isEqualTo(4);
      assertThat(dublin.report(CONFIG, first).state().activeUsers()).isEqualTo(4); // a late retry
      Grant next =
          objects
              .counter(CounterKey.anywhere("shop", START_MINUTE))
              .take(CONFIG.rules(), CounterKey.anywhere("shop", START_MINUTE), 100);
      assertThat(next.number()).isEqualTo(4);
    }
  }

  @Test
  void aReportAnsweredBeforeTheCoordinatorStoppedIsKeptWithOrWithoutABackupSinceAndCountedOnce(
      @TempDir Path dir) {
    RoomWorker w = new RoomWorker(CONFIG, "dublin", "w", START);
    WorkerReport beforeBackup;
    WorkerReport afterBackup;
    ManualScheduler time = new ManualScheduler(START);
    try (Runtime runtime = Runtime.builder().dataDir(dir).scheduler(time).build()) {
      RoomObjects objects = RoomObjects.register(runtime);
      for (int i = 0; i < 4; i++) {
        settle(objects, w, w.decide(null, START), START);
      }
      beforeBackup = w.report(START);
      objects.dataCenter("shop", "dublin").report(CONFIG, beforeBackup);
      int sweepOnly = 1;
      await().atMost(Duration.ofSeconds(20)).until(() -> time.pending() > sweepOnly);
      time.advance(Duration.ofSeconds(6)); // the alarm backs the memory up and sets the next alarm
      await().atMost(Duration.ofSeconds(20)).until(() -> time.pending() > sweepOnly);
      Instant later = time.clock().instant();
      for (int i = 0; i < 2; i++) {
        settle(objects, w, w.decide(null, later), later);
      }
      afterBackup = w.report(later);
      // answered, so the worker has forgotten these two admissions; no alarm runs after it
      assertThat(objects.dataCenter("shop", "dublin").report(CONFIG, afterBackup).state())
          .extracting(RoomState::activeUsers)
          .isEqualTo(6L);
    }

    Instant after = START.plusSeconds(20);
    try (Runtime restarted =
        Runtime.builder().dataDir(dir).scheduler(new ManualScheduler(after)).build()) {
      RoomObjects objects = RoomObjects.register(restarted);
      DataCenterCoordinator dublin = objects.dataCenter("shop", "dublin");

      assertThat(dublin.report(CONFIG, w.report(after)).state().activeUsers())
          .as("the backup's four and the two answered after it")
          .isEqualTo(6);
      assertThat(dublin.report(CONFIG, beforeBackup).state().activeUsers()).isEqualTo(6);
      assertThat(dublin.report(CONFIG, afterBackup).state().activeUsers()).isEqualTo(6);
    }
  }

  @Test
  void aReportAnsweredBeforeTheFirstBackupIsKeptByTheRestartedDataCenterObject(@TempDir Path dir) {
    RoomWorker w = new RoomWorker(CONFIG, "dublin", "w", START);
    try (Runtime runtime =
        Runtime.builder().dataDir(dir).scheduler(new ManualScheduler(START)).build()) {
      RoomObjects objects = RoomObjects.register(runtime);
      for (int i = 0; i < 3; i++) {
        settle(objects, w, w.decide(null, START), START);
      }
      objects.dataCenter("shop", "dublin").report(CONFIG, w.report(START)); // no alarm ran yet
    }
    Instant after = START.plusSeconds(2);
    try (Runtime restarted =
        Runtime.builder().dataDir(dir).scheduler(new ManualScheduler(after)).build()) {
      RoomState rebuilt =
          RoomObjects.register(restarted)
              .dataCenter("shop", "dublin")
              .report(CONFIG, w.report(after))
              .state();
      assertThat(rebuilt.activeUsers()).isEqualTo(3);
      assertThat(rebuilt.newUsersThisMinute()).isEqualTo(3);
    }
  }

  @Test
  void aRestartedGlobalObjectRebuildsItsViewOfAllDataCenters(@TempDir Path dir) {
    Instant now = START.plusSeconds(1);
    DataCenterLedger dublin = new DataCenterLedger(CONFIG, "dublin");
    dublin.apply(admissions("dublin", "wd", 1, 5, START.plusSeconds(10)), now);
    ManualScheduler time = new ManualScheduler(START);
    try (Runtime runtime = Runtime.builder().dataDir(dir).scheduler(time).build()) {
      RoomObjects objects = RoomObjects.register(runtime);
      objects.global("shop").report(CONFIG, dublin.aggregate(now));
      int sweepOnly = 1;
      await().atMost(Duration.ofSeconds(20)).until(() -> time.pending() > sweepOnly);
      time.advance(Duration.ofSeconds(6)); // the alarm backs the view up
      await().atMost(Duration.ofSeconds(20)).until(() -> time.pending() > sweepOnly);
    }

    Instant later = START.plusSeconds(20);
    try (Runtime restarted =
        Runtime.builder().dataDir(dir).scheduler(new ManualScheduler(later)).build()) {
      RoomObjects objects = RoomObjects.register(restarted);
      DataCenterAggregate nairobi = new DataCenterLedger(CONFIG, "nairobi").aggregate(later);

      GlobalCoordinator.GlobalReply reply = objects.global("shop").report(CONFIG, nairobi);

      assertThat(reply.dataCenters())
          .extracting(DataCenterAggregate::dataCenter)
          .containsExactly("dublin", "nairobi");
      assertThat(reply.dataCenters().get(0).totals().admissionsByMinute()).containsValue(5L);
    }
  }

  @Test
  void countersGrantOnlyBelowTheLimitAndDataCentersCountApart() {
    try (Runtime runtime =
        Runtime.builder()
            .storage(new InMemoryStorageEngine())
            .scheduler(new ManualScheduler(START))
            .build()) {
      RoomObjects objects = RoomObjects.register(runtime);
      CounterKey dublin = CounterKey.dataCenter("shop", "dublin", 7);
      CounterKey nairobi = CounterKey.dataCenter("shop", "nairobi", 7);

      assertThat(objects.counter(dublin).take(Rules.spec(), dublin, 2).granted()).isTrue();
      assertThat(objects.counter(dublin).take(Rules.spec(), dublin, 2).granted()).isTrue();
      assertThat(objects.counter(dublin).take(Rules.spec(), dublin, 2).granted()).isFalse();
      assertThat(objects.counter(dublin).takeAsync(Rules.spec(), dublin, 3).join())
          .isEqualTo(new Grant(7, 2, true));
      assertThat(objects.counter(nairobi).take(Rules.spec(), nairobi, 2))
          .isEqualTo(new Grant(7, 0, true));
    }
  }

  @Test
  void aCounterCarriesItsLateNumbersIntoTheNextMinuteByItsOwnClock() {
    ManualScheduler time = new ManualScheduler(START.plusSeconds(40));
    try (Runtime runtime =
        Runtime.builder().storage(new InMemoryStorageEngine()).scheduler(time).build()) {
      RoomObjects objects = RoomObjects.register(runtime);
      CounterKey now = CounterKey.anywhere("shop", START_MINUTE);
      CounterKey next = CounterKey.anywhere("shop", START_MINUTE + 1);
      objects.counter(now).take(Rules.spec(), now, 10); // at :40
      time.advance(Duration.ofSeconds(18));
      objects.counter(now).take(Rules.spec(), now, 10); // at :58
      objects.counter(now).take(Rules.spec(), now, 10);
      time.advance(Duration.ofSeconds(3));

      // a pool from a state of :59 (W = 15 s) may miss what was consumed from :44 on: two
      Grant g = objects.counter(next).takeCarrying(Rules.spec(), next, 3, START.plusSeconds(44));

      assertThat(g).isEqualTo(new Grant(START_MINUTE + 1, 0, true, 2));
      assertThat(
              objects
                  .counter(next)
                  .takeCarrying(Rules.spec(), next, 3, START.plusSeconds(44))
                  .granted())
          .isFalse();
      assertThat(objects.counter(next).take(Rules.spec(), next, 3))
          .as("the take of a gateway of an older version carries nothing")
          .isEqualTo(new Grant(START_MINUTE + 1, 1, true, 0));
    }
  }

  @Test
  void aCounterRestartedInTheNextMinuteCarriesExactlyItsLateNumbers(@TempDir Path dir) {
    CounterKey now = CounterKey.anywhere("shop", START_MINUTE);
    CounterKey next = CounterKey.anywhere("shop", START_MINUTE + 1);
    ManualScheduler time = new ManualScheduler(START.plusSeconds(20));
    try (Runtime runtime =
        Runtime.builder().dataDir(dir).clock(time.clock()).scheduler(time).build()) {
      RoomCounter counter = RoomObjects.register(runtime).counter(now);
      counter.take(Rules.spec(), now, 10); // at :20
      counter.take(Rules.spec(), now, 10);
      time.advance(Duration.ofSeconds(38));
      counter.take(Rules.spec(), now, 10); // at :58
    }
    ManualScheduler later = new ManualScheduler(START.plusSeconds(61));
    try (Runtime restarted =
        Runtime.builder().dataDir(dir).clock(later.clock()).scheduler(later).build()) {
      Grant g =
          RoomObjects.register(restarted)
              .counter(next)
              .takeCarrying(Rules.spec(), next, 10, START.plusSeconds(44));

      assertThat(g.carried())
          .as("the number of :58, not the two of :20 (as if all were consumed at the restart)")
          .isEqualTo(1);
    }
  }

  @Test
  void aChargeSpendsTheCountersNumbersAndOutlivesARestart(@TempDir Path dir) {
    CounterKey dublin = CounterKey.dataCenter("shop", "dublin", START_MINUTE);
    try (Runtime runtime =
        Runtime.builder().dataDir(dir).scheduler(new ManualScheduler(START)).build()) {
      RoomCounter counter = RoomObjects.register(runtime).counter(dublin);
      counter.take(Rules.spec(), dublin, 10);

      assertThat(counter.chargeAsync(Rules.spec(), dublin, 12, 10).join())
          .as("9 of the 10 numbers were left; 3 admissions go to the next counter")
          .isEqualTo(3);
      assertThat(counter.take(Rules.spec(), dublin, 10).granted()).isFalse();
    }
    try (Runtime restarted =
        Runtime.builder().dataDir(dir).scheduler(new ManualScheduler(START)).build()) {
      assertThat(
              RoomObjects.register(restarted)
                  .counter(dublin)
                  .take(Rules.spec(), dublin, 11)
                  .number())
          .as("the charge was saved before it was answered")
          .isEqualTo(10);
    }
  }

  @Test
  void dataCenterRepliesCarryTheThrottleOfItsMonitor() {
    ManualScheduler time = new ManualScheduler(START);
    try (Runtime runtime =
        Runtime.builder().storage(new InMemoryStorageEngine()).scheduler(time).build()) {
      ThresholdMonitor monitor =
          ThresholdMonitor.builder()
              .maxQps(0.5)
              .signal(ThroughputSignal.TEN_SECOND_WINDOW)
              .clock(runtime.clock())
              .build();
      RoomObjects objects =
          RoomObjects.register(
              runtime, monitor, ThresholdMonitor.builder().clock(runtime.clock()).build());
      RoomWorker w = new RoomWorker(CONFIG, "dublin", "w", START);
      DataCenterCoordinator dc = objects.dataCenter("shop", "dublin");

      assertThat(dc.report(CONFIG, w.report(START)).throttle()).isFalse();
      boolean throttled = false;
      for (int i = 0; i < 10; i++) {
        throttled = dc.report(CONFIG, w.report(START)).throttle();
      }

      assertThat(throttled).isTrue();
    }
  }
}
