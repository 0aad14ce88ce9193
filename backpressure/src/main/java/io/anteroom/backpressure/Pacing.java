package io.anteroom.backpressure;

import java.time.Duration;
import java.util.Objects;
import java.util.Random;

/**
 * The parts both controllers share: the clamp {@code [minInterval, maxInterval]} and the jitter.
 * Intervals are in seconds as doubles so rate arithmetic stays exact enough; one place converts to
 * and from {@link Duration}.
 */
final class Pacing {
  final double minSeconds;
  final double maxSeconds;
  private final double jitter;
  private final Random random;

  Pacing(Duration minInterval, Duration maxInterval, double jitter, Random random, String owner) {
    this.minSeconds = seconds(minInterval);
    this.maxSeconds = seconds(maxInterval);
    if (!(minSeconds > 0) || minSeconds > maxSeconds) {
      throw new IllegalArgumentException(
          owner
              + ": need 0 < minInterval <= maxInterval, got minInterval="
              + minInterval
              + ", maxInterval="
              + maxInterval);
    }
    if (!(jitter >= 0 && jitter < 1)) {
      throw new IllegalArgumentException(
          owner + ": jitter must be a fraction in [0, 1), got " + jitter);
    }
    this.jitter = jitter;
    this.random = Objects.requireNonNull(random, "random");
  }

  double clamp(double intervalSeconds) {
    return Math.min(Math.max(intervalSeconds, minSeconds), maxSeconds);
  }

  /** {@code interval x (1 + jitter x u)} with u uniform in [-1, 1), clamped. */
  Duration jittered(double intervalSeconds) {
    double u = 2 * random.nextDouble() - 1;
    return duration(clamp(intervalSeconds * (1 + jitter * u)));
  }

  static double seconds(Duration d) {
    Objects.requireNonNull(d, "duration");
    return d.toNanos() / 1e9;
  }

  static Duration duration(double seconds) {
    return Duration.ofNanos(Math.round(seconds * 1e9));
  }

  /**
   * Builder settings common to both controllers, with their defaults: interval clamped to [1 s, 60
   * s], starting at 1 s, jitter 10%, a fresh {@link Random}.
   */
  abstract static class Settings<B extends Settings<B>> {
    Duration minInterval = Duration.ofSeconds(1);
    Duration maxInterval = Duration.ofSeconds(60);
    Duration initialInterval;
    double jitter = 0.1;
    Random random = new Random();

    abstract B self();

    /** Shortest interval (highest rate). Default 1 s. */
    public B minInterval(Duration minInterval) {
      this.minInterval = Objects.requireNonNull(minInterval, "minInterval");
      return self();
    }

    /** Longest interval (lowest rate). Default 60 s. */
    public B maxInterval(Duration maxInterval) {
      this.maxInterval = Objects.requireNonNull(maxInterval, "maxInterval");
      return self();
    }

    /** Interval before the first reply, clamped. Default: {@code minInterval}. */
    public B initialInterval(Duration initialInterval) {
      this.initialInterval = Objects.requireNonNull(initialInterval, "initialInterval");
      return self();
    }

    /**
     * Fraction of the interval added or removed at random on each delay, in [0, 1). Default 0.1.
     */
    public B jitter(double jitter) {
      this.jitter = jitter;
      return self();
    }

    /** Source of the jitter; inject a seeded one for reproducible runs. */
    public B random(Random random) {
      this.random = Objects.requireNonNull(random, "random");
      return self();
    }

    Pacing pacing(String owner) {
      return new Pacing(minInterval, maxInterval, jitter, random, owner);
    }

    double initialSeconds(Pacing pacing) {
      return pacing.clamp(initialInterval == null ? pacing.minSeconds : seconds(initialInterval));
    }
  }
}
