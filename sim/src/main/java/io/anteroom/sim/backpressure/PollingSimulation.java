package io.anteroom.sim.backpressure;

import io.anteroom.backpressure.RateController;
import io.anteroom.backpressure.ThresholdMonitor;
import io.anteroom.sim.engine.EventLoop;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Discrete-event core shared by the event model and the reference experiment: periodic clients,
 * each paced by a real {@link RateController}, poll servers chosen at random; each server is a real
 * {@link ThresholdMonitor} that records the request and answers with {@code thresholdExceeded()}.
 *
 * <p>Single-threaded and deterministic for a seed: polls are events of the simulator's one {@link
 * EventLoop}, ordered by time, then by the order they were scheduled. Load is counted per bucket of
 * {@code bucket} length; Jain's index over the active clients' rates is sampled at each bucket's
 * end.
 */
final class PollingSimulation {
  private static final Duration SERVICE_TIME = Duration.ofMillis(10);

  private final EventLoop loop;
  private final Random random;
  private final List<ThresholdMonitor> servers;
  private final long bucketNanos;
  private final List<RateController> clients = new ArrayList<>();
  private final List<Boolean> active = new ArrayList<>();

  private final List<Double> load = new ArrayList<>();
  private final List<Double> fairness = new ArrayList<>();
  private final List<Double> throughputFairness = new ArrayList<>();
  private final int fairnessWindowBuckets;
  private final ArrayDeque<long[]> pollSnapshots = new ArrayDeque<>();
  private long[] polls = new long[1024];
  private long bucketCount;
  private long bucketEndNanos;
  private long[] throttledAt = new long[1024];
  private int throttledCount;

  PollingSimulation(
      EventLoop loop,
      Random random,
      List<ThresholdMonitor> servers,
      Duration bucket,
      Duration fairnessWindow) {
    this.fairnessWindowBuckets = (int) (fairnessWindow.toNanos() / bucket.toNanos());
    if (fairnessWindowBuckets < 1) {
      throw new IllegalArgumentException(
          "the fairness window ("
              + fairnessWindow
              + ") must hold at least one bucket ("
              + bucket
              + ")");
    }
    this.loop = loop;
    this.random = random;
    this.servers = List.copyOf(servers);
    this.bucketNanos = bucket.toNanos();
    this.bucketEndNanos = loop.nanos() + bucketNanos;
  }

  /** Adds a client whose first poll comes at a uniformly random point of its first interval. */
  int addClient(RateController controller) {
    int id = clients.size();
    clients.add(controller);
    active.add(true);
    if (id == polls.length) {
      polls = Arrays.copyOf(polls, id * 2);
    }
    long first = loop.nanos() + (long) (random.nextDouble() * controller.interval().toNanos());
    loop.atNanos(first, () -> poll(id));
    return id;
  }

  /** Stops a client: its pending poll is dropped and it no longer counts in the fairness index. */
  void removeClient(int id) {
    active.set(id, false);
  }

  RateController client(int id) {
    return clients.get(id);
  }

  int clientCount() {
    return clients.size();
  }

  /** Runs every event up to {@code endNanos} (exclusive) and leaves the clock there. */
  void runUntil(long endNanos) {
    loop.runBefore(endNanos);
    closeBucketsBefore(endNanos);
  }

  /** One client's poll, at the loop's current time; schedules its next one. */
  private void poll(int client) {
    long at = loop.nanos();
    closeBucketsBefore(at);
    if (!active.get(client)) {
      return;
    }
    ThresholdMonitor server = servers.get(random.nextInt(servers.size()));
    server.record(SERVICE_TIME);
    boolean throttle = server.thresholdExceeded();
    if (throttle) {
      recordThrottle(at);
    }
    bucketCount++;
    polls[client]++;
    RateController controller = clients.get(client);
    controller.onResponse(throttle);
    loop.atNanos(at + controller.nextDelay().toNanos(), () -> poll(client));
  }

  private void closeBucketsBefore(long nanos) {
    while (bucketEndNanos <= nanos) {
      load.add(bucketCount * 1e9 / bucketNanos);
      fairness.add(Fairness.jainIndex(activeRates()));
      throughputFairness.add(windowFairness());
      bucketCount = 0;
      bucketEndNanos += bucketNanos;
    }
  }

  /**
   * Jain's index over what each client was served during the last window: requests per client for
   * the clients active through all of it (NaN until a whole window has passed).
   */
  private double windowFairness() {
    pollSnapshots.addLast(Arrays.copyOf(polls, clients.size()));
    if (pollSnapshots.size() <= fairnessWindowBuckets) {
      return Double.NaN;
    }
    long[] before = pollSnapshots.removeFirst();
    double[] served = new double[before.length];
    int n = 0;
    for (int i = 0; i < before.length; i++) {
      if (active.get(i)) {
        served[n++] = polls[i] - before[i];
      }
    }
    return n == 0 ? Double.NaN : Fairness.jainIndex(Arrays.copyOf(served, n));
  }

  private void recordThrottle(long nanos) {
    if (throttledCount == throttledAt.length) {
      throttledAt = Arrays.copyOf(throttledAt, throttledCount * 2);
    }
    throttledAt[throttledCount++] = nanos;
  }

  double[] activeRates() {
    double[] rates = new double[clients.size()];
    int n = 0;
    for (int i = 0; i < rates.length; i++) {
      if (active.get(i)) {
        rates[n++] = clients.get(i).rate();
      }
    }
    return Arrays.copyOf(rates, n);
  }

  /** Requests per second in each completed bucket. */
  double[] load() {
    return load.stream().mapToDouble(Double::doubleValue).toArray();
  }

  /** Jain's index over the active clients' rates at the end of each completed bucket. */
  double[] fairness() {
    return fairness.stream().mapToDouble(Double::doubleValue).toArray();
  }

  /**
   * Jain's index over the requests each client made in the fairness window ending with each bucket.
   */
  double[] throughputFairness() {
    return throughputFairness.stream().mapToDouble(Double::doubleValue).toArray();
  }

  /** The first throttled reply at or after {@code nanos}, or -1. */
  long firstThrottleAtOrAfter(long nanos) {
    int i = Arrays.binarySearch(throttledAt, 0, throttledCount, nanos);
    int at = i >= 0 ? firstOf(i, nanos) : -i - 1;
    return at < throttledCount ? throttledAt[at] : -1;
  }

  /** The last throttled reply in {@code [from, before)}, or -1. */
  long lastThrottleIn(long from, long before) {
    int i = Arrays.binarySearch(throttledAt, 0, throttledCount, before);
    int end = i >= 0 ? firstOf(i, before) : -i - 1;
    return end > 0 && throttledAt[end - 1] >= from ? throttledAt[end - 1] : -1;
  }

  private int firstOf(int index, long value) {
    while (index > 0 && throttledAt[index - 1] == value) {
      index--;
    }
    return index;
  }

  long bucketNanos() {
    return bucketNanos;
  }
}
