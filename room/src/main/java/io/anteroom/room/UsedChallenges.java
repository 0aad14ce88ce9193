package io.anteroom.room;

import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The challenges already answered, so that each one admits once: remembered by nonce until the
 * challenge expires (after that it is refused as expired anyway), at most {@code capacity} at once.
 *
 * <p>Invariants: an unexpired nonce that was {@link #use used} is never accepted again. When the
 * memory is full of unexpired nonces a new answer is refused ({@link Use#FULL}) rather than an
 * entry forgotten early: forgetting would let a replay through, refusing only costs the client a
 * fresh challenge. Memory is bounded by {@code capacity} whatever clients send. Serialized by this
 * object's monitor (one short critical section per answered challenge). Each gateway keeps one per
 * room (a replay on the same gateway costs no call), and the room's global object keeps one for the
 * whole deployment.
 */
public final class UsedChallenges {

  /** The size of a nonce. */
  public static final int NONCE_BYTES = 12;

  /** The outcome of one use. */
  public enum Use {
    FIRST,
    REPLAYED,
    FULL
  }

  private record Nonce(long high, int low) {
    /** The first 8 bytes big-endian, then the next 4 (the core reads bytes without java.nio). */
    static Nonce of(byte[] nonce) {
      long high = 0;
      for (int i = 0; i < 8; i++) {
        high = (high << 8) | (nonce[i] & 0xffL);
      }
      int low = 0;
      for (int i = 8; i < 12; i++) {
        low = (low << 8) | (nonce[i] & 0xff);
      }
      return new Nonce(high, low);
    }
  }

  private record Entry(Nonce nonce, long expiresAtMillis) {}

  private final int capacity;
  private final Map<Nonce, Long> expiries = new HashMap<>();
  private final PriorityQueue<Entry> byExpiry =
      new PriorityQueue<>((a, b) -> Long.compare(a.expiresAtMillis(), b.expiresAtMillis()));

  /**
   * @param capacity the most nonces remembered at once
   */
  public UsedChallenges(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be positive");
    }
    this.capacity = capacity;
  }

  /** Records the use of {@code nonce} (12 bytes) valid until {@code expiresAtMillis}. */
  public synchronized Use use(byte[] nonce, long expiresAtMillis, long nowMillis) {
    if (nonce.length != NONCE_BYTES) {
      throw new IllegalArgumentException(
          "nonce: " + NONCE_BYTES + " bytes expected, found " + nonce.length);
    }
    prune(nowMillis);
    Nonce n = Nonce.of(nonce);
    if (expiries.containsKey(n)) {
      return Use.REPLAYED;
    }
    if (expiries.size() >= capacity) {
      return Use.FULL;
    }
    expiries.put(n, expiresAtMillis);
    byExpiry.add(new Entry(n, expiresAtMillis));
    return Use.FIRST;
  }

  /** How many nonces are remembered now. */
  public synchronized int size() {
    return expiries.size();
  }

  private void prune(long nowMillis) {
    while (!byExpiry.isEmpty() && byExpiry.peek().expiresAtMillis() < nowMillis) {
      expiries.remove(byExpiry.poll().nonce());
    }
  }
}
