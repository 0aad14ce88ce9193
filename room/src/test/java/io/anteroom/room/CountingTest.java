package io.anteroom.room;

import static io.anteroom.room.Fixtures.at;
import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.room.slots.SlotSplit;
import java.time.Instant;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class CountingTest {
  static final RoomConfig SPEC = Fixtures.room(1000, 200).build();
  static final RoomConfig PUBLISHED = SPEC.withRules(Rules.published());

  @Test
  void sessionsExpiringThisMinuteAreReleasedProRata() {
    Instant half = at("2026-01-01T10:00:30Z");
    long m = Minutes.minuteOf(half);
    TreeMap<Long, Long> h = new TreeMap<>();
    h.put(m - 1, 500L);
    h.put(m, 60L);
    h.put(m + 3, 100L);

    assertThat(Counting.activeUsers(h, at("2026-01-01T10:00:00Z"), Rules.spec())).isEqualTo(160);
    assertThat(Counting.activeUsers(h, half, Rules.spec())).isEqualTo(130);
    assertThat(Counting.activeUsers(h, at("2026-01-01T10:00:59Z"), Rules.spec())).isEqualTo(101);
  }

  @Test
  void publishedRulesCountOnlySessionsExpiringAfterThisMinute() {
    Instant start = at("2026-01-01T10:00:00Z");
    TreeMap<Long, Long> h = new TreeMap<>();
    h.put(Minutes.minuteOf(start), 60L);
    h.put(Minutes.minuteOf(start) + 3, 100L);

    assertThat(Counting.activeUsers(h, start, Rules.published())).isEqualTo(100);
  }

  @Test
  void activeUsersAreNeverNegativeEvenWhenAMoveArrivesBeforeTheAdmission() {
    Instant now = at("2026-01-01T10:00:10Z");
    TreeMap<Long, Long> h = new TreeMap<>();
    h.put(Minutes.minuteOf(now) + 4, -3L);

    assertThat(Counting.activeUsers(h, now, Rules.spec())).isZero();
  }

  @Test
  void aWaitingKeyStopsCountingAfterAboutThreeMissedRefreshes() {
    Instant refresh = at("2026-01-01T10:00:05Z");
    long key = Counting.refreshSlotKey(refresh, SPEC);
    TreeMap<Long, Long> keys = new TreeMap<>();
    keys.put(key, 1L);

    assertThat(Counting.waiting(keys, refresh.plusSeconds(54), SPEC)).isEqualTo(1);
    assertThat(Counting.waiting(keys, refresh.plusSeconds(55), SPEC)).isZero();
  }

  @Test
  void publishedWaitingKeysCountUntilTheQueueTimeout() {
    Instant refresh = at("2026-01-01T10:00:00Z");
    long key = Counting.refreshSlotKey(refresh, PUBLISHED);
    TreeMap<Long, Long> keys = new TreeMap<>();
    keys.put(key, 1L);

    assertThat(Counting.waiting(keys, refresh.plusSeconds(299), PUBLISHED)).isEqualTo(1);
    assertThat(Counting.waiting(keys, refresh.plusSeconds(300), PUBLISHED)).isZero();
  }

  @Test
  void usersLeftUnderAnExpiredKeyAreAbandonmentsOfTheMinuteItExpired() {
    Instant refresh = at("2026-01-01T10:00:05Z");
    long key = Counting.refreshSlotKey(refresh, SPEC);
    Tally t = new Tally();
    t.addWaiting(7, key, 9);
    t.addWaiting(7, key, -3); // three refreshed or were admitted

    long expiredIn = Minutes.minuteOf(at("2026-01-01T10:01:00Z"));
    assertThat(Counting.abandonments(t.toDeltas().waitingByBucket(), expiredIn, SPEC)).isEqualTo(6);
    assertThat(Counting.abandonmentsPerMinute(t.toDeltas().waitingByBucket(), expiredIn + 1, SPEC))
        .isEqualTo(2.0);
  }

  @Test
  void freeSlotsAreLimitedByBothTotalAndPerMinuteLimits() {
    assertThat(SlotMath.freeSlots(SPEC, 900, 0)).isEqualTo(100);
    assertThat(SlotMath.freeSlots(SPEC, 100, 150)).isEqualTo(50);
    assertThat(SlotMath.freeSlots(SPEC, 1200, 0)).isZero();
  }

  @Test
  void onlyOneBucketCanBePartial() {
    TreeMap<Long, Long> waiting = new TreeMap<>();
    waiting.put(1L, 10L);
    waiting.put(2L, 10L);
    waiting.put(3L, 10L);

    List<BucketState> b = SlotMath.eligible(waiting, 15, 4);

    assertThat(b).extracting(BucketState::whole).containsExactly(true, false, false);
    assertThat(b).extracting(BucketState::partial).containsExactly(false, true, false);
    assertThat(b.get(2).eligibleSlots()).isZero();
  }

  @Test
  void theCurrentMinutesBucketGetsNoEligibleSlots() {
    TreeMap<Long, Long> waiting = new TreeMap<>();
    waiting.put(3L, 10L);
    waiting.put(4L, 10L);

    assertThat(SlotMath.eligible(waiting, 50, 4))
        .containsExactly(new BucketState(3, 10, 10), new BucketState(4, 10, 0));
  }

  @Test
  void splitNeverHandsOutMoreThanThePool() {
    java.util.Map<String, Long> history = java.util.Map.of("a", 333L, "b", 333L, "c", 334L);
    long sum = 0;
    for (String dc : history.keySet()) {
      sum += SlotMath.split(100, history, 1000, dc).dataCenterSlots();
    }
    SlotSplit any = SlotMath.split(100, history, 1000, "a");
    assertThat(sum + any.anywhereSlots()).isEqualTo(100);
    assertThat(any.anywhereSlots()).isGreaterThanOrEqualTo(0);
  }
}
