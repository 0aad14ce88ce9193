package io.anteroom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class JitWarmUpTest {
  private final JitWarmUp warmUp =
      new JitWarmUp(Duration.ofSeconds(30), Duration.ofSeconds(180), Duration.ofSeconds(5), 0.05);

  @Test
  void aQuietJitEndsTheWarmUpOnlyAfterTheMinimum() {
    assertThat(warmUp.done(Duration.ofSeconds(25), 0)).isFalse();
    assertThat(warmUp.done(Duration.ofSeconds(30), 0)).isTrue();
  }

  @Test
  void aBusyJitKeepsItWarmingUntilTheMaximum() {
    // 5 % of a 5 s slice is 250 ms of compilation
    assertThat(warmUp.done(Duration.ofSeconds(60), 250)).isFalse();
    assertThat(warmUp.done(Duration.ofSeconds(60), 249)).isTrue();
    assertThat(warmUp.done(Duration.ofSeconds(180), 3_000)).isTrue();
  }

  @Test
  void boundsThatCannotHoldAreRefused() {
    assertThatThrownBy(
            () ->
                new JitWarmUp(
                    Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofSeconds(5), 0.05))
        .hasMessageContaining("min <= max");
    assertThatThrownBy(
            () -> new JitWarmUp(Duration.ZERO, Duration.ZERO, Duration.ofSeconds(5), 1.5))
        .hasMessageContaining("quiet share");
  }
}
