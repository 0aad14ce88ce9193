package io.anteroom.sim.backpressure;

import io.anteroom.backpressure.ThresholdMonitor;
import io.anteroom.backpressure.ThroughputSignal;
import io.anteroom.sim.engine.EventLoop;
import io.anteroom.sim.report.Stats;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Periodic clients against one server whose {@link ThresholdMonitor} has a throughput threshold.
 * The run has four phases:
 *
 * <ol>
 *   <li>warm-up from a spread of rates with CV 1 (not measured);
 *   <li>steady state, where fairness, load and utilisation are measured;
 *   <li>at {@code stepAt}, or as soon after it as the throttle is down (the loop keeps the load
 *       near the threshold, so the throttle comes and goes), as many clients again join, each a
 *       copy of an existing client's current rate, so the load steps to about twice the threshold:
 *       the detection delay is the time from the step to the first throttled reply;
 *   <li>at {@code leaveAt} they leave again: the recovery time runs from the last throttled reply
 *       to the end of the first bucket whose load is back to 90% of the threshold.
 * </ol>
 *
 * <p>Load is requests per second in 10 s buckets (shorter buckets would mostly measure the noise of
 * the arrivals); utilisation is the mean over the steady buckets of {@code min(load, threshold)}
 * over the threshold.
 */
public final class EventModel {

  /** Parameters of a run; {@link #defaults()} are the ones of {@code backpressure.md}'s targets. */
  public record Config(
      int clients,
      double maxQps,
      ThroughputSignal signal,
      ControllerSettings settings,
      Duration warmUp,
      Duration stepAt,
      Duration leaveAt,
      Duration duration,
      Duration bucket,
      Duration fairnessWindow,
      long seed) {
    /**
     * 1,000 clients, threshold 100 req/s (fair share 0.1 req/s: one poll every 10 s), 1 h, the 10 s
     * window; intervals in [1 s, 120 s], jitter 10%, AIMD beta 0.5 and {@code a} = 0.001 req/s per
     * s (the 1,000 clients together add 1 req/s every second), interval rule step 1 s; warm-up 5
     * min, step at 35 min, leave at 45 min.
     */
    public static Config defaults() {
      return new Config(
          1000,
          100,
          ThroughputSignal.TEN_SECOND_WINDOW,
          new ControllerSettings(
              Duration.ofSeconds(1),
              Duration.ofSeconds(120),
              0.1,
              0.5,
              0.001,
              Duration.ofSeconds(1)),
          Duration.ofMinutes(5),
          Duration.ofMinutes(35),
          Duration.ofMinutes(45),
          Duration.ofHours(1),
          Duration.ofSeconds(10),
          Duration.ofMinutes(5),
          1);
    }

    public Config withSignal(ThroughputSignal signal) {
      return new Config(
          clients,
          maxQps,
          signal,
          settings,
          warmUp,
          stepAt,
          leaveAt,
          duration,
          bucket,
          fairnessWindow,
          seed);
    }

    public Config withSettings(ControllerSettings settings) {
      return new Config(
          clients,
          maxQps,
          signal,
          settings,
          warmUp,
          stepAt,
          leaveAt,
          duration,
          bucket,
          fairnessWindow,
          seed);
    }

    public Config withSeed(long seed) {
      return new Config(
          clients,
          maxQps,
          signal,
          settings,
          warmUp,
          stepAt,
          leaveAt,
          duration,
          bucket,
          fairnessWindow,
          seed);
    }
  }

  /**
   * @param minutes end of each bucket, in minutes
   * @param load requests per second in each bucket
   * @param fairness Jain's index over the active clients' current rates at the end of each bucket
   * @param servedFairness Jain's index over the requests each client made in the fairness window
   *     ending with each bucket (NaN before the first full window)
   * @param meanFairness mean of {@code fairness} over the steady phase
   * @param meanServedFairness mean of {@code servedFairness} over the steady phase
   * @param loadP95 95th percentile of the steady phase's load, as a multiple of the threshold
   * @param loadPeak maximum of the steady phase's load, as a multiple of the threshold
   * @param utilisation mean of {@code min(load, threshold) / threshold} over the steady phase
   * @param detectionSeconds from the step to 2x to the first throttled reply, -1 if none
   * @param recoverySeconds from the end of the first bucket without a throttled reply after the
   *     extra clients left to the end of the first bucket whose load is back to 90% of the
   *     threshold, -1 if it never was
   */
  public record Result(
      ControllerKind kind,
      ThroughputSignal signal,
      double maxQps,
      double[] minutes,
      double[] load,
      double[] fairness,
      double[] servedFairness,
      double meanFairness,
      double meanServedFairness,
      double loadP95,
      double loadPeak,
      double utilisation,
      double detectionSeconds,
      double recoverySeconds) {}

  private static final long STEP_PROBE_NANOS = 100_000_000L;

  private final Config config;

  public EventModel(Config config) {
    this.config = config;
  }

  public static EventModel defaults() {
    return new EventModel(Config.defaults());
  }

  public Result run(ControllerKind kind) {
    EventLoop loop = new EventLoop(Instant.EPOCH);
    Clock clock = loop.clock();
    Random random = new Random(config.seed());
    ThresholdMonitor server =
        ThresholdMonitor.builder()
            .maxQps(config.maxQps())
            .signal(config.signal())
            .clock(clock)
            .build();
    PollingSimulation sim =
        new PollingSimulation(
            loop, random, List.of(server), config.bucket(), config.fairnessWindow());
    double[] start =
        InitialRates.withUnitCoefficientOfVariation(
            config.clients(), config.maxQps() / config.clients(), random);
    for (double rate : start) {
      sim.addClient(kind.create(config.settings(), rate, clock, random));
    }
    long stepAt = config.stepAt().toNanos();
    int steadyTo = bucketIndex(stepAt, sim);
    long leaveAt = config.leaveAt().toNanos();
    sim.runUntil(stepAt);
    // the loop keeps the load near the threshold, so the throttle comes and goes: step when it is
    // down
    while (server.thresholdExceeded()) {
      if (stepAt + STEP_PROBE_NANOS >= leaveAt) {
        throw new IllegalStateException(
            "event model: the throttle never cleared between "
                + config.stepAt()
                + " and "
                + config.leaveAt()
                + ", so there is no step to measure");
      }
      stepAt += STEP_PROBE_NANOS;
      sim.runUntil(stepAt);
    }
    int[] joined = new int[config.clients()];
    for (int i = 0; i < joined.length; i++) {
      joined[i] =
          sim.addClient(kind.create(config.settings(), sim.client(i).rate(), clock, random));
    }
    sim.runUntil(leaveAt);
    for (int id : joined) {
      sim.removeClient(id);
    }
    sim.runUntil(config.duration().toNanos());

    double[] load = sim.load();
    double[] fairness = sim.fairness();
    double[] served = sim.throughputFairness();
    int from = bucketIndex(config.warmUp().toNanos(), sim);
    int to = steadyTo;
    double[] steadyLoad = Arrays.copyOfRange(load, from, to);
    double[] capped = Arrays.stream(steadyLoad).map(x -> Math.min(x, config.maxQps())).toArray();
    double[] minutes = new double[load.length];
    for (int i = 0; i < minutes.length; i++) {
      minutes[i] = (i + 1) * sim.bucketNanos() / 60e9;
    }
    long detected = sim.firstThrottleAtOrAfter(stepAt);
    return new Result(
        kind,
        config.signal(),
        config.maxQps(),
        minutes,
        load,
        fairness,
        served,
        Stats.mean(Arrays.copyOfRange(fairness, from, to)),
        Stats.mean(Arrays.stream(served, from, to).filter(x -> !Double.isNaN(x)).toArray()),
        Stats.percentile(steadyLoad, 0.95) / config.maxQps(),
        Stats.max(steadyLoad) / config.maxQps(),
        Stats.mean(capped) / config.maxQps(),
        detected < 0 ? -1 : (detected - stepAt) / 1e9,
        recoverySeconds(sim, load, leaveAt));
  }

  private double recoverySeconds(PollingSimulation sim, double[] load, long leaveAt) {
    long bucket = sim.bucketNanos();
    int i = bucketIndex(leaveAt, sim);
    while (i < load.length && sim.lastThrottleIn(i * bucket, (i + 1) * bucket) >= 0) {
      i++; // the throttle has not cleared yet
    }
    int cleared = i;
    while (i < load.length && load[i] < 0.9 * config.maxQps()) {
      i++;
    }
    return i == load.length ? -1 : (i - cleared) * bucket / 1e9;
  }

  private static int bucketIndex(long nanos, PollingSimulation sim) {
    return (int) (nanos / sim.bucketNanos());
  }
}
