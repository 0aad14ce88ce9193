package io.anteroom.coordinator;

import static io.anteroom.coordinator.RoomObjectsTest.CONFIG;
import static io.anteroom.coordinator.RoomObjectsTest.START;
import static io.anteroom.coordinator.RoomObjectsTest.START_MINUTE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.anteroom.objects.ManualScheduler;
import io.anteroom.objects.Runtime;
import io.anteroom.objects.storage.InMemoryStorageEngine;
import io.anteroom.room.Deltas;
import io.anteroom.room.WorkerReport;
import io.anteroom.room.history.HistoryRow;
import io.anteroom.room.history.MinuteActivity;
import io.anteroom.room.history.RoomHistory;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The room's history in the coordinating objects: merged, stored per minute, pruned after 7 days.
 */
class RoomHistoryObjectsTest {

  private static WorkerReport admitted(String dc, long seq, long n, Instant at) {
    TreeMap<Long, MinuteActivity> a = new TreeMap<>();
    a.put(RoomHistory.minuteOf(at), new MinuteActivity(0, n, 0, 0, 0, null));
    return new WorkerReport("w-" + dc, seq, dc, at, Deltas.EMPTY, a);
  }

  /** Reports from both data centers. */
  private static void round(RoomObjects objects, ManualScheduler time, long seq, long n) {
    Instant now = time.clock().instant();
    objects.dataCenter("shop", "dublin").report(CONFIG, admitted("dublin", seq, n, now));
    objects.dataCenter("shop", "nairobi").report(CONFIG, admitted("nairobi", seq, n, now));
  }

  /**
   * Virtual time passes, one report interval per poll (the objects' alarms run, on their own
   * threads, and read the clock when they run), until {@code done}; but at most {@link #CATCH_UP}
   * past the start, then real time only, so that a data center's alarm running late in real time
   * still finds the reported minute among its last ten.
   */
  private static void until(ManualScheduler time, java.util.concurrent.Callable<Boolean> done) {
    Instant limit = time.clock().instant().plus(CATCH_UP);
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              if (time.clock().instant().isBefore(limit)) {
                time.advance(CONFIG.dataCenterReportInterval().plusSeconds(1));
              }
              return done.call();
            });
  }

  private static final Duration CATCH_UP = Duration.ofMinutes(5);

  /**
   * After reports of {@code minute}: the data centers' alarms bring them to the global object
   * ({@link #until}, time bounded), then virtual time runs on, unbounded, until the global object's
   * alarm has stored the minute (an alarm set after the bound must still come due).
   */
  private static void stored(
      RoomObjects objects, ManualScheduler time, InMemoryStorageEngine storage, long minute) {
    until(time, () -> !rows(objects, minute, minute + 1).isEmpty());
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              time.advance(CONFIG.dataCenterReportInterval().plusSeconds(1));
              System.err.println(
                  "DBG "
                      + time.clock().instant()
                      + " pending="
                      + time.pending()
                      + " keys="
                      + storedKeys(storage)
                      + " rows="
                      + rows(objects, minute, minute + 1).size());
              return storedKeys(storage).contains(GlobalObject.historyKey(minute));
            });
  }

  private static List<HistoryRow> rows(RoomObjects objects, long from, long to) {
    return objects.dataCenter("shop", "dublin").historyAsync("shop", from, to).join().rows();
  }

  /** The global object's committed keys. */
  private static java.util.Set<String> storedKeys(InMemoryStorageEngine storage) {
    return storage
        .rows(
            RoomObjects.GLOBAL_NAMESPACE
                + "/"
                + io.anteroom.objects.ObjectId.fromName(RoomObjects.GLOBAL_NAMESPACE, "shop"))
        .keySet();
  }

  @Test
  void dataCentersActivityIsMergedPerMinuteAndAskedThroughADataCenter() {
    ManualScheduler time = new ManualScheduler(START);
    try (Runtime runtime =
        Runtime.builder().storage(new InMemoryStorageEngine()).scheduler(time).build()) {
      RoomObjects objects = RoomObjects.register(runtime);
      round(objects, time, 1, 2);
      round(objects, time, 2, 1);
      until(
          time,
          () -> {
            List<HistoryRow> r = rows(objects, START_MINUTE, START_MINUTE + 1);
            return r.size() == 1 && r.getFirst().byDataCenter().size() == 2;
          });
      List<HistoryRow> rows = rows(objects, START_MINUTE, START_MINUTE + 1);
      assertThat(rows.getFirst().activity().admissions()).isEqualTo(6);
      assertThat(rows.getFirst().byDataCenter()).containsOnlyKeys("dublin", "nairobi");
      assertThat(rows.getFirst().gauges().totalActiveUsers()).isEqualTo(100);
    }
  }

  @Test
  void rowsOlderThanSevenDaysAreDeletedFromStorage() {
    ManualScheduler time = new ManualScheduler(START);
    var storage = new InMemoryStorageEngine();
    try (Runtime runtime = Runtime.builder().storage(storage).scheduler(time).build()) {
      RoomObjects objects = RoomObjects.register(runtime);
      round(objects, time, 1, 1);
      stored(objects, time, storage, START_MINUTE);

      time.advance(Duration.ofDays(7).minusMinutes(30));
      round(objects, time, 2, 1);
      long within = RoomHistory.minuteOf(time.clock().instant());
      stored(objects, time, storage, within);
      assertThat(storedKeys(storage))
          .as("still within seven days")
          .contains(GlobalObject.historyKey(START_MINUTE));

      time.advance(Duration.ofMinutes(60));
      round(objects, time, 3, 1);
      long now = RoomHistory.minuteOf(time.clock().instant());
      stored(objects, time, storage, now);
      assertThat(rows(objects, START_MINUTE, now + 1))
          .extracting(HistoryRow::minute)
          .as("the first minute is gone, the later ones remain")
          .doesNotContain(START_MINUTE)
          .isNotEmpty();
      assertThat(storedKeys(storage))
          .as("deleted from storage, not only hidden")
          .doesNotContain(GlobalObject.historyKey(START_MINUTE))
          .contains(GlobalObject.historyKey(now));
      assertThat(storedKeys(storage).stream().filter(k -> k.startsWith("history/")).count())
          .as("bounded")
          .isLessThanOrEqualTo(RoomHistory.RETENTION_MINUTES);
    }
  }
}
