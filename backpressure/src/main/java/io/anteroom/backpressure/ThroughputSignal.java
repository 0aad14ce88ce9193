package io.anteroom.backpressure;

import java.time.Duration;

/**
 * Which measure of throughput a {@link ThresholdMonitor} compares with its {@code maxQps}.
 *
 * <p>The reference design uses the five-minute moving rate. It is slow: after a step from 0.9x to
 * 1.1x of the threshold it needs about 208 s to cross it (300 s x ln 2), and about 29 s after a
 * step to 2x. The fast signals detect the same steps within seconds; rooms use {@link
 * #TEN_SECOND_WINDOW}.
 */
public enum ThroughputSignal {
  /** The Timer's five-minute exponentially weighted moving rate (the reference design). */
  FIVE_MINUTE_RATE(Duration.ofMinutes(1)),
  /** The Timer's one-minute exponentially weighted moving rate (updated every 5 s). */
  ONE_MINUTE_RATE(Duration.ofMinutes(1)),
  /** Successful operations in the last 10 s divided by 10 s (20 buckets of 500 ms). */
  TEN_SECOND_WINDOW(Duration.ofSeconds(10));

  private final Duration defaultIdleAfter;

  ThroughputSignal(Duration defaultIdleAfter) {
    this.defaultIdleAfter = defaultIdleAfter;
  }

  /**
   * How long without a successful operation makes the operation idle unless configured otherwise.
   */
  Duration defaultIdleAfter() {
    return defaultIdleAfter;
  }
}
