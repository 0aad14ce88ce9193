package io.anteroom.backpressure;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.testkit.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

class ControllerPropertiesTest {

  @Property(tries = 200)
  void anySequenceOfRepliesKeepsTheIntervalWithinTheClamps(
      @ForAll @Size(max = 200) List<Boolean> throttles,
      @ForAll @Size(max = 200) List<@IntRange(min = 0, max = 600_000) Integer> gapsMillis) {
    ManualClock clock = new ManualClock();
    Duration min = Duration.ofMillis(500);
    Duration max = Duration.ofSeconds(90);
    List<RateController> controllers =
        List.of(
            AimdRateController.builder()
                .minInterval(min)
                .maxInterval(max)
                .clock(clock)
                .random(new Random(1))
                .build(),
            IntervalRuleController.builder()
                .minInterval(min)
                .maxInterval(max)
                .random(new Random(1))
                .build());
    for (int i = 0; i < throttles.size(); i++) {
      clock.advance(
          Duration.ofMillis(gapsMillis.isEmpty() ? 0 : gapsMillis.get(i % gapsMillis.size())));
      for (RateController c : controllers) {
        c.onResponse(throttles.get(i));
        assertThat(c.interval()).isBetween(min, max);
        assertThat(c.nextDelay()).isBetween(min, max);
      }
    }
  }

  @Property(tries = 200)
  void aThrottledReplyNeverSpeedsAClientUpAndAnUnthrottledOneNeverSlowsItDown(
      @ForAll @Size(max = 100) List<Boolean> throttles,
      @ForAll @IntRange(min = 0, max = 120_000) int gapMillis) {
    ManualClock clock = new ManualClock();
    List<RateController> controllers =
        List.of(
            AimdRateController.builder().clock(clock).build(),
            IntervalRuleController.builder().build());
    for (boolean throttle : throttles) {
      clock.advance(Duration.ofMillis(gapMillis));
      for (RateController c : controllers) {
        Duration before = c.interval();
        c.onResponse(throttle);
        if (throttle) {
          assertThat(c.interval()).isGreaterThanOrEqualTo(before);
        } else {
          assertThat(c.interval()).isLessThanOrEqualTo(before);
        }
      }
    }
  }
}
