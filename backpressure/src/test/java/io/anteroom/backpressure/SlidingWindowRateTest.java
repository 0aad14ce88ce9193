package io.anteroom.backpressure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SlidingWindowRateTest {
  private static final long SECOND = 1_000_000_000L;

  @Test
  void countsOnlyTheEventsOfTheLastWindow() {
    SlidingWindowRate w = new SlidingWindowRate(10 * SECOND, 10);
    for (int s = 0; s < 10; s++) {
      w.mark(s * SECOND);
      w.mark(s * SECOND + SECOND / 2);
    }
    assertThat(w.ratePerSecond(9 * SECOND + SECOND / 2)).isEqualTo(2.0);
    // at 15 s the buckets of seconds 0..5 have left the window: 4 seconds x 2 events remain
    assertThat(w.ratePerSecond(15 * SECOND)).isEqualTo(0.8);
    assertThat(w.ratePerSecond(100 * SECOND)).isZero();
  }

  @Test
  void aReusedSlotForgetsItsOldCount() {
    SlidingWindowRate w = new SlidingWindowRate(10 * SECOND, 10);
    for (int i = 0; i < 100; i++) {
      w.mark(3 * SECOND);
    }
    w.mark(13 * SECOND);
    assertThat(w.ratePerSecond(13 * SECOND)).isEqualTo(0.1);
  }

  @Test
  void needsAtLeastOneBucket() {
    assertThatThrownBy(() -> new SlidingWindowRate(SECOND, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one bucket");
  }
}
