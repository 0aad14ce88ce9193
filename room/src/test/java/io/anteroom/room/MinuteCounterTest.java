package io.anteroom.room;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class MinuteCounterTest {

  @Test
  void takeConsumesANumberOnlyWhenItGrants() {
    MinuteCounter c = new MinuteCounter(Rules.spec());

    assertThat(c.take(5, 2)).isEqualTo(new Grant(5, 0, true));
    assertThat(c.take(5, 2)).isEqualTo(new Grant(5, 1, true));
    assertThat(c.take(5, 2)).isEqualTo(new Grant(5, 2, false));
    assertThat(c.take(5, 3)).isEqualTo(new Grant(5, 2, true));
    assertThat(c.consumed(5)).isEqualTo(3);
  }

  @Test
  void publishedCounterConsumesANumberOnEveryCall() {
    MinuteCounter c = new MinuteCounter(Rules.published());

    c.take(5, 1);
    assertThat(c.take(5, 1).granted()).isFalse();
    assertThat(c.take(5, 3)).isEqualTo(new Grant(5, 2, true));
  }

  @Test
  void numbersRestartEveryMinuteAndAPastMinuteIsRefusedWithoutConsuming() {
    MinuteCounter c = new MinuteCounter(Rules.spec());
    c.take(5, 10);
    c.take(5, 10);

    assertThat(c.take(6, 10)).isEqualTo(new Grant(6, 0, true));
    assertThat(c.take(5, 10).granted()).isFalse();
    assertThat(c.consumed(6)).isEqualTo(1);
  }

  @Test
  void restoreNeverMovesACounterBack() {
    MinuteCounter c = new MinuteCounter(Rules.spec());
    c.take(7, 10);
    c.take(7, 10);
    c.restore(7, 1);
    assertThat(c.consumed(7)).isEqualTo(2);
    c.restore(7, 4);
    assertThat(c.consumed(7)).isEqualTo(4);
  }

  @Test
  void aChargeSpendsTheNumbersLeftUnderTheLimitAndReturnsTheRest() {
    MinuteCounter c = new MinuteCounter(Rules.spec());
    c.take(5, 10);

    assertThat(c.charge(5, 3, 10)).as("all three fit under 10").isZero();
    assertThat(c.consumed(5)).isEqualTo(4);
    assertThat(c.charge(5, 8, 10)).as("six fit, two are left for the next counter").isEqualTo(2);
    assertThat(c.consumed(5)).isEqualTo(10);
    assertThat(c.take(5, 10).granted()).as("the charged slots are not granted again").isFalse();
    assertThat(c.charge(5, 5, Long.MAX_VALUE)).as("an unlimited counter takes all").isZero();
    assertThat(c.consumed(5)).isEqualTo(15);
  }

  @Test
  void aChargeForANewMinuteStartsItAndOneForAnOverMinuteIsDropped() {
    MinuteCounter c = new MinuteCounter(Rules.spec());
    c.take(5, 10);

    assertThat(c.charge(6, 2, 10)).isZero();
    assertThat(c.consumed(6)).isEqualTo(2);
    assertThat(c.take(6, 3)).isEqualTo(new Grant(6, 2, true));
    assertThat(c.charge(5, 4, 10)).as("minute 5 is over").isZero();
    assertThat(c.consumed(6)).isEqualTo(3);
  }

  /** An instant {@code seconds} into minute {@code minute}. */
  private static Instant in(long minute, double seconds) {
    return Minutes.startOf(minute).plusMillis((long) (seconds * 1000));
  }

  @Test
  void aDrawCountsThePreviousMinutesNumbersConsumedSinceItsCarriedSinceAgainstItsLimit() {
    MinuteCounter c = new MinuteCounter(Rules.spec());
    for (int i = 0; i < 3; i++) {
      c.take(5, 100, null, in(5, 20));
    }
    c.take(5, 100, null, in(5, 50.5));
    c.take(5, 100, null, in(5, 58));

    // a pool from a state of 5:58, W = 15 s: it may miss what was consumed from 5:43 on (two)
    assertThat(c.take(6, 3, in(5, 43), in(6, 1))).isEqualTo(new Grant(6, 0, true, 2));
    assertThat(c.take(6, 3, in(5, 43), in(6, 1)))
        .as("1 of the minute and 2 carried reach the limit")
        .isEqualTo(new Grant(6, 1, false, 2));
    // the second a number was consumed in counts whole: 5:50.5 is carried from 5:50.9, not 5:51
    assertThat(c.take(6, 10, in(5, 50.9), in(6, 2)).carried()).isEqualTo(2);
    assertThat(c.take(6, 10, in(5, 51), in(6, 2)).carried()).isEqualTo(1);
    assertThat(c.take(6, 10, in(4, 59), in(6, 2)).carried())
        .as("a state from before the minute: all of it")
        .isEqualTo(5);
    assertThat(c.take(6, 10, in(6, 0), in(6, 20)).carried())
        .as("a state W into the minute counts everything before it")
        .isZero();
    assertThat(c.take(6, 10, null, in(6, 20)).carried()).as("nothing asked").isZero();
  }

  @Test
  void aSkippedMinuteCarriesNothingAndTheMinuteBeforeIsForgotten() {
    MinuteCounter c = new MinuteCounter(Rules.spec());
    c.take(5, 100, null, in(5, 59));
    c.take(6, 100, null, in(6, 10));

    assertThat(c.take(8, 10, in(6, 0), in(8, 1)).carried()).isZero();
  }

  @Test
  void restoredAndChargedNumbersAreCarriedAsConsumedWhenTheCounterLearnedOfThem() {
    MinuteCounter c = new MinuteCounter(Rules.spec());
    c.restore(5, 4, in(5, 57)); // a restart at 5:57: consumed then or before
    c.charge(5, 2, 100, in(5, 59)); // admissions made without the coordinator, charged at 5:59

    assertThat(c.take(6, 100, in(5, 50), in(6, 1)).carried()).isEqualTo(6);
    assertThat(c.take(6, 100, in(5, 58), in(6, 1)).carried()).isEqualTo(2);
  }

  @Test
  void aRestoredSnapshotCarriesExactlyWhatTheCounterWouldHave() {
    MinuteCounter c = new MinuteCounter(Rules.spec());
    c.take(5, 100, null, in(5, 20));
    c.take(5, 100, null, in(5, 58));
    MinuteCounter restored = new MinuteCounter(Rules.spec());
    restored.restore(c.snapshot(), in(6, 1));

    assertThat(restored.take(6, 100, in(5, 44), in(6, 1)))
        .isEqualTo(c.take(6, 100, in(5, 44), in(6, 1)))
        .isEqualTo(new Grant(6, 0, true, 1));
  }

  @Test
  void aSnapshotSavedBeforeCountersCarriedRestoresItsNumbersAsConsumedAtTheRestart() {
    MinuteCounter c = new MinuteCounter(Rules.spec());
    c.restore(new MinuteCounter.Snapshot(5, 3, null, null), in(6, 1));

    assertThat(c.consumed(5)).isEqualTo(3);
    assertThat(c.take(6, 100, in(5, 59), in(6, 1)).carried())
        .as("restored after its minute: carried as if consumed at its last second")
        .isEqualTo(3);
  }

  @Test
  void aDamagedSnapshotRestoresItsNumbersAsConsumedAtTheRestartAndCarriesNoNegativeCount() {
    long[] negative = new long[60];
    negative[58] = -5; // would carry -5: five numbers more than the limit allows
    long[] tooMany = new long[60];
    tooMany[10] = 9; // per-second counts that do not add up to the minute's count
    MinuteCounter a = new MinuteCounter(Rules.spec());
    a.restore(new MinuteCounter.Snapshot(5, 3, new long[60], negative), in(5, 30));
    MinuteCounter b = new MinuteCounter(Rules.spec());
    b.restore(new MinuteCounter.Snapshot(5, 3, tooMany, new long[60]), in(5, 30));

    assertThat(a.consumed(5)).isEqualTo(3);
    assertThat(a.take(6, 100, in(5, 0), in(6, 1)).carried())
        .as("the 3 numbers, carried from the restart")
        .isEqualTo(3);
    assertThat(b.take(6, 100, in(5, 0), in(6, 1)).carried()).isEqualTo(3);
  }

  @Test
  void aNumberConsumedAfterItsMinuteEndedIsCarriedFromTheMinutesLastSecond() {
    MinuteCounter c = new MinuteCounter(Rules.spec());
    c.take(5, 100, null, in(5, 10));
    c.take(5, 100, null, in(6, 0.3)); // a call for minute 5 answered at 6:00.3

    assertThat(c.take(6, 100, in(5, 59), in(6, 1)).carried()).isEqualTo(1);
  }
}
