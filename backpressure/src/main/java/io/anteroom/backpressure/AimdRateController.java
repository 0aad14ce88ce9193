package io.anteroom.backpressure;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * Additive increase, multiplicative decrease in rate space (Chiu &amp; Jain 1989), the default
 * controller. With rate {@code r = 1 / interval}:
 *
 * <ul>
 *   <li>on a throttled reply {@code r <- r x beta} (beta = 0.5), at most once per interval: after a
 *       decrease, throttled replies are ignored until the interval in force before it has passed,
 *       so a burst of throttled replies counts once;
 *   <li>on an unthrottled reply {@code r <- r + a x elapsed}, elapsed being the time since the
 *       previous reply, so the rate grows by {@code a} per second whatever the polling pace;
 *   <li>the interval stays in {@code [minInterval, maxInterval]}.
 * </ul>
 *
 * <p>Because every client adds the same amount and multiplies by the same factor, the differences
 * between clients shrink by {@code beta} at every decrease and the clients converge to equal rates.
 *
 * <pre>{@code
 * RateController pace = AimdRateController.builder()
 *         .increasePerSecond(0.01)            // +0.01 req/s every second without throttle
 *         .clock(clock)
 *         .build();
 * }</pre>
 *
 * <p>Not thread-safe: one controller per client loop.
 */
public final class AimdRateController implements RateController {
  private final Pacing pacing;
  private final Clock clock;
  private final double beta;
  private final double increasePerSecond;
  private double intervalSeconds;
  private long lastReplyNanos;
  private long decreaseHeldUntilNanos = Long.MIN_VALUE;

  private AimdRateController(Builder b) {
    this.pacing = b.pacing("AimdRateController");
    this.clock = b.clock;
    this.beta = b.beta;
    this.increasePerSecond = b.increasePerSecond;
    this.intervalSeconds = b.initialSeconds(pacing);
    this.lastReplyNanos = nowNanos();
  }

  /**
   * A builder with the defaults: beta 0.5, increase 0.01 req/s per second (from one request a
   * minute to one a second in about 98 s), interval in [1 s, 60 s] starting at 1 s, jitter 10%, the
   * system UTC clock.
   */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public void onResponse(boolean throttle) {
    long now = nowNanos();
    double elapsedSeconds = Math.max(0, now - lastReplyNanos) / 1e9;
    lastReplyNanos = now;
    double rate = 1 / intervalSeconds;
    if (throttle) {
      if (now < decreaseHeldUntilNanos) {
        return;
      }
      decreaseHeldUntilNanos = now + Math.round(intervalSeconds * 1e9);
      rate *= beta;
    } else {
      rate += increasePerSecond * elapsedSeconds;
    }
    intervalSeconds = pacing.clamp(1 / rate);
  }

  @Override
  public Duration nextDelay() {
    return pacing.jittered(intervalSeconds);
  }

  @Override
  public Duration interval() {
    return Pacing.duration(intervalSeconds);
  }

  private long nowNanos() {
    return MetricsClock.nanos(clock);
  }

  @Override
  public String toString() {
    return "AimdRateController[interval=" + interval() + "]";
  }

  /** Builds an {@link AimdRateController}; see {@link #builder()} for the defaults. */
  public static final class Builder extends Pacing.Settings<Builder> {
    private double beta = 0.5;
    private double increasePerSecond = 0.01;
    private Clock clock = Clock.systemUTC();

    private Builder() {}

    @Override
    Builder self() {
      return this;
    }

    /** Multiplicative decrease factor, in (0, 1). Default 0.5. */
    public Builder beta(double beta) {
      if (!(beta > 0 && beta < 1)) {
        throw new IllegalArgumentException(
            "AimdRateController: beta must be in (0, 1), got " + beta);
      }
      this.beta = beta;
      return this;
    }

    /**
     * Additive increase {@code a}: requests per second added per second without throttle (> 0).
     * Default 0.01.
     */
    public Builder increasePerSecond(double increasePerSecond) {
      if (!(increasePerSecond > 0) || Double.isInfinite(increasePerSecond)) {
        throw new IllegalArgumentException(
            "AimdRateController: increasePerSecond must be a finite number > 0, got "
                + increasePerSecond);
      }
      this.increasePerSecond = increasePerSecond;
      return this;
    }

    /**
     * The clock that measures elapsed time and the decrease hold (virtual in tests and the
     * simulator).
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    public AimdRateController build() {
      return new AimdRateController(this);
    }
  }
}
