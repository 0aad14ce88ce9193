package io.anteroom.backpressure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class IntervalRuleControllerTest {

  private static IntervalRuleController.Builder noJitter() {
    return IntervalRuleController.builder()
        .jitter(0)
        .minInterval(Duration.ofSeconds(1))
        .maxInterval(Duration.ofSeconds(60));
  }

  @Test
  void aThrottledReplyDoublesTheInterval() {
    IntervalRuleController c = noJitter().initialInterval(Duration.ofSeconds(5)).build();
    c.onResponse(true);
    assertThat(c.interval()).isEqualTo(Duration.ofSeconds(10));
    c.onResponse(true);
    assertThat(c.interval()).isEqualTo(Duration.ofSeconds(20));
  }

  @Test
  void anUnthrottledReplyShrinksTheIntervalByTheStepOfOneSecondByDefault() {
    IntervalRuleController c = noJitter().initialInterval(Duration.ofSeconds(5)).build();
    c.onResponse(false);
    assertThat(c.interval()).isEqualTo(Duration.ofSeconds(4));
    assertThat(c.rate()).isEqualTo(0.25);
  }

  @Test
  void theIntervalStaysWithinItsClamps() {
    IntervalRuleController c = noJitter().initialInterval(Duration.ofSeconds(40)).build();
    c.onResponse(true);
    assertThat(c.interval()).isEqualTo(Duration.ofSeconds(60));
    for (int i = 0; i < 100; i++) {
      c.onResponse(false);
    }
    assertThat(c.interval()).isEqualTo(Duration.ofSeconds(1));
    assertThat(noJitter().initialInterval(Duration.ofHours(1)).build().interval())
        .isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void theFixedStepSpeedsUpFastClientsMoreThanSlowOnes() {
    // the rate gain of one step is about step x rate^2: the root of the rule's unfairness
    IntervalRuleController fast = noJitter().initialInterval(Duration.ofSeconds(2)).build();
    IntervalRuleController slow = noJitter().initialInterval(Duration.ofSeconds(20)).build();
    double fastBefore = fast.rate();
    double slowBefore = slow.rate();
    fast.onResponse(false);
    slow.onResponse(false);
    assertThat(fast.rate() - fastBefore).isGreaterThan(50 * (slow.rate() - slowBefore));
  }

  @Test
  void theStepAndBackoffFactorAreConfigurable() {
    IntervalRuleController c =
        noJitter()
            .initialInterval(Duration.ofSeconds(10))
            .step(Duration.ofMillis(500))
            .backoffFactor(3)
            .build();
    c.onResponse(false);
    assertThat(c.interval()).isEqualTo(Duration.ofMillis(9500));
    c.onResponse(true);
    assertThat(c.interval()).isEqualTo(Duration.ofMillis(28500));
  }

  @Test
  void badSettingsAreRefusedWithWhatIsAllowed() {
    assertThatThrownBy(() -> IntervalRuleController.builder().step(Duration.ZERO))
        .hasMessageContaining("step must be > 0");
    assertThatThrownBy(() -> IntervalRuleController.builder().backoffFactor(1))
        .hasMessageContaining("backoffFactor must be a finite number > 1");
    assertThatThrownBy(
            () ->
                IntervalRuleController.builder()
                    .minInterval(Duration.ofSeconds(10))
                    .maxInterval(Duration.ofSeconds(5))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("IntervalRuleController: need 0 < minInterval <= maxInterval");
  }
}
