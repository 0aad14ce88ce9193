package io.anteroom.door.proof;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Assertions {@link Accounts} verified already, so that a user's every request does not parse and
 * verify its assertion again: keyed by the SHA-256 of the token's bytes (a different token, one
 * byte changed, is another key: it is verified in full), each held until its {@code exp} plus the
 * skew, which a later request must still be before. Only accepted assertions are kept, so a flood
 * of bad ones fills nothing.
 *
 * <p>Bounded: at most {@code capacity} entries; when full, the expired ones are dropped, and if it
 * is still full of live ones it is emptied (each user's next request verifies once again).
 * Thread-safe without a lock on the lookup (a concurrent map).
 */
final class VerifiedTokens {
  /** The 256 bits of a token's SHA-256. */
  private record Key(long a, long b, long c, long d) {}

  private static final ThreadLocal<MessageDigest> SHA256 =
      ThreadLocal.withInitial(
          () -> {
            try {
              return MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
              throw new IllegalStateException(e);
            }
          });

  private final int capacity;
  private final long skewMillis;
  private final ConcurrentHashMap<Key, Accounts.Known> known = new ConcurrentHashMap<>();

  VerifiedTokens(int capacity, long skewMillis) {
    this.capacity = capacity;
    this.skewMillis = skewMillis;
  }

  /** The key of {@code token} (compact JWS: ASCII). */
  static Object keyOf(String token) {
    ByteBuffer h =
        ByteBuffer.wrap(SHA256.get().digest(token.getBytes(StandardCharsets.ISO_8859_1)));
    return new Key(h.getLong(), h.getLong(), h.getLong(), h.getLong());
  }

  /** The account {@code key}'s token was verified as, while it holds at {@code nowMillis}; null. */
  Accounts.Known get(Object key, long nowMillis) {
    Accounts.Known k = known.get((Key) key);
    if (k == null) {
      return null;
    }
    if (nowMillis >= k.expiresAtMillis() + skewMillis) {
      known.remove((Key) key, k);
      return null;
    }
    return k;
  }

  /** Keeps a verified assertion. */
  void put(Object key, Accounts.Known verified, long nowMillis) {
    if (known.size() >= capacity) {
      known.values().removeIf(k -> nowMillis >= k.expiresAtMillis() + skewMillis);
      if (known.size() >= capacity) {
        known.clear();
      }
    }
    known.put((Key) key, verified);
  }

  int size() {
    return known.size();
  }
}
