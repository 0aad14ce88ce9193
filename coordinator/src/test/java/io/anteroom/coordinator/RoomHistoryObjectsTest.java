package io.anteroom.coordinator;

import static io.anteroom.coordinator.RoomObjectsTest.CONFIG;
import static io.anteroom.coordinator.RoomObjectsTest.START;
import static io.anteroom.coordinator.RoomObjectsTest.START_MINUTE;
import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.function.BooleanSupplier;
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
   * Virtual time passes one report interval at a time until {@code done}, at most {@value
   * #INTERVALS} intervals. The runtime is on {@link Runtime.Builder#virtualTime}: each step returns
   * only once the alarms it fired (the data centers' reports to the global object, the global
   * object's backup) have run at their virtual time.
   */
  private static void until(ManualScheduler time, String what, BooleanSupplier done) {
    assertThat(time.advanceUntil(CONFIG.dataCenterReportInterval().plusSeconds(1), INTERVALS, done))
        .as("%s within %d report intervals", what, INTERVALS)
        .isTrue();
  }

  /** A report reaches the global object at the data center's next alarm, its backup one later. */
  private static final int INTERVALS = 5;

  /** After reports of {@code minute}: the global object's alarm stores the minute's row. */
  private static void stored(ManualScheduler time, InMemoryStorageEngine storage, long minute) {
    until(
        time,
        "history/" + minute + " stored",
        () -> storedKeys(storage).contains(GlobalObject.historyKey(minute)));
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
        Runtime.builder().storage(new InMemoryStorageEngine()).virtualTime(time).build()) {
      RoomObjects objects = RoomObjects.register(runtime);
      round(objects, time, 1, 2);
      round(objects, time, 2, 1);
      until(
          time,
          "both data centers' activity merged",
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
    try (Runtime runtime = Runtime.builder().storage(storage).virtualTime(time).build()) {
      RoomObjects objects = RoomObjects.register(runtime);
      round(objects, time, 1, 1);
      stored(time, storage, START_MINUTE);

      time.advance(Duration.ofDays(7).minusMinutes(30));
      round(objects, time, 2, 1);
      long within = RoomHistory.minuteOf(time.clock().instant());
      stored(time, storage, within);
      assertThat(storedKeys(storage))
          .as("still within seven days")
          .contains(GlobalObject.historyKey(START_MINUTE));

      time.advance(Duration.ofMinutes(60));
      round(objects, time, 3, 1);
      long now = RoomHistory.minuteOf(time.clock().instant());
      stored(time, storage, now);
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
