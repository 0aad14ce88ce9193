package io.anteroom.door.proof;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How many new identities (tickets, places in line) one client address prefix may get per minute,
 * on this gateway: a token bucket per prefix holding at most {@code perMinute} identities and
 * refilled at {@code perMinute} a minute, so a prefix gets a burst of {@code perMinute} and then
 * one every {@code 60 / perMinute} seconds.
 *
 * <p>Invariants: at most {@code capacity} prefixes are remembered; beyond that the one seen least
 * recently is forgotten, which only gives it a full bucket again (as every prefix of a flood has
 * anyway): memory is bounded whatever the number of distinct addresses. Deterministic: time is
 * given. Serialized by this object's monitor.
 */
public final class NewIdentityLimit {

  /** The prefixes remembered per room: about 100 bytes each, about 7 MB when full. */
  public static final int DEFAULT_CAPACITY = 65_536;

  /**
   * The prefix's theoretical arrival time of the GCRA (the token bucket in whole numbers): in
   * milliseconds times {@code perMinute}, so that one identity is exactly 60,000 units.
   */
  private static final class Bucket {
    long tat;
  }

  private static final long ONE = 60_000L;

  private final int perMinute;
  private final LinkedHashMap<String, Bucket> buckets;

  public NewIdentityLimit(int perMinute, int capacity) {
    if (perMinute < 1 || capacity < 1) {
      throw new IllegalArgumentException("perMinute and capacity must be positive");
    }
    this.perMinute = perMinute;
    this.buckets =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Bucket> eldest) {
            return size() > capacity;
          }
        };
  }

  /** The identities a prefix may get per minute. */
  public int perMinute() {
    return perMinute;
  }

  /**
   * Takes one new identity for {@code prefix} at {@code nowMillis}: 0 when it may have it, else the
   * whole seconds until it may (at least 1), for {@code Retry-After}; nothing is taken then.
   */
  public synchronized int take(String prefix, long nowMillis) {
    long now = nowMillis * perMinute;
    Bucket b = buckets.get(prefix);
    if (b == null) {
      b = new Bucket();
      b.tat = now;
      buckets.put(prefix, b);
    }
    long t = Math.max(b.tat, now);
    long burst = (perMinute - 1) * ONE;
    if (t - now <= burst) {
      b.tat = t + ONE;
      return 0;
    }
    long waitMillis = Math.ceilDiv(t - burst - now, perMinute);
    return (int) Math.max(1, Math.ceilDiv(waitMillis, 1000));
  }

  /** How many prefixes are remembered now. */
  public synchronized int size() {
    return buckets.size();
  }
}
