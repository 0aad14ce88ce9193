package io.anteroom.room;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/** Invariants of counting and merging, over random reports. */
class LedgerPropertiesTest {
  static final RoomConfig CONFIG = Fixtures.room(500, 100).build();
  static final Instant NOW = Instant.parse("2026-01-01T10:00:25Z");
  static final long M = Minutes.minuteOf(NOW);

  @Provide
  Arbitrary<Deltas> deltas() {
    Arbitrary<Integer> minuteOffset = Arbitraries.integers().between(-6, 12);
    Arbitrary<Integer> delta = Arbitraries.integers().between(-5, 5);
    Arbitrary<Integer> slotOffset = Arbitraries.integers().between(-12, 4);
    Arbitrary<int[]> event =
        Combinators.combine(Arbitraries.integers().between(0, 3), minuteOffset, slotOffset, delta)
            .as((kind, mo, so, d) -> new int[] {kind, mo, so, d});
    return event
        .list()
        .ofMaxSize(12)
        .map(
            events -> {
              Tally t = new Tally();
              long slotNow = Counting.refreshSlot(NOW, CONFIG);
              for (int[] e : events) {
                switch (e[0]) {
                  case 0 -> t.addActive(M + e[1], e[3]);
                  case 1 -> t.addWaiting(M + Math.min(0, e[1]), slotNow + e[2], e[3]);
                  case 2 -> t.addAdmission(M + Math.min(0, e[1]), e[3]);
                  default -> t.addTraffic(M + Math.min(0, e[1]), Math.abs(e[3]));
                }
              }
              return t.toDeltas();
            });
  }

  @Provide
  Arbitrary<List<WorkerReport>> reports() {
    return deltas()
        .list()
        .ofMaxSize(10)
        .map(
            list -> {
              List<WorkerReport> out = new ArrayList<>();
              for (int i = 0; i < list.size(); i++) {
                out.add(new WorkerReport("w" + (i % 3), i / 3 + 1, "dc", NOW, list.get(i)));
              }
              return out;
            });
  }

  @Property(tries = 300)
  void countsAreNeverNegative(
      @ForAll("reports") List<WorkerReport> reports,
      @ForAll @IntRange(min = 0, max = 179) int secondsLater) {
    DataCenterLedger dc = new DataCenterLedger(CONFIG, "dc");
    reports.forEach(r -> dc.apply(r, NOW));
    RoomState s = dc.roomState(List.of(), NOW.plusSeconds(secondsLater));

    assertThat(s.activeUsers()).isNotNegative();
    assertThat(s.freeSlots()).isNotNegative();
    assertThat(s.newUsersThisMinute()).isNotNegative();
    assertThat(s.admissionsPerMinute()).isNotNegative();
    assertThat(s.abandonmentsPerMinute()).isNotNegative();
    for (BucketState b : s.buckets()) {
      assertThat(b.waiting()).isPositive();
      assertThat(b.eligibleSlots()).isBetween(0L, b.waiting());
    }
    assertThat(s.pool().available(NOW.plusSeconds(secondsLater))).isNotNegative();
  }

  @Property(tries = 300)
  void mergeOrderDoesNotMatter(@ForAll("reports") List<WorkerReport> reports, @ForAll long seed) {
    List<WorkerReport> shuffled = new ArrayList<>(reports);
    Collections.shuffle(shuffled, new Random(seed));
    DataCenterLedger inOrder = new DataCenterLedger(CONFIG, "dc");
    DataCenterLedger reordered = new DataCenterLedger(CONFIG, "dc");
    reports.forEach(r -> inOrder.apply(r, NOW));
    shuffled.forEach(r -> reordered.apply(r, NOW));

    assertThat(reordered.aggregate(NOW).totals()).isEqualTo(inOrder.aggregate(NOW).totals());
    assertThat(reordered.roomState(List.of(), NOW)).isEqualTo(inOrder.roomState(List.of(), NOW));
  }

  @Property(tries = 300)
  void addingDeltasIsAssociativeAndCommutative(
      @ForAll("deltas") Deltas a, @ForAll("deltas") Deltas b, @ForAll("deltas") Deltas c) {
    assertThat(a.plus(b)).isEqualTo(b.plus(a));
    assertThat(a.plus(b).plus(c)).isEqualTo(a.plus(b.plus(c)));
    assertThat(a.plus(Deltas.EMPTY)).isEqualTo(a);
  }

  @Property(tries = 300)
  void aRetriedReportChangesNothing(
      @ForAll("reports") List<WorkerReport> reports, @ForAll long seed) {
    DataCenterLedger dc = new DataCenterLedger(CONFIG, "dc");
    reports.forEach(r -> dc.apply(r, NOW));
    Deltas before = dc.aggregate(NOW).totals();
    Random random = new Random(seed);

    for (WorkerReport r : reports) {
      if (random.nextBoolean()) {
        assertThat(dc.apply(r, NOW.plusSeconds(1))).isFalse();
      }
    }

    assertThat(dc.aggregate(NOW).totals()).isEqualTo(before);
  }

  @Property(tries = 200)
  void aRepeatedOrOlderAggregateChangesNothingGlobally(
      @ForAll("reports") List<WorkerReport> reports) {
    DataCenterLedger dc = new DataCenterLedger(CONFIG, "dc");
    GlobalLedger global = new GlobalLedger(CONFIG);
    DataCenterAggregate empty = dc.aggregate(NOW);
    reports.forEach(r -> dc.apply(r, NOW));
    DataCenterAggregate full = dc.aggregate(NOW);
    global.apply(full);
    List<DataCenterAggregate> view = global.view(NOW);

    global.apply(empty);
    global.apply(full);

    assertThat(global.view(NOW)).isEqualTo(view);
  }
}
