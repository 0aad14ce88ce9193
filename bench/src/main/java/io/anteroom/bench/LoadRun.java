package io.anteroom.bench;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * Drives one operation from N concurrent callers (virtual threads) for a bounded time and count,
 * recording each call's latency in an HdrHistogram and every token the calls returned, so that
 * duplicates can be counted afterwards.
 *
 * <p>Invariants: each caller owns its histogram and token buffer (no shared state on the hot path
 * except one counter that enforces the count bound); results are merged only after every caller
 * finished. A failed call stops the run and is rethrown: a benchmark never hides an error.
 */
final class LoadRun {
  private static final long HIGHEST_TRACKABLE_MICROS = TimeUnit.MINUTES.toMicros(5);

  /** One call of the measured operation; returns a token that must be unique across the run. */
  @FunctionalInterface
  interface Call {
    long call(int caller) throws Exception;
  }

  /**
   * What one run measured. Latencies in microseconds; {@code notes} are scenario-specific figures.
   */
  record Measurement(
      String scenario,
      int callers,
      long ops,
      double seconds,
      long p50Micros,
      long p99Micros,
      long maxMicros,
      long duplicates,
      double cpuSeconds,
      String notes) {
    double opsPerSecond() {
      return ops / seconds;
    }

    /**
     * CPU time of this whole process (all threads, user + system) per operation, in microseconds.
     */
    double cpuMicrosPerOp() {
      return ops == 0 ? 0 : cpuSeconds * 1e6 / ops;
    }

    Measurement withNotes(String notes) {
      return new Measurement(
          scenario,
          callers,
          ops,
          seconds,
          p50Micros,
          p99Micros,
          maxMicros,
          duplicates,
          cpuSeconds,
          notes);
    }
  }

  private LoadRun() {}

  static Measurement run(String scenario, int callers, Duration duration, long maxOps, Call call)
      throws InterruptedException {
    AtomicLong budget = new AtomicLong(maxOps);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Histogram[] histograms = new Histogram[callers];
    long[][] tokens = new long[callers][];
    int[] counts = new int[callers];
    List<Thread> threads = new ArrayList<>(callers);
    long cpuStart = processCpuNanos();
    long start = System.nanoTime();
    long deadline = start + duration.toNanos();
    for (int c = 0; c < callers; c++) {
      int caller = c;
      threads.add(
          Thread.ofVirtual()
              .name("bench-caller-" + c)
              .start(
                  () -> {
                    Histogram histogram = new Histogram(HIGHEST_TRACKABLE_MICROS, 3);
                    long[] mine = new long[1024];
                    int n = 0;
                    try {
                      while (failure.get() == null
                          && System.nanoTime() < deadline
                          && budget.getAndDecrement() > 0) {
                        long t0 = System.nanoTime();
                        long token = call.call(caller);
                        long micros = (System.nanoTime() - t0) / 1_000;
                        histogram.recordValue(Math.min(micros, HIGHEST_TRACKABLE_MICROS));
                        if (n == mine.length) mine = Arrays.copyOf(mine, n * 2);
                        mine[n++] = token;
                      }
                    } catch (Throwable t) {
                      failure.compareAndSet(null, t);
                    } finally {
                      histograms[caller] = histogram;
                      tokens[caller] = mine;
                      counts[caller] = n;
                    }
                  }));
    }
    for (Thread t : threads) t.join();
    double seconds = (System.nanoTime() - start) / 1e9;
    double cpuSeconds = (processCpuNanos() - cpuStart) / 1e9;
    if (failure.get() != null) {
      throw new IllegalStateException(
          scenario + " with " + callers + " callers failed: " + failure.get(), failure.get());
    }
    Histogram all = new Histogram(HIGHEST_TRACKABLE_MICROS, 3);
    long ops = 0;
    for (int c = 0; c < callers; c++) {
      all.add(histograms[c]);
      ops += counts[c];
    }
    return new Measurement(
        scenario,
        callers,
        ops,
        seconds,
        all.getValueAtPercentile(50),
        all.getValueAtPercentile(99),
        all.getMaxValue(),
        duplicates(tokens, counts, ops),
        cpuSeconds,
        "");
  }

  /**
   * CPU time used by this process so far. On a machine shared with other work, CPU per operation is
   * a steadier figure than throughput: it does not count the time others held the cores.
   */
  static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** How many tokens appeared more than once (each extra occurrence counts one). */
  static long duplicates(long[][] tokens, int[] counts, long total) {
    long[] all = new long[Math.toIntExact(total)];
    int at = 0;
    for (int c = 0; c < tokens.length; c++) {
      System.arraycopy(tokens[c], 0, all, at, counts[c]);
      at += counts[c];
    }
    Arrays.sort(all);
    long duplicates = 0;
    for (int i = 1; i < all.length; i++) {
      if (all[i] == all[i - 1]) duplicates++;
    }
    return duplicates;
  }
}
