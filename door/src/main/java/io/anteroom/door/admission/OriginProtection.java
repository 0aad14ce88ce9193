package io.anteroom.door.admission;

import io.anteroom.backpressure.AimdRateController;
import io.anteroom.backpressure.RateController;
import io.anteroom.backpressure.ThresholdMonitor;
import io.anteroom.backpressure.ThroughputSignal;
import io.anteroom.door.config.GatewayConfig.RoomSettings;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;

/**
 * Origin protection of one room (off by default): watches the origin through the gateway and lowers
 * the room's effective new users per minute by AIMD while the origin is slow (median latency above
 * {@code maxLatencyMillis}, 10 s window) or failing (share of 5xx answers above {@code
 * maxErrorRatio} since the last tick); it raises it again slowly, never above the configured {@code
 * newUsersPerMinute} nor below {@code minNewUsersPerMinute}. The limit is a rate: {@code effective
 * per minute = 60 × pace.rate()}, with the controller's interval clamped to {@code [60 s /
 * configured, 60 s / minimum]}.
 *
 * <p>Thread safety: recording is lock-free (monitor and adders); {@link #tick} is called from one
 * timer and holds this object's monitor.
 */
public final class OriginProtection {

  private final int configured;
  private final int minimum;
  private final double maxErrorRatio;
  private final ThresholdMonitor latency;
  private final RateController pace;
  private final LongAdder answers = new LongAdder();
  private final LongAdder errors = new LongAdder();
  private volatile int effective;

  public OriginProtection(RoomSettings room, Clock clock) {
    var p = room.resilience().originProtection();
    this.configured = room.limits().newUsersPerMinute();
    this.minimum = Math.min(configured, p.minNewUsersPerMinute());
    this.maxErrorRatio = p.maxErrorRatio();
    this.latency =
        ThresholdMonitor.builder()
            .maxLatency(Duration.ofMillis(p.maxLatencyMillis()))
            .signal(ThroughputSignal.TEN_SECOND_WINDOW)
            .clock(clock)
            .build();
    this.pace =
        AimdRateController.builder()
            .minInterval(Duration.ofNanos(60_000_000_000L / configured))
            .maxInterval(Duration.ofNanos(60_000_000_000L / minimum))
            .increasePerSecond(configured / 60.0 / 120.0) // back to full speed in about 2 minutes
            .jitter(0)
            .clock(clock)
            .build();
    this.effective = configured;
  }

  /** One proxied answer of the origin. */
  public void record(int status, long nanos) {
    answers.increment();
    if (status >= 500) {
      errors.increment(); // failures are not timed (they are fast and would hide slowness)
    } else {
      latency.record(Duration.ofNanos(nanos));
    }
  }

  /**
   * Feeds the controller with the origin's state since the last tick; returns the effective new
   * users per minute now in force.
   */
  public synchronized int tick() {
    long n = answers.sumThenReset();
    long e = errors.sumThenReset();
    boolean overloaded = latency.thresholdExceeded() || n > 0 && (double) e / n > maxErrorRatio;
    pace.onResponse(overloaded);
    effective = (int) Math.max(minimum, Math.min(configured, Math.round(60 * pace.rate())));
    return effective;
  }

  public int effectiveNewUsersPerMinute() {
    return effective;
  }
}
