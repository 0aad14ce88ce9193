package io.anteroom.sim.backpressure;

import io.anteroom.backpressure.RateController;
import io.anteroom.sim.engine.EventLoop;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Random;

/**
 * The synchronous model of Chiu &amp; Jain (1989): in every round each of {@code n} clients sends
 * at its rate, and all receive the same binary feedback {@code y = Σx > capacity}. Each client is a
 * real {@link RateController} that gets one reply per round, the virtual clock advancing one round
 * between replies. A round lasts {@code maxInterval}, so AIMD's "at most once per interval" hold
 * never suppresses a decrease and the model stays the textbook one.
 *
 * <pre>{@code
 * SynchronousModel.Result r = SynchronousModel.defaults().run(ControllerKind.AIMD);
 * r.decreaseEpochsToFairness();   // 4
 * }</pre>
 */
public final class SynchronousModel {
  /** The fairness the targets ask for. */
  public static final double FAIR = 0.99;

  private final int clients;
  private final double capacity;
  private final int rounds;
  private final ControllerSettings settings;
  private final long seed;

  public SynchronousModel(
      int clients, double capacity, int rounds, ControllerSettings settings, long seed) {
    this.clients = clients;
    this.capacity = capacity;
    this.rounds = rounds;
    this.settings = settings;
    this.seed = seed;
  }

  /**
   * 1,000 clients sharing 100 req/s (fair share 0.1 req/s), 400 rounds of 200 s; intervals clamped
   * to [0.5 s, 200 s]; AIMD beta 0.5 and {@code a} = 5e-6 req/s per s (+0.001 req/s per round, 1%
   * of the fair share); the interval rule's step 1 s; no jitter (the model is synchronous).
   */
  public static SynchronousModel defaults() {
    return new SynchronousModel(
        1000,
        100,
        400,
        new ControllerSettings(
            Duration.ofMillis(500), Duration.ofSeconds(200), 0, 0.5, 5e-6, Duration.ofSeconds(1)),
        1);
  }

  /**
   * @param fairness Jain's index after each round (index 0: the starting rates)
   * @param totalRate Σx after each round (index 0: the start)
   * @param decreaseEpochsToFairness throttled rounds up to the round from which J stays ≥ 0.99, or
   *     -1 when it never does
   * @param startingCoefficientOfVariation the spread the run started from
   */
  public record Result(
      ControllerKind kind,
      double[] fairness,
      double[] totalRate,
      int decreaseEpochsToFairness,
      double startingCoefficientOfVariation,
      double capacity) {
    public double finalFairness() {
      return fairness[fairness.length - 1];
    }
  }

  public Result run(ControllerKind kind) {
    EventLoop loop = new EventLoop(Instant.EPOCH);
    Clock clock = loop.clock();
    Random random = new Random(seed);
    double[] start =
        InitialRates.withUnitCoefficientOfVariation(clients, capacity / clients, random);
    RateController[] controllers = new RateController[clients];
    for (int i = 0; i < clients; i++) {
      controllers[i] = kind.create(settings, start[i], clock, random);
    }
    long roundNanos = settings.maxInterval().toNanos();
    double[] fairness = new double[rounds + 1];
    double[] total = new double[rounds + 1];
    boolean[] throttled = new boolean[rounds + 1];
    double[] rates = rates(controllers);
    fairness[0] = Fairness.jainIndex(rates);
    total[0] = sum(rates);
    for (int round = 1; round <= rounds; round++) {
      boolean y = total[round - 1] > capacity;
      loop.runBefore(loop.nanos() + roundNanos);
      for (RateController c : controllers) {
        c.onResponse(y);
      }
      throttled[round] = y;
      rates = rates(controllers);
      fairness[round] = Fairness.jainIndex(rates);
      total[round] = sum(rates);
    }
    return new Result(
        kind,
        fairness,
        total,
        epochsToFairness(fairness, throttled),
        Fairness.coefficientOfVariation(start),
        capacity);
  }

  private static int epochsToFairness(double[] fairness, boolean[] throttled) {
    int from = fairness.length;
    while (from > 0 && fairness[from - 1] >= FAIR) {
      from--;
    }
    if (from == fairness.length) {
      return -1;
    }
    int epochs = 0;
    for (int round = 1; round <= from; round++) {
      if (throttled[round]) {
        epochs++;
      }
    }
    return epochs;
  }

  static double[] rates(RateController[] controllers) {
    double[] rates = new double[controllers.length];
    for (int i = 0; i < controllers.length; i++) {
      rates[i] = controllers[i].rate();
    }
    return rates;
  }

  private static double sum(double[] xs) {
    double s = 0;
    for (double x : xs) {
      s += x;
    }
    return s;
  }
}
