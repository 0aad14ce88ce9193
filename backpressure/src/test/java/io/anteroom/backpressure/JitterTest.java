package io.anteroom.backpressure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class JitterTest {

  private static List<RateController> controllers(double jitter, Duration initial, long seed) {
    return List.of(
        IntervalRuleController.builder()
            .jitter(jitter)
            .initialInterval(initial)
            .random(new Random(seed))
            .build(),
        AimdRateController.builder()
            .jitter(jitter)
            .initialInterval(initial)
            .random(new Random(seed))
            .build());
  }

  @Property(tries = 200)
  void everyDelayIsWithinTheJitterOfTheIntervalAndWithinTheClamps(
      @ForAll @DoubleRange(min = 0, max = 0.9) double jitter,
      @ForAll @LongRange(min = 100, max = 120_000) long initialMillis,
      @ForAll long seed) {
    for (RateController c : controllers(jitter, Duration.ofMillis(initialMillis), seed)) {
      double interval = c.interval().toNanos();
      for (int i = 0; i < 20; i++) {
        long delay = c.nextDelay().toNanos();
        assertThat(delay)
            .isBetween(Duration.ofSeconds(1).toNanos(), Duration.ofSeconds(60).toNanos());
        assertThat((double) delay)
            .isBetween(interval * (1 - jitter) - 1, interval * (1 + jitter) + 1);
      }
    }
  }

  @Test
  void jitterSpreadsTheDelaysAndZeroJitterDoesNot() {
    for (RateController c : controllers(0.1, Duration.ofSeconds(10), 7)) {
      Set<Duration> seen = new HashSet<>();
      for (int i = 0; i < 50; i++) {
        seen.add(c.nextDelay());
      }
      assertThat(seen).hasSizeGreaterThan(40);
    }
    for (RateController c : controllers(0, Duration.ofSeconds(10), 7)) {
      assertThat(c.nextDelay()).isEqualTo(Duration.ofSeconds(10));
    }
  }

  @Test
  void theSameSeedGivesTheSameDelays() {
    List<RateController> first = controllers(0.2, Duration.ofSeconds(10), 42);
    List<RateController> second = controllers(0.2, Duration.ofSeconds(10), 42);
    for (int k = 0; k < first.size(); k++) {
      for (int i = 0; i < 10; i++) {
        assertThat(first.get(k).nextDelay()).isEqualTo(second.get(k).nextDelay());
      }
    }
  }
}
