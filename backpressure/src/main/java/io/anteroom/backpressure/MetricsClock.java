package io.anteroom.backpressure;

import com.codahale.metrics.Clock;

/**
 * A Dropwizard {@link Clock} read from a {@link java.time.Clock}, so the Timer's moving rates and
 * reservoir run in the same (possibly virtual) time as the rest of Anteroom. Ticks are nanoseconds
 * since the epoch, which fit a {@code long} until the year 2262.
 */
final class MetricsClock extends Clock {
  private final java.time.Clock clock;

  MetricsClock(java.time.Clock clock) {
    this.clock = clock;
  }

  @Override
  public long getTick() {
    return nanos(clock);
  }

  /**
   * Nanoseconds since the epoch on {@code clock}: the one tick both monitor and controllers use.
   */
  static long nanos(java.time.Clock clock) {
    java.time.Instant now = clock.instant();
    return Math.addExact(Math.multiplyExact(now.getEpochSecond(), 1_000_000_000L), now.getNano());
  }

  @Override
  public long getTime() {
    return clock.millis();
  }
}
