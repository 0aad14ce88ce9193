package io.anteroom.objects.http;

import java.time.Clock;
import java.util.HashSet;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * Refuses a signed call whose date is outside {@code now ± window} or whose nonce was already seen.
 * A nonce is remembered until its own date plus the window has passed: after that the date alone
 * refuses it, so memory is bounded by the calls of at most two windows. Above {@code capacity}
 * remembered nonces, new calls are refused ({@link Verdict#FULL}) rather than memory growing; only
 * peers holding the secret can fill it, because the signature is checked first.
 *
 * <p>Thread-safe (one lock; each check is O(log n)).
 */
final class ReplayGuard {
  enum Verdict {
    ACCEPTED,
    STALE,
    REPLAYED,
    FULL
  }

  private record Remembered(long expiresAt, String nonce) {}

  private final Clock clock;
  private final long windowMillis;
  private final int capacity;
  private final Set<String> seen = new HashSet<>();
  private final PriorityQueue<Remembered> byExpiry =
      new PriorityQueue<>((a, b) -> Long.compare(a.expiresAt, b.expiresAt));

  ReplayGuard(Clock clock, long windowMillis, int capacity) {
    this.clock = clock;
    this.windowMillis = windowMillis;
    this.capacity = capacity;
  }

  /** Whether the date is within the window now (checked before the body is read). */
  boolean fresh(long dateMillis) {
    return Math.abs(clock.millis() - dateMillis) <= windowMillis;
  }

  /** Checks the date again and remembers the nonce if the call is accepted. */
  synchronized Verdict admit(long dateMillis, String nonce) {
    long now = clock.millis();
    if (Math.abs(now - dateMillis) > windowMillis) return Verdict.STALE;
    while (!byExpiry.isEmpty() && byExpiry.peek().expiresAt < now) {
      seen.remove(byExpiry.poll().nonce);
    }
    if (seen.contains(nonce)) return Verdict.REPLAYED;
    if (seen.size() >= capacity) return Verdict.FULL;
    seen.add(nonce);
    byExpiry.add(new Remembered(dateMillis + windowMillis, nonce));
    return Verdict.ACCEPTED;
  }

  synchronized int remembered() {
    return seen.size();
  }
}
