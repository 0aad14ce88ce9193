package io.anteroom.sim.backpressure;

import io.anteroom.backpressure.ThresholdMonitor;
import io.anteroom.backpressure.ThroughputSignal;
import io.anteroom.sim.engine.EventLoop;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * How long each throughput signal takes to raise the throttle after a step in open-loop load:
 * evenly spaced requests at {@code from x threshold} for 30 minutes, then at {@code to x
 * threshold}. Open loop isolates the monitor: no client reacts.
 */
public final class DetectionExperiment {
  private static final Duration SETTLE = Duration.ofMinutes(30);
  private static final Duration GIVE_UP = Duration.ofMinutes(10);

  private DetectionExperiment() {}

  /**
   * Seconds from the step to the first {@code thresholdExceeded()}, or -1 if none within 10
   * minutes.
   */
  public static double detectionSeconds(
      ThroughputSignal signal, double threshold, double from, double to) {
    EventLoop loop = new EventLoop(Instant.EPOCH);
    Clock clock = loop.clock();
    ThresholdMonitor monitor =
        ThresholdMonitor.builder().maxQps(threshold).signal(signal).clock(clock).build();
    feed(monitor, loop, threshold * from, SETTLE.toNanos(), false);
    long stepAt = loop.nanos();
    long detected = feed(monitor, loop, threshold * to, GIVE_UP.toNanos(), true);
    return detected < 0 ? -1 : (detected - stepAt) / 1e9;
  }

  private static long feed(
      ThresholdMonitor monitor,
      EventLoop loop,
      double qps,
      long forNanos,
      boolean stopWhenExceeded) {
    long gap = Math.round(1e9 / qps);
    long end = loop.nanos() + forNanos;
    while (loop.nanos() + gap <= end) {
      loop.runBefore(loop.nanos() + gap);
      monitor.record(Duration.ofMillis(10));
      if (stopWhenExceeded && monitor.thresholdExceeded()) {
        return loop.nanos();
      }
    }
    return -1;
  }
}
