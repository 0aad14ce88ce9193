package io.anteroom.room.history;

import java.time.Duration;
import java.util.Arrays;
import java.util.OptionalLong;

/**
 * Real waits (admission time minus arrival) counted in fixed, roughly logarithmic buckets, so that
 * every reporter sends a few numbers per minute and the room merges them by adding. Percentiles are
 * computed on read and answer the upper bound of the bucket holding the rank: at most one bucket
 * width above the true value, never below it (the open last bucket answers its lower bound).
 *
 * <p>Immutable; {@code counts} has one entry per bound of {@link #UPPER_BOUNDS_SECONDS} plus the
 * open bucket above the last bound.
 *
 * <pre>{@code
 * WaitHistogram h = WaitHistogram.EMPTY.with(Duration.ofSeconds(40)).with(Duration.ofMinutes(3));
 * h.plus(fromOtherGateway).percentileSeconds(0.95);
 * }</pre>
 *
 * @param counts waits per bucket: bucket {@code i} holds waits {@code <= UPPER_BOUNDS_SECONDS[i]}
 *     (and above the previous bound)
 */
public record WaitHistogram(long[] counts) {
  /** Bucket upper bounds in seconds; waits above the last one fall in the open last bucket. */
  public static final long[] UPPER_BOUNDS_SECONDS = {
    0, 5, 10, 20, 30, 45, 60, 90, 120, 180, 240, 300, 450, 600, 900, 1200, 1800, 2700, 3600, 5400,
    7200, 10800, 14400, 21600
  };

  /** Number of buckets, the open one included. */
  public static final int BUCKETS = UPPER_BOUNDS_SECONDS.length + 1;

  public static final WaitHistogram EMPTY = new WaitHistogram(new long[BUCKETS]);

  /**
   * Normalizes a shorter array (an older sender) with zeros; rejects a longer one or negative
   * counts.
   */
  public WaitHistogram {
    if (counts == null) {
      counts = new long[BUCKETS];
    }
    if (counts.length > BUCKETS) {
      throw new IllegalArgumentException(
          "realWaits.counts: at most " + BUCKETS + " buckets, found " + counts.length);
    }
    counts = Arrays.copyOf(counts, BUCKETS);
    for (long c : counts) {
      if (c < 0) {
        throw new IllegalArgumentException("realWaits.counts: negative count " + c);
      }
    }
  }

  /** The bucket of a wait ({@code wait} below zero counts as zero). */
  public static int bucketOf(Duration wait) {
    long s = Math.max(0, wait.toSeconds() + (wait.toNanosPart() > 0 ? 1 : 0));
    for (int i = 0; i < UPPER_BOUNDS_SECONDS.length; i++) {
      if (s <= UPPER_BOUNDS_SECONDS[i]) {
        return i;
      }
    }
    return UPPER_BOUNDS_SECONDS.length;
  }

  /** This histogram with one more wait. */
  public WaitHistogram with(Duration wait) {
    long[] c = counts.clone();
    c[bucketOf(wait)]++;
    return new WaitHistogram(c);
  }

  /** The bucket-wise sum. */
  public WaitHistogram plus(WaitHistogram other) {
    long[] c = counts.clone();
    for (int i = 0; i < BUCKETS; i++) {
      c[i] += other.counts[i];
    }
    return new WaitHistogram(c);
  }

  /** How many waits it counts. */
  public long total() {
    long t = 0;
    for (long c : counts) {
      t += c;
    }
    return t;
  }

  public boolean isEmpty() {
    return total() == 0;
  }

  /**
   * The wait at quantile {@code q} (0 < q <= 1) in seconds: the upper bound of the bucket holding
   * the {@code ceil(q × total)}-th wait; empty when no wait was counted.
   */
  public OptionalLong percentileSeconds(double q) {
    if (!(q > 0 && q <= 1)) {
      throw new IllegalArgumentException("quantile must be in (0, 1], found " + q);
    }
    long total = total();
    if (total == 0) {
      return OptionalLong.empty();
    }
    long rank = (long) Math.ceil(q * total);
    long seen = 0;
    for (int i = 0; i < BUCKETS; i++) {
      seen += counts[i];
      if (seen >= rank) {
        return OptionalLong.of(
            i < UPPER_BOUNDS_SECONDS.length
                ? UPPER_BOUNDS_SECONDS[i]
                : UPPER_BOUNDS_SECONDS[UPPER_BOUNDS_SECONDS.length - 1]);
      }
    }
    throw new AssertionError("rank " + rank + " beyond total " + total);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof WaitHistogram h && Arrays.equals(counts, h.counts);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(counts);
  }

  @Override
  public long[] counts() {
    return counts.clone();
  }

  @Override
  public String toString() {
    return "WaitHistogram" + Arrays.toString(counts);
  }
}
