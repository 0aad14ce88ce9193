package io.anteroom.room;

import static io.anteroom.room.Fixtures.at;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Random queueing through the whole room loop, in virtual time. */
class RandomQueueTest {
  static final Instant T0 = at("2026-12-01T10:00:00Z");
  static final int N = 30;

  static RoomConfig config(QueueOrder order) {
    return Fixtures.room(100_000, N).sessionDurationMinutes(120).queueOrder(order).build();
  }

  /**
   * 300 users arrive in the first minute and 300 more five minutes later; the room admits 30 a
   * minute. Returns {early admitted, early waiting, late admitted, late waiting} counted over the
   * six minutes after the late users' arrival.
   */
  static long[] earlyAgainstLate(QueueOrder order, long seed) {
    MiniRoom room = new MiniRoom(config(order), T0, seed);
    Crowd crowd = new Crowd(room, seed);
    for (int i = 0; i < 300; i++) {
      crowd.arrive(T0.plusMillis(i * 200L));
    }
    for (int i = 0; i < 300; i++) {
      crowd.arrive(T0.plus(Duration.ofMinutes(5)).plusMillis(i * 100L));
    }
    Instant from = T0.plus(Duration.ofMinutes(6));
    crowd.runUntil(from, Duration.ofSeconds(5), 20);
    List<Crowd.User> early =
        crowd.users.subList(0, 300).stream().filter(u -> u.admittedAt == null).toList();
    List<Crowd.User> late =
        crowd.users.subList(300, 600).stream().filter(u -> u.admittedAt == null).toList();
    crowd.runUntil(from.plus(Duration.ofMinutes(6)), Duration.ofSeconds(5), 20);
    assertThat(crowd.admissionsByMinute.values())
        .allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(N));
    return new long[] {
      early.stream().filter(u -> u.admittedAt != null).count(),
      early.size(),
      late.stream().filter(u -> u.admittedAt != null).count(),
      late.size()
    };
  }

  /** Two-proportion z statistic. */
  static double z(long[] c) {
    double p1 = (double) c[0] / c[1];
    double p2 = (double) c[2] / c[3];
    double p = (double) (c[0] + c[2]) / (c[1] + c[3]);
    return (p1 - p2) / Math.sqrt(p * (1 - p) * (1.0 / c[1] + 1.0 / c[3]));
  }

  @Test
  void aLateArrivalHasTheSameChanceAsAnEarlyOneAndTheLimitsHold() {
    // pooled over 5 seeded runs: early and late waiting users admitted in the same proportion
    long[] sum = new long[4];
    for (long seed = 1; seed <= 5; seed++) {
      long[] c = earlyAgainstLate(QueueOrder.RANDOM, seed);
      for (int i = 0; i < 4; i++) {
        sum[i] += c[i];
      }
    }
    assertThat(sum[0] + sum[2]).isGreaterThan(5 * 150); // the room kept admitting at its rate
    assertThat(Math.abs(z(sum))).isLessThan(3.0); // two-sided p = 0.0027
  }

  @Test
  void fifoUnderTheSameTrafficAdmitsTheEarlyFirst() {
    long[] c = earlyAgainstLate(QueueOrder.FIFO, 1);
    assertThat(z(c)).isGreaterThan(5.0); // the check above can fail
    assertThat(c[0]).isEqualTo(c[1]); // every early user before most late ones
  }

  @Test
  void aTicketDrawsOneLotPerMinuteHoweverOftenItAsks() {
    MiniRoom room = new MiniRoom(config(QueueOrder.RANDOM), T0, 9);
    // 1000 users wait (the room admits 30 this minute): chance 3 %
    Crowd crowd = new Crowd(room, 9);
    for (int i = 0; i < 1000; i++) {
      crowd.arrive(T0);
    }
    room.advanceTo(T0.plus(Duration.ofMinutes(1)));
    crowd.runUntil(T0.plus(Duration.ofMinutes(1)).plusSeconds(1), Duration.ofSeconds(1), 20);
    // everyone asked once in the new minute; the losers ask 50 times more within it
    int more = 0;
    for (Crowd.User u : crowd.users) {
      if (u.admittedAt == null && u.ticket != null) {
        for (int k = 0; k < 50; k++) {
          room.advanceTo(room.now().plusMillis(10));
          assertThat(room.request(u.ticket)).isInstanceOf(Decision.Queue.class);
          more++;
        }
        if (more > 5000) {
          break;
        }
      }
    }
    assertThat(more).isGreaterThan(0);
  }

  @Test
  void aNewArrivalWaitsForItsFirstLotWhileOthersWait() {
    MiniRoom room = new MiniRoom(config(QueueOrder.RANDOM), T0, 10);
    Crowd crowd = new Crowd(room, 10);
    for (int i = 0; i < 200; i++) {
      crowd.arrive(T0);
    }
    crowd.runUntil(T0.plusSeconds(30), Duration.ofSeconds(5), 20);
    assertThat(room.state().totalWaiting()).isPositive();
    for (int i = 0; i < 100; i++) {
      assertThat(room.request(null)).isInstanceOf(Decision.Queue.class);
    }
  }
}
