package io.anteroom.backpressure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.anteroom.testkit.ManualClock;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ThresholdMonitorTest {
  private final ManualClock clock = new ManualClock();

  private ThresholdMonitor monitor(ThroughputSignal signal, double maxQps) {
    return ThresholdMonitor.builder().maxQps(maxQps).signal(signal).clock(clock).build();
  }

  /** Records evenly spaced successes at {@code qps} for {@code seconds}, each taking 10 ms. */
  private void feed(ThresholdMonitor m, double qps, double seconds) {
    run(m, qps, seconds, false);
  }

  /**
   * Feeds {@code qps} until the monitor says exceeded; returns the seconds it took (or -1 after
   * {@code limit}).
   */
  private double secondsUntilExceeded(ThresholdMonitor m, double qps, double limitSeconds) {
    return run(m, qps, limitSeconds, true);
  }

  private double run(ThresholdMonitor m, double qps, double seconds, boolean stopWhenExceeded) {
    long gapNanos = Math.round(1e9 / qps);
    for (long i = 1; i <= Math.round(qps * seconds); i++) {
      clock.advance(Duration.ofNanos(gapNanos));
      m.record(Duration.ofMillis(10));
      if (stopWhenExceeded && m.thresholdExceeded()) {
        return i * gapNanos / 1e9;
      }
    }
    return -1;
  }

  @Test
  void fiveMinuteRateTakesAbout208SecondsToCrossAfterAStepFrom0_9To1_1OfTheThreshold() {
    ThresholdMonitor m = monitor(ThroughputSignal.FIVE_MINUTE_RATE, 100);
    feed(m, 90, 1800);
    assertThat(m.thresholdExceeded()).isFalse();
    // 110 - 20 e^(-t/300) > 100  <=>  t > 300 ln 2 = 208 s (the rate is updated every 5 s)
    assertThat(secondsUntilExceeded(m, 110, 400)).isBetween(205.0, 215.0);
  }

  @Test
  void tenSecondWindowDetectsTheSameSmallStepWithinTenSeconds() {
    ThresholdMonitor m = monitor(ThroughputSignal.TEN_SECOND_WINDOW, 100);
    feed(m, 90, 600);
    assertThat(m.thresholdExceeded()).isFalse();
    assertThat(secondsUntilExceeded(m, 110, 400)).isBetween(0.0, 10.0);
  }

  @Test
  void aStepToTwiceTheThresholdTakesHalfAMinuteOnTheFiveMinuteRateAndSecondsOnTheFastSignals() {
    ThresholdMonitor slow = monitor(ThroughputSignal.FIVE_MINUTE_RATE, 100);
    feed(slow, 90, 1800);
    // 200 - 110 e^(-t/300) > 100  <=>  t > 300 ln 1.1 = 28.6 s
    assertThat(secondsUntilExceeded(slow, 200, 400)).isBetween(25.0, 35.0);

    ThresholdMonitor oneMinute = monitor(ThroughputSignal.ONE_MINUTE_RATE, 100);
    feed(oneMinute, 90, 1800);
    // 60 ln 1.1 = 5.7 s, then up to one 5 s tick of the EWMA: it can miss the 10 s target
    assertThat(secondsUntilExceeded(oneMinute, 200, 400)).isBetween(5.0, 11.0);

    ThresholdMonitor window = monitor(ThroughputSignal.TEN_SECOND_WINDOW, 100);
    feed(window, 90, 1800);
    assertThat(secondsUntilExceeded(window, 200, 400)).isBetween(0.0, 2.0);
  }

  @Test
  void throughputIsPerSecondOnEverySignal() {
    for (ThroughputSignal s : ThroughputSignal.values()) {
      ThresholdMonitor m = monitor(s, 1000);
      feed(m, 50, 3600);
      assertThat(m.throughput())
          .as(s.name())
          .isCloseTo(50.0, org.assertj.core.data.Offset.offset(3.0));
    }
  }

  @Test
  void anIdleOperationIsNotExceededAlthoughItsMedianStaysFrozen() {
    ThresholdMonitor m =
        ThresholdMonitor.builder().maxLatency(Duration.ofMillis(500)).clock(clock).build();
    assertThat(m.isIdle()).as("nothing recorded yet").isTrue();
    for (int i = 0; i < 20; i++) {
      clock.advance(Duration.ofSeconds(1));
      m.record(Duration.ofSeconds(1));
    }
    assertThat(m.thresholdExceeded()).isTrue();

    clock.advance(Duration.ofMinutes(2));

    assertThat(m.medianLatency())
        .as("the snapshot does not move without traffic")
        .isEqualTo(Duration.ofSeconds(1));
    assertThat(m.isIdle()).isTrue();
    assertThat(m.thresholdExceeded()).isFalse();
  }

  @Test
  void idleAfterIsConfigurable() {
    ThresholdMonitor m =
        ThresholdMonitor.builder()
            .maxQps(0.01)
            .idleAfter(Duration.ofSeconds(3))
            .clock(clock)
            .build();
    m.record(Duration.ofMillis(1));
    clock.advance(Duration.ofSeconds(3));
    assertThat(m.isIdle()).isFalse();
    clock.advance(Duration.ofMillis(1));
    assertThat(m.isIdle()).isTrue();
  }

  @Test
  void medianLatencyAboveTheThresholdIsExceededAndBelowIsNot() {
    ThresholdMonitor m =
        ThresholdMonitor.builder().maxLatency(Duration.ofMillis(500)).clock(clock).build();
    for (int i = 0; i < 99; i++) {
      clock.advance(Duration.ofMillis(100));
      m.record(Duration.ofMillis(i % 3 == 0 ? 900 : 200));
    }
    assertThat(m.medianLatency()).isEqualTo(Duration.ofMillis(200));
    assertThat(m.thresholdExceeded()).isFalse();
    for (int i = 0; i < 200; i++) {
      clock.advance(Duration.ofMillis(100));
      m.record(Duration.ofMillis(900));
    }
    assertThat(m.thresholdExceeded()).isTrue();
  }

  @Test
  void failedOperationsAreNotRecorded() {
    ThresholdMonitor m = monitor(ThroughputSignal.TEN_SECOND_WINDOW, 100);
    assertThatThrownBy(
            () ->
                m.time(
                    () -> {
                      throw new IOException("database down");
                    }))
        .isInstanceOf(IOException.class)
        .hasMessage("database down");
    m.start().failed();
    m.recordFailure();

    assertThat(m.timer().getCount()).isZero();
    assertThat(m.throughput()).isZero();
    assertThat(m.failureCount()).isEqualTo(3);
  }

  @Test
  void successfulOperationsAreTimedOnTheInjectedClock() throws Exception {
    ThresholdMonitor m = monitor(ThroughputSignal.TEN_SECOND_WINDOW, 100);
    String result =
        m.time(
            () -> {
              clock.advance(Duration.ofMillis(250));
              return "saved";
            });
    ThresholdMonitor.Sample sample = m.start();
    clock.advance(Duration.ofMillis(250));
    sample.succeeded();

    assertThat(result).isEqualTo("saved");
    assertThat(m.timer().getCount()).isEqualTo(2);
    assertThat(m.medianLatency()).isEqualTo(Duration.ofMillis(250));
    assertThat(m.failureCount()).isZero();
  }

  @Test
  void aSampleIsRecordedAtMostOnce() {
    ThresholdMonitor m = monitor(ThroughputSignal.TEN_SECOND_WINDOW, 100);
    ThresholdMonitor.Sample sample = m.start();
    sample.succeeded();
    assertThatThrownBy(sample::failed)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("once");
    assertThat(m.timer().getCount()).isEqualTo(1);
  }

  @Test
  void theBudgetIsDividedByTheInstancesSharingIt() {
    // the reference experiment: 6 QPS across three instances is 2 QPS each
    ThresholdMonitor m =
        ThresholdMonitor.builder()
            .maxQps(6)
            .instances(3)
            .signal(ThroughputSignal.TEN_SECOND_WINDOW)
            .clock(clock)
            .build();
    assertThat(m.effectiveMaxQps()).isEqualTo(2.0);
    feed(m, 3, 60);
    assertThat(m.thresholdExceeded()).isTrue();

    m.setInstances(1);
    assertThat(m.effectiveMaxQps()).isEqualTo(6.0);
    assertThat(m.thresholdExceeded()).isFalse();
  }

  @Test
  void thresholdsChangeAtRunTime() {
    ThresholdMonitor m = monitor(ThroughputSignal.TEN_SECOND_WINDOW, 100);
    feed(m, 14, 60);
    assertThat(m.thresholdExceeded()).isFalse();

    m.setMaxQps(6);
    assertThat(m.thresholdExceeded()).isTrue();

    m.removeMaxQps();
    assertThat(m.effectiveMaxQps()).isInfinite();
    assertThat(m.thresholdExceeded()).isFalse();

    m.setMaxLatency(Duration.ofMillis(5));
    assertThat(m.thresholdExceeded()).as("10 ms median over 5 ms").isTrue();
    m.removeMaxLatency();
    assertThat(m.thresholdExceeded()).isFalse();
  }

  @Test
  void invalidThresholdsAreRefusedWithTheAllowedRange() {
    ThresholdMonitor m = monitor(ThroughputSignal.TEN_SECOND_WINDOW, 100);
    assertThatThrownBy(() -> m.setMaxQps(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxQps must be a finite number > 0")
        .hasMessageContaining("removeMaxQps");
    assertThatThrownBy(() -> m.setInstances(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("instances sharing the budget must be >= 1, got 0");
    assertThatThrownBy(() -> m.setMaxLatency(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxLatency must be > 0");
    assertThatThrownBy(() -> m.record(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("duration must be >= 0");
    assertThatThrownBy(() -> ThresholdMonitor.builder().maxQps(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void successesRecordedFromManyThreadsAreAllCounted() throws Exception {
    ThresholdMonitor m =
        ThresholdMonitor.builder()
            .maxQps(1_000_000)
            .signal(ThroughputSignal.TEN_SECOND_WINDOW)
            .build();
    try (java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(4)) {
      java.util.List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
      for (int t = 0; t < 4; t++) {
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 2_500; i++) {
                    m.record(Duration.ofMillis(1));
                    m.thresholdExceeded();
                  }
                }));
      }
      for (java.util.concurrent.Future<?> f : done) {
        f.get();
      }
    }
    assertThat(m.timer().getCount()).isEqualTo(10_000);
    assertThat(m.isIdle()).isFalse();
  }
}
