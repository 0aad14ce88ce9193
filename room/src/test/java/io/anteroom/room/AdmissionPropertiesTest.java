package io.anteroom.room;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.room.slots.StrategyKind;
import java.time.Instant;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.statistics.Statistics;

/**
 * A single worker never admits more than the free slots, whatever the strategy, rules and arrivals.
 */
class AdmissionPropertiesTest {
  private long nextId = 1;

  static final Instant MINUTE_START = Instant.parse("2026-01-01T10:00:00Z");
  static final long M = Minutes.minuteOf(MINUTE_START);

  @Property(tries = 300)
  void aSingleWorkerNeverAdmitsMoreThanTheFreeSlots(
      @ForAll @IntRange(min = 0, max = 200) int headroom,
      @ForAll @IntRange(min = 1, max = 200) int perMinute,
      @ForAll @IntRange(min = 0, max = 150) int expiringThisMinute,
      @ForAll @IntRange(min = 0, max = 150) int activeLater,
      @ForAll @IntRange(min = 0, max = 600) int history,
      @ForAll @IntRange(min = 0, max = 100) int recentAdmissions,
      @ForAll @IntRange(min = 0, max = 150) int waitingInOlderBucket,
      @ForAll StrategyKind strategy,
      @ForAll boolean published,
      @ForAll @Size(max = 400) List<@IntRange(min = -59_999, max = 59_999) Integer> arrivals) {
    int total = Math.max(1, expiringThisMinute + activeLater + headroom);
    RoomConfig config =
        RoomConfig.builder("shop")
            .totalActiveUsers(total)
            .newUsersPerMinute(perMinute)
            .sessionDurationMinutes(10)
            .strategy(strategy)
            .rules(published ? Rules.published() : Rules.spec())
            .build();
    Instant asOf = MINUTE_START.minusSeconds(1);
    Tally t = new Tally();
    t.addActive(M, expiringThisMinute);
    t.addActive(M + 4, activeLater);
    t.addTraffic(M - config.historyLagMinutes(), history);
    for (int i = 1; i <= 3; i++) {
      t.addAdmission(M - i, recentAdmissions);
    }
    long key = Counting.refreshSlotKey(asOf, config);
    t.addWaiting(M - 2, key, waitingInOlderBucket);
    DataCenterLedger dc = new DataCenterLedger(config, "dc");
    dc.apply(new WorkerReport("w", 1, "dc", asOf, t.toDeltas()), asOf);
    RoomState atStart = dc.roomState(List.of(), asOf);
    RoomWorker worker = new RoomWorker(config, "dc", "w", asOf);
    worker.applyState(atStart);
    MinuteCounter dcCounter = new MinuteCounter(config.rules());
    MinuteCounter anywhere = new MinuteCounter(config.rules());

    long admitted = 0;
    long stillWaiting = waitingInOlderBucket;
    boolean wholeBucketAdmitted = false;
    // a negative arrival is a user of the older bucket coming back, a positive one a new user
    for (int arrival :
        arrivals.stream().sorted((a, b) -> Integer.compare(Math.abs(a), Math.abs(b))).toList()) {
      Instant now = MINUTE_START.plusMillis(Math.abs(arrival));
      boolean waiting = arrival < 0 && stillWaiting > 0;
      Ticket ticket = waiting ? new Ticket("shop", nextId++, M - 2, asOf, null, key) : null;
      Decision d =
          WorkedExamplesTest.settle(worker, worker.decide(ticket, now), dcCounter, anywhere, now);
      if (d instanceof Decision.Admit a) {
        admitted++;
        wholeBucketAdmitted |= a.reason() == Decision.AdmitReason.WHOLE_BUCKET;
        if (waiting) {
          stillWaiting--;
        }
        long free =
            SlotMath.freeSlots(
                config,
                Counting.activeUsers(atStart.activeByExpiryMinute(), now, config.rules()),
                0);
        assertThat(admitted).as("admitted by %s", now).isLessThanOrEqualTo(free);
      }
    }
    Statistics.collect(wholeBucketAdmitted ? "a whole bucket entered" : "no whole bucket");
    Statistics.coverage(c -> c.check("a whole bucket entered").percentage(p -> p > 5));
  }
}
