package io.anteroom.backpressure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class SynchronizedRateControllerTest {

  @Test
  void repliesFromManyThreadsAreAppliedOneAtATimeWithoutLosingAny() throws Exception {
    // 8 threads x 1000 unthrottled replies, step 1 ms: all 8000 steps must land
    RateController shared =
        RateController.synchronizedController(
            IntervalRuleController.builder()
                .jitter(0)
                .step(Duration.ofMillis(1))
                .minInterval(Duration.ofMillis(1))
                .maxInterval(Duration.ofSeconds(10))
                .initialInterval(Duration.ofSeconds(10))
                .build());
    try (ExecutorService pool = Executors.newFixedThreadPool(8)) {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 1000; i++) {
                    shared.onResponse(false);
                    shared.nextDelay();
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    }
    assertThat(shared.interval()).isEqualTo(Duration.ofSeconds(2));
  }
}
