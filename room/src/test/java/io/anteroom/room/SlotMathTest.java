package io.anteroom.room;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.room.slots.SlotSplit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The traffic-history split ({@link SlotMath#split}): every share never falls as the pool grows,
 * the shares add up to the pool, and every process computes the same split.
 */
class SlotMathTest {
  /** A data center no history minute names. */
  private static final String ABSENT = "zanzibar";

  /** A traffic map of the history minute and the room's T. */
  private record Traffic(String name, Map<String, Long> users, int t) {}

  private static final List<Traffic> TRAFFIC =
      List.of(
          new Traffic("50/50, U = T", Map.of("dublin", 5L, "nairobi", 5L), 10),
          new Traffic("50/50, U < T", Map.of("dublin", 30L, "nairobi", 30L), 100),
          new Traffic("thirds, U = T", Map.of("a", 333L, "b", 333L, "c", 334L), 1000),
          new Traffic("uneven, U < T", Map.of("a", 1L, "b", 2L, "c", 97L), 1000),
          new Traffic("four uneven, U > T", Map.of("a", 700L, "b", 250L, "c", 49L, "d", 1L), 100),
          new Traffic(
              "five, U > T",
              Map.of("dublin", 300L, "nairobi", 200L, "oregon", 77L, "sydney", 1L, "tokyo", 9L),
              100),
          new Traffic(
              "five equal, U < T", Map.of("a", 7L, "b", 7L, "c", 7L, "d", 7L, "e", 7L), 1000),
          new Traffic(
              "zero and negative entries",
              Map.of("a", 0L, "b", 5L, "c", -3L, "d", 12L, "e", 1L),
              20),
          new Traffic("one data center, U < T", Map.of("dublin", 3L), 7),
          new Traffic("no history", Map.of(), 10),
          new Traffic("only zeros", Map.of("a", 0L, "b", 0L), 10));

  private static List<String> dataCentersOf(Traffic traffic) {
    List<String> out = new ArrayList<>(new TreeMap<>(traffic.users()).keySet());
    out.add(ABSENT);
    return out;
  }

  private static SlotSplit split(long pool, Traffic traffic, String dataCenter) {
    return SlotMath.split(pool, traffic.users(), traffic.t(), dataCenter);
  }

  @Test
  void everyShareNeverFallsAsThePoolGrows() {
    for (Traffic traffic : TRAFFIC) {
      for (String dc : dataCentersOf(traffic)) {
        SlotSplit before = split(0, traffic, dc);
        for (long pool = 1; pool <= 2000; pool++) {
          SlotSplit now = split(pool, traffic, dc);
          assertThat(now.dataCenterSlots())
              .as("%s: %s's share from pool %d to %d", traffic.name(), dc, pool - 1, pool)
              .isGreaterThanOrEqualTo(before.dataCenterSlots());
          assertThat(now.anywhereSlots())
              .as("%s: Anywhere's share from pool %d to %d", traffic.name(), pool - 1, pool)
              .isGreaterThanOrEqualTo(before.anywhereSlots());
          before = now;
        }
      }
    }
  }

  @Test
  void sharesAddUpToThePool() {
    for (Traffic traffic : TRAFFIC) {
      for (long pool = 0; pool <= 2000; pool++) {
        long sum = split(pool, traffic, ABSENT).anywhereSlots();
        for (String dc : dataCentersOf(traffic)) {
          SlotSplit s = split(pool, traffic, dc);
          assertThat(s.anywhereSlots()).isEqualTo(split(pool, traffic, ABSENT).anywhereSlots());
          assertThat(s.dataCenterSlots()).isNotNegative();
          sum += s.dataCenterSlots();
        }
        assertThat(sum).as("%s, pool %d", traffic.name(), pool).isEqualTo(pool);
      }
    }
  }

  @Test
  void theReviewersCaseAnywhereDoesNotFallWhenThePoolGrowsFrom9To10At5050() {
    Map<String, Long> history = Map.of("dublin", 5L, "nairobi", 5L);

    SlotSplit dublin9 = SlotMath.split(9, history, 10, "dublin");
    SlotSplit nairobi9 = SlotMath.split(9, history, 10, "nairobi");
    SlotSplit dublin10 = SlotMath.split(10, history, 10, "dublin");
    SlotSplit nairobi10 = SlotMath.split(10, history, 10, "nairobi");

    // before: 4 + 4 + 1 at 9, then 5 + 5 + 0 at 10; a counter that gave Anywhere's 1 kept it
    assertThat(
            List.of(dublin9.dataCenterSlots(), nairobi9.dataCenterSlots(), dublin9.anywhereSlots()))
        .containsExactly(5L, 4L, 0L);
    assertThat(
            List.of(
                dublin10.dataCenterSlots(), nairobi10.dataCenterSlots(), dublin10.anywhereSlots()))
        .containsExactly(5L, 5L, 0L);
  }

  @Test
  void anywhereIsTheCeilingOfThePoolsUnusedPartOfTheHistory() {
    for (Traffic traffic : TRAFFIC) {
      long u = traffic.users().values().stream().mapToLong(v -> Math.max(0, v)).sum();
      long d = Math.max(traffic.t(), u);
      for (long pool = 0; pool <= 2000; pool++) {
        long expected = u == 0 ? pool : Math.ceilDiv(pool * (d - u), d);
        assertThat(split(pool, traffic, ABSENT).anywhereSlots())
            .as("%s, pool %d", traffic.name(), pool)
            .isEqualTo(expected);
      }
    }
  }

  @Test
  void aDataCenterGetsAtLeastTheSpecsRoundedDownShare() {
    for (Traffic traffic : TRAFFIC) {
      long u = traffic.users().values().stream().mapToLong(v -> Math.max(0, v)).sum();
      long d = Math.max(traffic.t(), u);
      for (String dc : dataCentersOf(traffic)) {
        long users = Math.max(0, traffic.users().getOrDefault(dc, 0L));
        for (long pool = 0; pool <= 2000; pool++) {
          assertThat(split(pool, traffic, dc).dataCenterSlots())
              .as("%s: %s, pool %d", traffic.name(), dc, pool)
              .isGreaterThanOrEqualTo(Math.floorDiv(pool * users, d));
        }
      }
    }
  }

  @Test
  void theDataCentersSeatsAreDHondtsSeatBySeat() {
    Random random = new Random(40);
    for (int round = 0; round < 300; round++) {
      int k = 1 + random.nextInt(5);
      Map<String, Long> users = new HashMap<>();
      for (int i = 0; i < k; i++) {
        // small counts make ties common
        users.put(
            "dc" + (char) ('a' + random.nextInt(8)), (long) random.nextInt(round < 150 ? 6 : 500));
      }
      int t = 1 + random.nextInt(1200);
      long pool = random.nextInt(700);
      long u = users.values().stream().mapToLong(Long::longValue).sum();
      long seats = u == 0 ? 0 : pool * u / Math.max(t, u);
      Map<String, Long> expected = dHondt(users, seats);
      for (String dc : users.keySet()) {
        assertThat(SlotMath.split(pool, users, t, dc).dataCenterSlots())
            .as("%s, T = %d, pool %d: %s", users, t, pool, dc)
            .isEqualTo(expected.get(dc));
      }
    }
  }

  /** The reference: every seat, from none, to the largest {@code U / (seats + 1)}, ties by name. */
  private static Map<String, Long> dHondt(Map<String, Long> users, long seats) {
    TreeMap<String, Long> out = new TreeMap<>();
    users.keySet().forEach(dc -> out.put(dc, 0L));
    for (long seat = 0; seat < seats; seat++) {
      String best = null;
      for (String dc : out.keySet()) {
        if (users.get(dc) <= 0) {
          continue;
        }
        if (best == null
            || users.get(dc) * (out.get(best) + 1) > users.get(best) * (out.get(dc) + 1)) {
          best = dc;
        }
      }
      out.merge(best, 1L, Long::sum);
    }
    return out;
  }

  @Test
  void aTieGoesToTheNameThatSortsFirstWhateverTheMapsOrder() {
    Map<String, Long> forward = new LinkedHashMap<>();
    forward.put("dublin", 1L);
    forward.put("nairobi", 1L);
    forward.put("oregon", 1L);
    Map<String, Long> backward = new LinkedHashMap<>();
    backward.put("oregon", 1L);
    backward.put("nairobi", 1L);
    backward.put("dublin", 1L);

    for (Map<String, Long> history : List.of(forward, backward)) {
      assertThat(SlotMath.split(1, history, 3, "dublin").dataCenterSlots()).isEqualTo(1);
      assertThat(SlotMath.split(1, history, 3, "nairobi").dataCenterSlots()).isZero();
      assertThat(SlotMath.split(2, history, 3, "nairobi").dataCenterSlots()).isEqualTo(1);
      assertThat(SlotMath.split(2, history, 3, "oregon").dataCenterSlots()).isZero();
      assertThat(SlotMath.split(2, history, 3, "oregon").anywhereSlots()).isZero();
    }
  }

  @Test
  void withoutHistoryThePoolIsAllAnywhere() {
    assertThat(SlotMath.split(17, Map.of(), 10, "dublin")).isEqualTo(new SlotSplit(0, 17));
    assertThat(SlotMath.split(17, Map.of("dublin", 0L), 10, "dublin"))
        .isEqualTo(new SlotSplit(0, 17));
    assertThat(SlotMath.split(-3, Map.of("dublin", 5L), 10, "dublin"))
        .isEqualTo(new SlotSplit(0, 0));
  }

  @Test
  void hugePoolsAndCountsAreSplitExactly() {
    Map<String, Long> history =
        Map.of("a", 3_000_000_000L, "b", 3_000_000_000L, "c", 1_000_000_001L);
    long u = 7_000_000_001L;
    long pool = 4_000_000_000_000_000_000L; // pool × U overflows a long
    for (long p = pool; p <= pool + 3; p++) {
      long sum = SlotMath.split(p, history, 10, "zzz").anywhereSlots();
      for (String dc : history.keySet()) {
        sum += SlotMath.split(p, history, 10, dc).dataCenterSlots();
      }
      assertThat(sum).isEqualTo(p);
      assertThat(SlotMath.split(p, history, 10, "zzz").anywhereSlots()).isZero();
    }
    // a: floor(p × 3e9 / U), with one of the seats left over by the rounding
    long a = SlotMath.split(pool, history, 10, "a").dataCenterSlots();
    long floor =
        java.math.BigInteger.valueOf(pool)
            .multiply(java.math.BigInteger.valueOf(3_000_000_000L))
            .divide(java.math.BigInteger.valueOf(u))
            .longValueExact();
    assertThat(a).isBetween(floor, floor + 1);
  }
}
