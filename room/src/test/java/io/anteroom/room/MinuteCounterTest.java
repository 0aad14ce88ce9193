package io.anteroom.room;

import static org.assertj.core.api.Assertions.assertThat;

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
}
