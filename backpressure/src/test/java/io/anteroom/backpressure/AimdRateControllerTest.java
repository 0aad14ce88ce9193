package io.anteroom.backpressure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.anteroom.testkit.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class AimdRateControllerTest {
  private final ManualClock clock = new ManualClock();

  private AimdRateController.Builder noJitter() {
    return AimdRateController.builder()
        .jitter(0)
        .clock(clock)
        .minInterval(Duration.ofSeconds(1))
        .maxInterval(Duration.ofSeconds(100));
  }

  @Test
  void aThrottledReplyMultipliesTheRateByBeta() {
    AimdRateController c = noJitter().initialInterval(Duration.ofSeconds(4)).build();
    clock.advance(Duration.ofSeconds(4));
    c.onResponse(true);
    assertThat(c.interval()).isEqualTo(Duration.ofSeconds(8));
    assertThat(c.rate()).isEqualTo(0.125);
  }

  @Test
  void theRateDecreasesAtMostOncePerInterval() {
    AimdRateController c = noJitter().initialInterval(Duration.ofSeconds(4)).build();
    clock.advance(Duration.ofSeconds(4));
    c.onResponse(true);
    // a burst of throttled replies within the 4 s interval in force before the decrease counts once
    for (int i = 0; i < 5; i++) {
      clock.advance(Duration.ofMillis(700));
      c.onResponse(true);
    }
    assertThat(c.interval()).isEqualTo(Duration.ofSeconds(8));

    clock.advance(Duration.ofMillis(500)); // 4 s since the decrease
    c.onResponse(true);
    assertThat(c.interval()).isEqualTo(Duration.ofSeconds(16));
  }

  @Test
  void anUnthrottledReplyAddsTheIncreaseTimesTheElapsedTime() {
    AimdRateController c =
        noJitter().initialInterval(Duration.ofSeconds(10)).increasePerSecond(0.01).build();
    clock.advance(Duration.ofSeconds(10));
    c.onResponse(false);
    assertThat(c.rate()).isCloseTo(0.1 + 0.01 * 10, within(1e-9));

    // the gain depends on elapsed time, not on the number of replies
    AimdRateController chatty =
        noJitter().initialInterval(Duration.ofSeconds(10)).increasePerSecond(0.01).build();
    for (int i = 0; i < 10; i++) {
      clock.advance(Duration.ofSeconds(1));
      chatty.onResponse(false);
    }
    assertThat(chatty.rate()).isCloseTo(0.2, within(1e-9));
  }

  @Test
  void ignoredThrottledRepliesDoNotCountAsIncreaseTime() {
    AimdRateController c =
        noJitter().initialInterval(Duration.ofSeconds(2)).increasePerSecond(0.01).build();
    clock.advance(Duration.ofSeconds(2));
    c.onResponse(true); // rate 0.25
    clock.advance(Duration.ofSeconds(1));
    c.onResponse(true); // held: no change
    clock.advance(Duration.ofSeconds(1));
    c.onResponse(false); // only 1 s of increase since the last reply
    assertThat(c.rate()).isCloseTo(0.26, within(1e-9));
  }

  @Test
  void theIntervalStaysWithinItsClamps() {
    AimdRateController c = noJitter().initialInterval(Duration.ofSeconds(60)).build();
    for (int i = 0; i < 10; i++) {
      clock.advance(Duration.ofMinutes(5));
      c.onResponse(true);
    }
    assertThat(c.interval()).isEqualTo(Duration.ofSeconds(100));
    clock.advance(Duration.ofHours(1));
    c.onResponse(false);
    assertThat(c.interval()).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void differencesBetweenClientsHalveAtEveryDecrease() {
    AimdRateController a = noJitter().initialInterval(Duration.ofSeconds(2)).build();
    AimdRateController b = noJitter().initialInterval(Duration.ofSeconds(10)).build();
    double gap = a.rate() - b.rate();
    for (int epoch = 0; epoch < 3; epoch++) {
      clock.advance(Duration.ofSeconds(20));
      a.onResponse(false);
      b.onResponse(false);
      assertThat(a.rate() - b.rate())
          .as("additive increase keeps the gap")
          .isCloseTo(gap, within(1e-9));
      clock.advance(Duration.ofSeconds(20));
      a.onResponse(true);
      b.onResponse(true);
      gap /= 2;
      assertThat(a.rate() - b.rate()).isCloseTo(gap, within(1e-9));
    }
  }

  @Test
  void badSettingsAreRefusedWithWhatIsAllowed() {
    assertThatThrownBy(() -> AimdRateController.builder().beta(1))
        .hasMessageContaining("beta must be in (0, 1), got 1.0");
    assertThatThrownBy(() -> AimdRateController.builder().increasePerSecond(-1))
        .hasMessageContaining("increasePerSecond must be a finite number > 0");
    assertThatThrownBy(() -> AimdRateController.builder().jitter(1).build())
        .hasMessageContaining("AimdRateController: jitter must be a fraction in [0, 1)");
  }
}
