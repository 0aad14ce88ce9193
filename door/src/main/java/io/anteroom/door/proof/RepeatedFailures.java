package io.anteroom.door.proof;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Counts refused proof-of-work answers per binding (client address): a binding with {@link
 * #THRESHOLD} or more failures, the last one less than {@link #WINDOW_MILLIS} ago, is {@link
 * #marked}. A failure more than the window after the previous one starts the count again.
 *
 * <p>Invariants: at most {@code capacity} bindings are remembered; beyond that the one that failed
 * least recently is forgotten (a forgotten client is only given challenges again: forgetting never
 * admits anyone). Serialized by this object's monitor.
 */
public final class RepeatedFailures {

  /** Refused answers after which a binding is marked. */
  public static final int THRESHOLD = 5;

  /** How long a binding stays marked after its last failure, and how far apart failures count. */
  public static final long WINDOW_MILLIS = 10 * 60_000L;

  private static final class Count {
    int failures;
    long lastMillis;
  }

  private final LinkedHashMap<String, Count> counts;
  private final int threshold;

  public RepeatedFailures(int capacity) {
    this(capacity, THRESHOLD);
  }

  /** A memory that marks a binding after {@code threshold} failures. */
  public RepeatedFailures(int capacity, int threshold) {
    this.threshold = threshold;
    if (capacity < 1 || threshold < 1) {
      throw new IllegalArgumentException("capacity must be positive");
    }
    this.counts =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Count> eldest) {
            return size() > capacity;
          }
        };
  }

  /** One refused answer from {@code binding}. */
  public synchronized void failed(String binding, long nowMillis) {
    Count c = counts.computeIfAbsent(binding, b -> new Count());
    if (nowMillis - c.lastMillis >= WINDOW_MILLIS) {
      c.failures = 0;
    }
    c.failures++;
    c.lastMillis = nowMillis;
  }

  /** Whether {@code binding} failed too often lately. */
  public synchronized boolean marked(String binding, long nowMillis) {
    Count c = counts.get(binding);
    return c != null && c.failures >= threshold && nowMillis - c.lastMillis < WINDOW_MILLIS;
  }
}
