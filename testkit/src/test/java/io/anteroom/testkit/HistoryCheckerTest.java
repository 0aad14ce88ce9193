package io.anteroom.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.testkit.HistoryChecker.Op;
import org.junit.jupiter.api.Test;

class HistoryCheckerTest {
  private static final long M = 29_000_000L; // a minute number

  /** Sequential calls, concurrent calls, failures and unknown outcomes: nothing violated. */
  @Test
  void aCleanHistoryPassesWithItsFigures() {
    HistoryChecker.Figures f =
        new HistoryChecker()
            .add(Op.ok(0, 10, M, 0))
            .add(Op.ok(11, 20, M, 1))
            // concurrent with each other: any order of numbers
            .add(Op.ok(30, 50, M, 3))
            .add(Op.ok(31, 45, M, 2))
            .add(Op.unknown(60, 2060)) // may have consumed 4
            .add(Op.failed(61, 62))
            .add(Op.ok(2100, 2110, M, 5))
            // a new minute starts over
            .add(Op.ok(2200, 2210, M + 1, 0))
            .majorityCanTalkAt(1000)
            .room("shop", 10, 10, 0, "")
            .check();
    assertThat(f.violations()).isEmpty();
    assertThat(f.confirmed()).isEqualTo(6);
    assertThat(f.failed()).isEqualTo(1);
    assertThat(f.unknown()).isEqualTo(1);
    assertThat(f.failoverMillis()).isEqualTo(1110);
    assertThat(f.longestGapMillis()).isEqualTo(2060);
    assertThat(f.toString()).contains("failover 1110 ms").contains("10 users holding admission");
  }

  @Test
  void aNumberConfirmedTwiceIsCaught() {
    HistoryChecker.Figures f =
        new HistoryChecker().add(Op.ok(0, 20, M, 7)).add(Op.ok(5, 15, M, 7)).check();
    assertThat(f.violations())
        .anyMatch(v -> v.contains("number 7 of minute " + M + " confirmed twice"));
  }

  /** The same number in two minutes is two numbers. */
  @Test
  void theSameNumberInAnotherMinuteIsNoDuplicate() {
    assertThat(new HistoryChecker().add(Op.ok(0, 1, M, 0)).add(Op.ok(2, 3, M + 1, 0)).check().ok())
        .isTrue();
  }

  /** A new leader that missed the confirmed write hands the confirmed number out again. */
  @Test
  void aNumberReissuedAfterItsConfirmationIsCaught() {
    HistoryChecker.Figures f =
        new HistoryChecker()
            .add(Op.ok(0, 10, M, 4))
            .add(Op.ok(20, 30, M, 5))
            .add(Op.ok(40, 50, M, 5))
            .check();
    assertThat(f.violations())
        .anyMatch(v -> v.contains("then a call invoked at 40 got 5: a confirmed number reissued"));
  }

  /** The counter went back below a confirmed number (that write is gone) without a duplicate. */
  @Test
  void aLostConfirmedWriteIsCaughtEvenWithoutADuplicate() {
    HistoryChecker.Figures f =
        new HistoryChecker()
            .add(Op.ok(0, 10, M, 0))
            .add(Op.ok(20, 30, M, 2)) // 1 went to a call whose reply was lost: fine
            .add(Op.unknown(15, 40))
            .add(Op.ok(50, 60, M, 1)) // 2 was confirmed before this call began
            .check();
    assertThat(f.violations())
        .singleElement()
        .asString()
        .contains("number 2 of minute " + M + " confirmed at 30, then a call invoked at 50 got 1")
        .contains("a confirmed write was lost");
  }

  /** A call that overlaps the confirmation may get a lower number: no real-time order. */
  @Test
  void overlappingCallsMayBeAnsweredInAnyOrder() {
    assertThat(new HistoryChecker().add(Op.ok(0, 100, M, 1)).add(Op.ok(50, 60, M, 0)).check().ok())
        .isTrue();
  }

  @Test
  void aRoomAboveTIsCaughtAndAShareAllowsOnlyItsOwnFigure() {
    assertThat(new HistoryChecker().room("shop", 11, 10, 0, "").check().violations())
        .containsExactly("room shop held 11 users for T = 10");
    assertThat(new HistoryChecker().room("shop", 13, 10, 3, "partial outage").check().ok())
        .isTrue();
    assertThat(new HistoryChecker().room("shop", 14, 10, 3, "partial outage").check().violations())
        .containsExactly("room shop held 14 users for T = 10 and a documented share of 3");
  }

  @Test
  void aFailoverOverThreeSecondsIsCaught() {
    HistoryChecker.Figures f =
        new HistoryChecker()
            .add(Op.ok(0, 10, M, 0))
            .add(Op.failed(1000, 3000))
            .add(Op.ok(1500, 4100, M, 1)) // invoked after the mark, confirmed 3.1 s after it
            .majorityCanTalkAt(1000)
            .check();
    assertThat(f.failoverMillis()).isEqualTo(3100);
    assertThat(f.violations())
        .containsExactly("failover took 3100 ms after the majority could talk (limit 3000 ms)");
    assertThat(f.failoverViolations()).isEqualTo(f.violations());
    assertThat(f.safetyViolations()).isEmpty();
  }

  /**
   * The longest stretch without a confirmation counts from the first call, not the first answer.
   */
  @Test
  void aHistoryThatBeginsWithFailuresCountsThatStretchAsAGap() {
    HistoryChecker.Figures f =
        new HistoryChecker()
            .add(Op.unknown(1000, 3000))
            .add(Op.unknown(3000, 5000))
            .add(Op.ok(5000, 9000, M, 0))
            .add(Op.ok(9000, 9100, M, 1))
            .check();
    assertThat(f.longestGapMillis()).isEqualTo(8000);
  }

  /** Numbers and T are safety, kept apart from the failover's liveness. */
  @Test
  void safetyViolationsLeaveTheFailoverOut() {
    HistoryChecker.Figures f =
        new HistoryChecker()
            .add(Op.ok(0, 10, M, 0))
            .add(Op.ok(20, 30, M, 0))
            .majorityCanTalkAt(40)
            .check();
    assertThat(f.safetyViolations())
        .anyMatch(v -> v.contains("confirmed twice"))
        .anyMatch(v -> v.contains("a confirmed number reissued"))
        .noneMatch(v -> v.startsWith("no call invoked"));
    assertThat(f.failoverViolations()).singleElement().asString().startsWith("no call invoked");
  }

  /** A call invoked before the mark and answered after it does not count as the failover. */
  @Test
  void onlyCallsInvokedAfterTheMarkCountAndNoneAtAllIsAViolation() {
    HistoryChecker.Figures f =
        new HistoryChecker().add(Op.ok(900, 1100, M, 0)).majorityCanTalkAt(1000).check();
    assertThat(f.violations()).singleElement().asString().startsWith("no call invoked after");
  }
}
