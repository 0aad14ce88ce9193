package io.anteroom.sim;

import io.anteroom.sim.engine.EventLoop;
import java.time.Instant;
import java.util.Objects;

/**
 * One simulated run: a scenario's traffic against one strategy of the real room core, in virtual
 * time. Same scenario, strategy, seed and length: same result, byte for byte.
 *
 * <pre>{@code
 * SimulationResult r = Simulation.builder()
 *     .scenario(Scenarios.require("steady"))
 *     .strategy(StrategyVariant.COUNTERS)
 *     .seed(42)
 *     .minutes(30)
 *     .run();
 * System.out.println(r.metrics().peakActiveRatio() + " " + r.misses());
 * }</pre>
 */
public final class Simulation {
  /** Virtual time 0 of every run: a minute boundary, so run minute k is bucket minute k. */
  public static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

  /** Builds the room a run drives; the default wires the real core. */
  interface RoomFactory {
    RoomUnderTest<?> create(Scenario scenario, StrategyVariant strategy, EventLoop loop);
  }

  private final Scenario scenario;
  private final StrategyVariant strategy;
  private final long seed;
  private final RoomFactory rooms;
  private final java.util.function.Consumer<String> queueLog;

  private Simulation(
      Scenario scenario,
      StrategyVariant strategy,
      long seed,
      RoomFactory rooms,
      java.util.function.Consumer<String> queueLog) {
    this.queueLog = queueLog;
    this.scenario = scenario;
    this.strategy = strategy;
    this.seed = seed;
    this.rooms = rooms;
  }

  /**
   * A builder: scenario required; strategy defaults to counters, seed to 1, minutes to the
   * scenario's.
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Runs the simulation to its end and returns its figures. */
  public SimulationResult run() {
    EventLoop loop = new EventLoop(START);
    return runWith(rooms.create(scenario, strategy, loop), loop);
  }

  private <T> SimulationResult runWith(RoomUnderTest<T> room, EventLoop loop) {
    TrafficRun<T> traffic = new TrafficRun<>(scenario, room, loop, seed);
    if (queueLog != null) {
      traffic.explainQueued(queueLog);
    }
    traffic.run();
    Metrics metrics = traffic.observations().metrics();
    return new SimulationResult(
        scenario,
        strategy,
        seed,
        scenario.minutes(),
        metrics,
        traffic.observations().series(),
        Targets.misses(scenario, metrics),
        traffic.observations().admissionsByReason(),
        loop.executed());
  }

  /** Builder of a {@link Simulation}. */
  public static final class Builder {
    private Scenario scenario;
    private StrategyVariant strategy = StrategyVariant.COUNTERS;
    private long seed = 1;
    private Integer minutes;
    private RoomFactory rooms = CoreRoom::create;
    private java.util.function.Consumer<String> queueLog;

    private Builder() {}

    public Builder scenario(Scenario s) {
      this.scenario = Objects.requireNonNull(s, "scenario");
      return this;
    }

    public Builder strategy(StrategyVariant s) {
      this.strategy = Objects.requireNonNull(s, "strategy");
      return this;
    }

    public Builder seed(long s) {
      this.seed = s;
      return this;
    }

    /** Simulated minutes (default: the scenario's own length). */
    public Builder minutes(int m) {
      if (m < 1) {
        throw new IllegalArgumentException("minutes must be >= 1, was " + m);
      }
      this.minutes = m;
      return this;
    }

    /**
     * Diagnostic: one CSV row (header first) per user first queued while utilization was below 95
     * %, with the ground truth then and the deciding worker's view (path, state age, pool,
     * counters).
     */
    public Builder explainQueued(java.util.function.Consumer<String> sink) {
      this.queueLog = Objects.requireNonNull(sink, "sink");
      return this;
    }

    Builder rooms(RoomFactory factory) {
      this.rooms = Objects.requireNonNull(factory, "room factory");
      return this;
    }

    public Simulation build() {
      if (scenario == null) {
        throw new IllegalStateException(
            "Simulation.builder(): set a scenario, e.g. .scenario(Scenarios.require(\"steady\"))");
      }
      return new Simulation(
          minutes == null ? scenario : scenario.withMinutes(minutes),
          strategy,
          seed,
          rooms,
          queueLog);
    }

    /** Shorthand for {@code build().run()}. */
    public SimulationResult run() {
      return build().run();
    }
  }
}
