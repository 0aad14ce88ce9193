package io.anteroom.room;

/**
 * Keyed draws over ticket ids: SipHash-2-4 (a keyed pseudo-random function) of {@code (context,
 * ticket id, round)} under a secret 128-bit key that clients never see. Every admission point
 * holding the same key draws the same numbers, so gateways agree on a shuffled order or a minute's
 * winners without talking to each other; a client cannot predict its draw (its ticket id is sealed
 * in the cookie and the key is secret) and cannot improve it by asking again (the same ticket and
 * round always draw the same number).
 *
 * <p>Pure arithmetic, immutable, safe for concurrent use.
 */
public final class Lottery {
  private final long k0;
  private final long k1;

  /**
   * @param key the secret (at least 16 bytes; the first 16 are used); every gateway of a deployment
   *     must use the same
   */
  public Lottery(byte[] key) {
    if (key == null || key.length < 16) {
      throw new IllegalArgumentException("lottery key: at least 16 bytes are required");
    }
    this.k0 = littleEndian(key, 0);
    this.k1 = littleEndian(key, 8);
  }

  /** A uniform number in {@code [0, 1)} for one ticket, context and round. */
  public double uniform(String context, long ticketId, long round) {
    long bits = sipHash24(contextHash(context), ticketId, round);
    return (bits >>> 11) * 0x1.0p-53;
  }

  /** A place in {@code 0 .. places - 1} for one ticket and context, the same on every gateway. */
  public int place(String context, long ticketId, int places) {
    return (int) Math.min(places - 1, (long) (uniform(context, ticketId, 0) * places));
  }

  /** FNV-1a over the context's chars: names the draw; the secrecy is the key's. */
  private static long contextHash(String context) {
    long h = 0xcbf29ce484222325L;
    for (int i = 0; i < context.length(); i++) {
      h = (h ^ context.charAt(i)) * 0x100000001b3L;
    }
    return h;
  }

  private static long littleEndian(byte[] b, int off) {
    long v = 0;
    for (int i = 7; i >= 0; i--) {
      v = (v << 8) | (b[off + i] & 0xFFL);
    }
    return v;
  }

  /** SipHash-2-4 of the 24-byte little-endian message {@code m0 m1 m2}. */
  private long sipHash24(long m0, long m1, long m2) {
    long[] v = {
      k0 ^ 0x736f6d6570736575L,
      k1 ^ 0x646f72616e646f6dL,
      k0 ^ 0x6c7967656e657261L,
      k1 ^ 0x7465646279746573L
    };
    for (long m : new long[] {m0, m1, m2, 24L << 56}) {
      v[3] ^= m;
      round(v);
      round(v);
      v[0] ^= m;
    }
    v[2] ^= 0xff;
    for (int i = 0; i < 4; i++) {
      round(v);
    }
    return v[0] ^ v[1] ^ v[2] ^ v[3];
  }

  private static void round(long[] v) {
    v[0] += v[1];
    v[1] = Long.rotateLeft(v[1], 13);
    v[1] ^= v[0];
    v[0] = Long.rotateLeft(v[0], 32);
    v[2] += v[3];
    v[3] = Long.rotateLeft(v[3], 16);
    v[3] ^= v[2];
    v[0] += v[3];
    v[3] = Long.rotateLeft(v[3], 21);
    v[3] ^= v[0];
    v[2] += v[1];
    v[1] = Long.rotateLeft(v[1], 17);
    v[1] ^= v[2];
    v[2] = Long.rotateLeft(v[2], 32);
  }
}
