package io.anteroom.door.proof;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How many new identities and refused proof-of-work answers each client address prefix had in its
 * current 10-minute window, for a difficulty that rises with them ({@code
 * proofOfWork.maxExtraBits}). A prefix's window starts with its first event and is counted again
 * from zero {@link #WINDOW_MILLIS} later.
 *
 * <p>Invariants: at most {@code capacity} prefixes are remembered; beyond that the one seen least
 * recently is forgotten (its difficulty falls back to the room's: forgetting never admits anyone
 * without work). Serialized by this object's monitor.
 */
public final class PrefixActivity {

  /** The window events are counted in. */
  public static final long WINDOW_MILLIS = 10 * 60_000L;

  private static final class Count {
    int events;
    long since;
  }

  private final LinkedHashMap<String, Count> counts;

  public PrefixActivity(int capacity) {
    if (capacity < 1) {
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

  /** One event (a new identity, a refused answer) of {@code prefix}. */
  public synchronized void record(String prefix, long nowMillis) {
    Count c = counts.get(prefix);
    if (c == null || nowMillis - c.since >= WINDOW_MILLIS) {
      c = new Count();
      c.since = nowMillis;
      counts.put(prefix, c);
    }
    c.events++;
  }

  /** The events of {@code prefix} in its current window. */
  public synchronized int events(String prefix, long nowMillis) {
    Count c = counts.get(prefix);
    return c == null || nowMillis - c.since >= WINDOW_MILLIS ? 0 : c.events;
  }
}
