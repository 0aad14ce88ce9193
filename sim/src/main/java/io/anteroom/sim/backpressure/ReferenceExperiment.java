package io.anteroom.sim.backpressure;

import io.anteroom.backpressure.ThresholdMonitor;
import io.anteroom.backpressure.ThroughputSignal;
import io.anteroom.sim.engine.EventLoop;
import io.anteroom.sim.report.Stats;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * The experiment of "Knowing when to back off": three instances of a service take about 14 req/s of
 * saves between them; a threshold of 6 req/s across all three (2 per instance: each monitor is told
 * that 3 instances share the budget) is applied, then removed. The load should settle under the
 * threshold and return to its earlier level afterwards.
 *
 * <p>Each save goes to one of the three instances at random; each instance has its own {@link
 * ThresholdMonitor}. Clients prefer one save every 5 s (70 clients x 0.2 req/s = 14 req/s).
 */
public final class ReferenceExperiment {

  /** Parameters of a run; see {@link #defaults()}. */
  public record Config(
      int clients,
      int instances,
      double thresholdQps,
      ControllerSettings settings,
      Duration applyAt,
      Duration removeAt,
      Duration duration,
      Duration bucket,
      long seed) {}

  /**
   * @param minutes end of each bucket, in minutes
   * @param load total saves per second over the three instances in each bucket
   * @param threshold the threshold in force in each bucket (NaN when none)
   * @param before mean load before the threshold
   * @param settled mean load over the second half of the threshold phase
   * @param settledPeak highest bucket over the second half of the threshold phase
   * @param after mean load over the last 10 minutes, once the threshold is gone
   * @param returnSeconds from the removal to the end of the first bucket back at 90% of {@code
   *     before}, -1 if never
   */
  public record Result(
      ControllerKind kind,
      ThroughputSignal signal,
      double thresholdQps,
      double[] minutes,
      double[] load,
      double[] threshold,
      double before,
      double settled,
      double settledPeak,
      double after,
      double returnSeconds) {}

  private final Config config;

  public ReferenceExperiment(Config config) {
    this.config = config;
  }

  /**
   * 70 clients preferring one save every 5 s, intervals in [5 s, 300 s], jitter 10%; AIMD beta 0.5
   * and {@code a} = 0.001 req/s per s; interval rule step 1 s; 3 instances; threshold 6 req/s
   * applied at 15 min and removed at 45 min; 75 min; 30 s buckets.
   */
  public static ReferenceExperiment defaults() {
    return new ReferenceExperiment(
        new Config(
            70,
            3,
            6,
            new ControllerSettings(
                Duration.ofSeconds(5),
                Duration.ofSeconds(300),
                0.1,
                0.5,
                0.001,
                Duration.ofSeconds(1)),
            Duration.ofMinutes(15),
            Duration.ofMinutes(45),
            Duration.ofMinutes(75),
            Duration.ofSeconds(30),
            1));
  }

  public Result run(ControllerKind kind, ThroughputSignal signal) {
    EventLoop loop = new EventLoop(Instant.EPOCH);
    Clock clock = loop.clock();
    Random random = new Random(config.seed());
    List<ThresholdMonitor> servers = new ArrayList<>();
    for (int i = 0; i < config.instances(); i++) {
      servers.add(
          ThresholdMonitor.builder()
              .instances(config.instances())
              .signal(signal)
              .clock(clock)
              .build());
    }
    PollingSimulation sim =
        new PollingSimulation(loop, random, servers, config.bucket(), config.bucket());
    double preferredRate = 1e9 / config.settings().minInterval().toNanos();
    for (int i = 0; i < config.clients(); i++) {
      sim.addClient(kind.create(config.settings(), preferredRate, clock, random));
    }
    long applyAt = config.applyAt().toNanos();
    long removeAt = config.removeAt().toNanos();
    sim.runUntil(applyAt);
    servers.forEach(s -> s.setMaxQps(config.thresholdQps()));
    sim.runUntil(removeAt);
    servers.forEach(ThresholdMonitor::removeMaxQps);
    sim.runUntil(config.duration().toNanos());

    double[] load = sim.load();
    long bucket = sim.bucketNanos();
    int apply = (int) (applyAt / bucket);
    int remove = (int) (removeAt / bucket);
    double[] minutes = new double[load.length];
    double[] threshold = new double[load.length];
    for (int i = 0; i < load.length; i++) {
      minutes[i] = (i + 1) * bucket / 60e9;
      threshold[i] = i >= apply && i < remove ? config.thresholdQps() : Double.NaN;
    }
    double before = Stats.mean(Arrays.copyOfRange(load, 0, apply));
    double[] settled = Arrays.copyOfRange(load, (apply + remove) / 2, remove);
    int lastTen = load.length - (int) (Duration.ofMinutes(10).toNanos() / bucket);
    int back = remove;
    while (back < load.length && load[back] < 0.9 * before) {
      back++;
    }
    return new Result(
        kind,
        signal,
        config.thresholdQps(),
        minutes,
        load,
        threshold,
        before,
        Stats.mean(settled),
        Stats.max(settled),
        Stats.mean(Arrays.copyOfRange(load, lastTen, load.length)),
        back == load.length ? -1 : (back + 1 - remove) * bucket / 1e9);
  }
}
