package io.anteroom.backpressure;

/**
 * Events per second over a sliding window of fixed buckets, in the ticks (nanoseconds) of an
 * injected clock.
 *
 * <p>Invariants: every method is synchronized, so a bucket is reset and counted atomically; a
 * bucket slot holds the count of exactly the bucket number stored beside it, and a slot whose
 * number is older than the window counts as zero. The current (partial) bucket is included, so the
 * measured span is between {@code window - bucketWidth} and {@code window}; the rate divides by the
 * full window, which under-reads by at most one bucket's share (5% with 20 buckets).
 */
final class SlidingWindowRate {
  private final long bucketNanos;
  private final long[] bucketNumbers;
  private final long[] counts;
  private final double windowSeconds;

  SlidingWindowRate(long windowNanos, int buckets) {
    if (buckets < 1 || windowNanos < buckets) {
      throw new IllegalArgumentException(
          "sliding window: need at least one bucket of at least 1 ns, got "
              + buckets
              + " buckets over "
              + windowNanos
              + " ns");
    }
    this.bucketNanos = windowNanos / buckets;
    this.bucketNumbers = new long[buckets];
    this.counts = new long[buckets];
    this.windowSeconds = bucketNanos * (double) buckets / 1e9;
    java.util.Arrays.fill(bucketNumbers, Long.MIN_VALUE);
  }

  synchronized void mark(long tick) {
    long bucket = Math.floorDiv(tick, bucketNanos);
    int slot = (int) Math.floorMod(bucket, (long) counts.length);
    if (bucketNumbers[slot] != bucket) {
      bucketNumbers[slot] = bucket;
      counts[slot] = 0;
    }
    counts[slot]++;
  }

  synchronized double ratePerSecond(long tick) {
    long current = Math.floorDiv(tick, bucketNanos);
    long oldest = current - counts.length + 1;
    long sum = 0;
    for (int i = 0; i < counts.length; i++) {
      if (bucketNumbers[i] >= oldest && bucketNumbers[i] <= current) {
        sum += counts[i];
      }
    }
    return sum / windowSeconds;
  }
}
