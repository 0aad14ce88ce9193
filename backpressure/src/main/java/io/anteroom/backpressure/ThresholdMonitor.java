package io.anteroom.backpressure;

import com.codahale.metrics.Clock;
import com.codahale.metrics.ExponentiallyDecayingReservoir;
import com.codahale.metrics.Timer;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Decides whether one monitored operation is overloaded, as in the reference design: a Dropwizard
 * {@link Timer} records each successful operation; the operation is over its threshold when its
 * throughput exceeds {@code maxQps} or the median of its latency snapshot exceeds {@code
 * maxLatency}.
 *
 * <pre>{@code
 * ThresholdMonitor saves = ThresholdMonitor.builder()
 *         .maxQps(15).maxLatency(Duration.ofMillis(500))
 *         .signal(ThroughputSignal.TEN_SECOND_WINDOW)
 *         .build();
 * Result r = saves.time(() -> store.save(diff));      // a thrown exception is not recorded
 * response.put(ThrottleSignal.JSON_FIELD, saves.thresholdExceeded());
 * }</pre>
 *
 * <ul>
 *   <li>Thresholds are per budget: with {@link #setInstances(int) n instances} sharing it, each
 *       instance compares its own traffic with {@code maxQps / n} (latency is per request, so
 *       {@code maxLatency} is not divided). All thresholds can be changed at run time.
 *   <li>Failed operations are not recorded (failures are fast and would skew the figures); they are
 *       only counted by {@link #recordFailure()}.
 *   <li>An idle operation (no success for {@code idleAfter}) is never exceeded: the snapshot's
 *       median stays frozen at old values when nothing is recorded.
 * </ul>
 *
 * <p>Invariants: safe for any number of threads. The Timer and the sliding window are thread-safe
 * on their own; thresholds are volatile and read once per decision, so a decision uses one
 * consistent set of thresholds even while an operator changes them.
 */
public final class ThresholdMonitor {
  /** Dropwizard's default reservoir: 1028 samples biased to the last five minutes. */
  private static final int RESERVOIR_SIZE = 1028;

  private static final double RESERVOIR_ALPHA = 0.015;

  private final Clock clock;
  private final Timer timer;
  private final ThroughputSignal signal;
  private final SlidingWindowRate tenSecondWindow;
  private final long idleAfterNanos;
  private final AtomicLong failures = new AtomicLong();
  private final AtomicLong lastSuccessTick;

  private record Thresholds(double maxQps, long maxLatencyNanos, int instances) {
    double effectiveMaxQps() {
      return maxQps / instances;
    }
  }

  private volatile Thresholds thresholds;

  private ThresholdMonitor(Builder b) {
    this.clock = b.clock;
    this.timer =
        new Timer(
            new ExponentiallyDecayingReservoir(RESERVOIR_SIZE, RESERVOIR_ALPHA, clock), clock);
    this.signal = b.signal;
    this.tenSecondWindow = new SlidingWindowRate(TimeUnit.SECONDS.toNanos(10), 20);
    this.idleAfterNanos = (b.idleAfter != null ? b.idleAfter : signal.defaultIdleAfter()).toNanos();
    this.thresholds = new Thresholds(b.maxQps, b.maxLatencyNanos, b.instances);
    this.lastSuccessTick = new AtomicLong(Long.MIN_VALUE);
  }

  /** A builder; without thresholds the monitor measures but is never exceeded. */
  public static Builder builder() {
    return new Builder();
  }

  // ---------------------------------------------------------------- recording

  /**
   * Runs {@code operation} and records its duration if it returns normally; an exception is counted
   * as a failure, not timed, and rethrown unchanged.
   */
  public <T> T time(Callable<T> operation) throws Exception {
    long start = clock.getTick();
    T result;
    try {
      result = operation.call();
    } catch (Exception | Error e) {
      recordFailure();
      throw e;
    }
    recordNanos(clock.getTick() - start);
    return result;
  }

  /**
   * Starts timing an operation that completes later (an asynchronous handler). Call {@link
   * Sample#succeeded()} when it succeeds; on failure call {@link Sample#failed()} (or nothing): the
   * duration is then not recorded.
   */
  public Sample start() {
    return new Sample(clock.getTick());
  }

  /** Records one successful operation that took {@code duration}. */
  public void record(Duration duration) {
    Objects.requireNonNull(duration, "duration");
    if (duration.isNegative()) {
      throw new IllegalArgumentException(
          "ThresholdMonitor.record: duration must be >= 0, got " + duration);
    }
    recordNanos(duration.toNanos());
  }

  /** Counts one failed operation; it contributes neither to throughput nor to latency. */
  public void recordFailure() {
    failures.incrementAndGet();
  }

  private void recordNanos(long nanos) {
    long now = clock.getTick();
    timer.update(nanos, TimeUnit.NANOSECONDS);
    tenSecondWindow.mark(now);
    lastSuccessTick.accumulateAndGet(now, Math::max);
  }

  /** A started measurement; see {@link #start()}. Record it at most once. */
  public final class Sample {
    private final long startTick;
    private boolean done;

    private Sample(long startTick) {
      this.startTick = startTick;
    }

    /** Records the operation as a success, with its duration up to now. */
    public void succeeded() {
      finish();
      recordNanos(clock.getTick() - startTick);
    }

    /** Counts the operation as a failure: not timed. */
    public void failed() {
      finish();
      recordFailure();
    }

    private synchronized void finish() {
      if (done) {
        throw new IllegalStateException(
            "ThresholdMonitor.Sample: already recorded; call succeeded() or failed() once");
      }
      done = true;
    }
  }

  // ---------------------------------------------------------------- decision

  /**
   * True when the operation is not idle and its throughput exceeds {@code maxQps / instances} or
   * its median latency exceeds {@code maxLatency}.
   */
  public boolean thresholdExceeded() {
    Thresholds t = thresholds;
    if (isIdle()) {
      return false;
    }
    if (throughput() > t.effectiveMaxQps()) {
      return true;
    }
    // the snapshot copies the reservoir: only take it when a latency threshold is set
    return t.maxLatencyNanos != Long.MAX_VALUE
        && timer.getSnapshot().getMedian() > t.maxLatencyNanos;
  }

  /** True when no operation succeeded during the last {@code idleAfter}. */
  public boolean isIdle() {
    long last = lastSuccessTick.get();
    return last == Long.MIN_VALUE || clock.getTick() - last > idleAfterNanos;
  }

  /** This instance's throughput in operations per second, as measured by the chosen signal. */
  public double throughput() {
    return switch (signal) {
      case FIVE_MINUTE_RATE -> timer.getFiveMinuteRate();
      case ONE_MINUTE_RATE -> timer.getOneMinuteRate();
      case TEN_SECOND_WINDOW -> tenSecondWindow.ratePerSecond(clock.getTick());
    };
  }

  /** The median of the Timer's latency snapshot (biased to the last five minutes). */
  public Duration medianLatency() {
    return Duration.ofNanos((long) timer.getSnapshot().getMedian());
  }

  // ---------------------------------------------------------------- thresholds at run time

  /** Sets the throughput budget shared by all instances, in operations per second (> 0). */
  public void setMaxQps(double maxQps) {
    requireMaxQps(maxQps);
    Thresholds t = thresholds;
    thresholds = new Thresholds(maxQps, t.maxLatencyNanos, t.instances);
  }

  /** Removes the throughput threshold. */
  public void removeMaxQps() {
    Thresholds t = thresholds;
    thresholds = new Thresholds(Double.POSITIVE_INFINITY, t.maxLatencyNanos, t.instances);
  }

  /** Sets the latency threshold compared with the median (> 0). */
  public void setMaxLatency(Duration maxLatency) {
    long nanos = requireMaxLatency(maxLatency);
    Thresholds t = thresholds;
    thresholds = new Thresholds(t.maxQps, nanos, t.instances);
  }

  /** Removes the latency threshold. */
  public void removeMaxLatency() {
    Thresholds t = thresholds;
    thresholds = new Thresholds(t.maxQps, Long.MAX_VALUE, t.instances);
  }

  /** Sets how many running instances share the throughput budget (>= 1). */
  public void setInstances(int instances) {
    requireInstances(instances);
    Thresholds t = thresholds;
    thresholds = new Thresholds(t.maxQps, t.maxLatencyNanos, instances);
  }

  /** This instance's share of the throughput budget; infinite when there is no threshold. */
  public double effectiveMaxQps() {
    return thresholds.effectiveMaxQps();
  }

  /** The number of failed operations counted so far. */
  public long failureCount() {
    return failures.get();
  }

  /** The signal this monitor compares with {@code maxQps}. */
  public ThroughputSignal signal() {
    return signal;
  }

  /**
   * The underlying Timer, to register in a {@code MetricRegistry} for export; do not update it
   * directly.
   */
  public Timer timer() {
    return timer;
  }

  private static void requireMaxQps(double maxQps) {
    if (!(maxQps > 0) || Double.isInfinite(maxQps)) {
      throw new IllegalArgumentException(
          "ThresholdMonitor: maxQps must be a finite number > 0 (operations per second), got "
              + maxQps
              + "; use removeMaxQps() for no throughput threshold");
    }
  }

  private static long requireMaxLatency(Duration maxLatency) {
    Objects.requireNonNull(maxLatency, "maxLatency");
    if (maxLatency.isNegative() || maxLatency.isZero()) {
      throw new IllegalArgumentException(
          "ThresholdMonitor: maxLatency must be > 0, got " + maxLatency);
    }
    return maxLatency.toNanos();
  }

  private static void requireInstances(int instances) {
    if (instances < 1) {
      throw new IllegalArgumentException(
          "ThresholdMonitor: instances sharing the budget must be >= 1, got " + instances);
    }
  }

  /**
   * Builds a {@link ThresholdMonitor}. Defaults: no thresholds, one instance, {@link
   * ThroughputSignal#FIVE_MINUTE_RATE}, idle after 1 min (10 s with the 10 s window), the system
   * clock.
   */
  public static final class Builder {
    private double maxQps = Double.POSITIVE_INFINITY;
    private long maxLatencyNanos = Long.MAX_VALUE;
    private int instances = 1;
    private ThroughputSignal signal = ThroughputSignal.FIVE_MINUTE_RATE;
    private Duration idleAfter;
    private Clock clock = Clock.defaultClock();

    private Builder() {}

    /** Throughput budget shared by all instances, operations per second. */
    public Builder maxQps(double maxQps) {
      requireMaxQps(maxQps);
      this.maxQps = maxQps;
      return this;
    }

    /** Latency threshold compared with the snapshot's median. */
    public Builder maxLatency(Duration maxLatency) {
      this.maxLatencyNanos = requireMaxLatency(maxLatency);
      return this;
    }

    /** Number of running instances sharing the throughput budget. */
    public Builder instances(int instances) {
      requireInstances(instances);
      this.instances = instances;
      return this;
    }

    /** Which throughput measure to compare with {@code maxQps}. */
    public Builder signal(ThroughputSignal signal) {
      this.signal = Objects.requireNonNull(signal, "signal");
      return this;
    }

    /** How long without a success makes the operation idle (never exceeded). */
    public Builder idleAfter(Duration idleAfter) {
      Objects.requireNonNull(idleAfter, "idleAfter");
      if (idleAfter.isNegative() || idleAfter.isZero()) {
        throw new IllegalArgumentException(
            "ThresholdMonitor: idleAfter must be > 0, got " + idleAfter);
      }
      this.idleAfter = idleAfter;
      return this;
    }

    /**
     * The clock of the Timer, the window and the idle rule (virtual in tests and the simulator).
     */
    public Builder clock(java.time.Clock clock) {
      this.clock = new MetricsClock(Objects.requireNonNull(clock, "clock"));
      return this;
    }

    /** The same, with a Dropwizard clock. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    public ThresholdMonitor build() {
      return new ThresholdMonitor(this);
    }
  }
}
