package io.anteroom.backpressure;

import java.time.Duration;

/**
 * The rule of the reference text's iOS client: on a throttled reply the interval doubles; otherwise
 * it shrinks by a fixed step (1 s); clamped to {@code [minInterval, maxInterval]}.
 *
 * <p>Kept for comparison, not the default: shrinking the interval by a fixed step raises the rate
 * by about {@code step x rate^2} per reply, so the fastest clients speed up fastest and the clients
 * do not converge to a fair share (see {@code docs/backpressure.md} for the measured fairness).
 *
 * <pre>{@code
 * RateController pace = IntervalRuleController.builder().step(Duration.ofSeconds(1)).build();
 * }</pre>
 *
 * <p>Not thread-safe: one controller per client loop.
 */
public final class IntervalRuleController implements RateController {
  private final Pacing pacing;
  private final double stepSeconds;
  private final double backoffFactor;
  private double intervalSeconds;

  private IntervalRuleController(Builder b) {
    this.pacing = b.pacing("IntervalRuleController");
    this.stepSeconds = Pacing.seconds(b.step);
    this.backoffFactor = b.backoffFactor;
    this.intervalSeconds = b.initialSeconds(pacing);
  }

  /**
   * A builder with the reference's defaults: step 1 s, backoff factor 2, interval in [1 s, 60 s]
   * starting at 1 s, jitter 10%.
   */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public void onResponse(boolean throttle) {
    intervalSeconds =
        pacing.clamp(throttle ? intervalSeconds * backoffFactor : intervalSeconds - stepSeconds);
  }

  @Override
  public Duration nextDelay() {
    return pacing.jittered(intervalSeconds);
  }

  @Override
  public Duration interval() {
    return Pacing.duration(intervalSeconds);
  }

  @Override
  public String toString() {
    return "IntervalRuleController[interval=" + interval() + "]";
  }

  /** Builds an {@link IntervalRuleController}; see {@link #builder()} for the defaults. */
  public static final class Builder extends Pacing.Settings<Builder> {
    private Duration step = Duration.ofSeconds(1);
    private double backoffFactor = 2.0;

    private Builder() {}

    @Override
    Builder self() {
      return this;
    }

    /** How much the interval shrinks after an unthrottled reply. Default 1 s. */
    public Builder step(Duration step) {
      if (step.isNegative() || step.isZero()) {
        throw new IllegalArgumentException("IntervalRuleController: step must be > 0, got " + step);
      }
      this.step = step;
      return this;
    }

    /** What the interval is multiplied by after a throttled reply (> 1). Default 2. */
    public Builder backoffFactor(double backoffFactor) {
      if (!(backoffFactor > 1) || Double.isInfinite(backoffFactor)) {
        throw new IllegalArgumentException(
            "IntervalRuleController: backoffFactor must be a finite number > 1, got "
                + backoffFactor);
      }
      this.backoffFactor = backoffFactor;
      return this;
    }

    public IntervalRuleController build() {
      return new IntervalRuleController(this);
    }
  }
}
