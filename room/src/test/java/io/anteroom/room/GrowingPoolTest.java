package io.anteroom.room;

import static io.anteroom.room.MinuteBoundaryTest.START;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The pool of a minute grows as its sessions expire; the counters keep what they granted under a
 * smaller pool. With the workers and counters of {@link MinuteBoundaryTest.TwoDataCenters}.
 */
class GrowingPoolTest {
  /**
   * The reviewer's case (2026-11-30): T = 20, dublin and nairobi 10/10 in the history minute, every
   * session ending in minute :02, so its pool is {@code G = floor(20 × f)}: 9 at :27, 10 at :30.
   * The spec's split gave 4 + 4 + 1 (Anywhere) of 9, then 5 + 5 + 0 of 10: the Anywhere number
   * granted at :27 stayed granted, and each data center's counter granted one more, 11 admissions
   * in a pool of 10 and 21 users for T = 20.
   */
  @Test
  void aPoolThatGrowsByOneNeverTakesBackTheAnywhereShareItGave() {
    MinuteBoundaryTest.TwoDataCenters room =
        new MinuteBoundaryTest.TwoDataCenters(
            Fixtures.room(20, 1000)
                .historyLagMinutes(1)
                .sessionDurationMinutes(2)
                .sessionRenewal(false)
                .build());
    MinuteBoundaryTest.TwoDataCenters.Dc dublin = room.dcs.get(0);
    MinuteBoundaryTest.TwoDataCenters.Dc nairobi = room.dcs.get(1);
    room.settle();
    room.now = START.plusSeconds(5);
    for (int i = 0; i < 10; i++) {
      assertThat(dublin.newUser()).isTrue();
      assertThat(nairobi.newUser()).isTrue();
    }
    List<Ticket> first = new ArrayList<>(room.admitted);
    room.now = START.plusSeconds(30);
    room.settle();
    // minute :01: all twenty come back (their sessions end at :02:05), so :02 splits 10/10, U = T
    room.now = START.plusSeconds(70);
    for (int i = 0; i < first.size(); i++) {
      assertThat(room.dcs.get(i % 2).ask(first.get(i))).as("a session running").isTrue();
    }
    room.now = START.plusSeconds(90);
    room.settle();

    // :02:27, G = 9: five users at dublin and four at nairobi
    room.now = START.plusSeconds(147);
    int admitted = 0;
    for (int i = 0; i < 5; i++) if (dublin.newUser()) admitted++;
    for (int i = 0; i < 4; i++) if (nairobi.newUser()) admitted++;
    assertThat(admitted).as("admitted in a pool of 9").isEqualTo(9);

    // :02:30, G = 10: two more at each
    room.now = START.plusSeconds(150);
    for (int i = 0; i < 2; i++) {
      if (dublin.newUser()) admitted++;
      if (nairobi.newUser()) admitted++;
    }
    assertThat(admitted).as("admitted in minute :02 by :30, whose pool is 10").isEqualTo(10);
  }
}
