package io.anteroom.door.queue;

import io.anteroom.backpressure.AimdRateController;
import io.anteroom.backpressure.RateController;
import io.anteroom.backpressure.ThresholdMonitor;
import io.anteroom.backpressure.ThroughputSignal;
import io.anteroom.door.config.GatewayConfig.RoomSettings;
import java.time.Clock;
import java.time.Duration;

/**
 * Queue-status pacing of one room: a {@link ThresholdMonitor} (10 s throughput window, median
 * latency) on the room's queue responses decides {@code throttle}; a shared rate-space AIMD
 * controller fed with that decision on every queue response sets the announced {@code
 * refreshIntervalSeconds}, between {@code queueRefreshSeconds} and {@code maxQueueRefreshSeconds}.
 * So when queue polling overloads the gateway, every page and app polls at once less often, and
 * speeds up slowly afterwards.
 *
 * <p>Thread safety: the monitor is thread-safe; the controller is wrapped with {@link
 * RateController#synchronizedController}; the threshold decision is cached for 100 ms in two
 * volatile fields (a stale read only delays the signal by that much).
 */
public final class MonitoredQueuePacing implements QueuePacing {

  /**
   * How long a threshold decision is reused: the monitor's median needs a reservoir snapshot (a
   * copy and a sort), too costly for every response; the signal changes on a scale of seconds.
   */
  static final long DECISION_MILLIS = 100;

  private final ThresholdMonitor monitor;
  private final RateController pace;
  private final Clock clock;
  private volatile long decidedAt = Long.MIN_VALUE;
  private volatile boolean exceeded;

  public MonitoredQueuePacing(RoomSettings room, Clock clock) {
    this.clock = clock;
    this.monitor =
        ThresholdMonitor.builder()
            .maxQps(room.resilience().queueStatusMaxQps())
            .maxLatency(Duration.ofMillis(room.resilience().queueStatusMaxLatencyMillis()))
            .signal(ThroughputSignal.TEN_SECOND_WINDOW)
            .clock(clock)
            .build();
    this.pace =
        RateController.synchronizedController(
            AimdRateController.builder()
                .minInterval(Duration.ofSeconds(room.limits().queueRefreshSeconds()))
                .maxInterval(
                    Duration.ofSeconds(
                        Math.max(
                            room.limits().queueRefreshSeconds(),
                            room.resilience().maxQueueRefreshSeconds())))
                .clock(clock)
                .build());
  }

  @Override
  public void recordQueueStatus(long nanos) {
    monitor.record(Duration.ofNanos(nanos));
    pace.onResponse(throttle(clock.millis()));
  }

  @Override
  public int refreshIntervalSeconds() {
    return (int) Math.max(1, Math.ceil(pace.nextDelay().toMillis() / 1000.0));
  }

  @Override
  public boolean throttle(long now) {
    if (decidedAt == Long.MIN_VALUE || now - decidedAt >= DECISION_MILLIS) {
      // benign race: two threads may both refresh; each writes a correct recent decision
      exceeded = monitor.thresholdExceeded();
      decidedAt = now;
    }
    return exceeded;
  }

  ThresholdMonitor monitor() {
    return monitor;
  }
}
