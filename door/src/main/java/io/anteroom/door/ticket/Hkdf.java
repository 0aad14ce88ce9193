package io.anteroom.door.ticket;

import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HKDF with HMAC-SHA256 (RFC 5869): {@link #extract} a pseudorandom key from input keying material
 * and a salt, then {@link #expand} it into output keying material bound to an {@code info} string.
 * The JDK this builds on (21) has no HKDF API of its own; this is the RFC's two loops over {@link
 * Mac}, checked against the RFC's test vectors.
 *
 * <p>Stateless; each call takes its own {@link Mac} (derivations are rare: a ticket subkey is
 * derived once per key and hour, then cached by {@link TicketCodec}).
 */
public final class Hkdf {

  private static final String HMAC = "HmacSHA256";
  static final int HASH_BYTES = 32;

  private Hkdf() {}

  /** HKDF-Extract: PRK = HMAC-SHA256(salt, ikm); an empty salt is a string of 32 zero bytes. */
  public static byte[] extract(byte[] salt, byte[] ikm) {
    Mac mac = mac(salt.length == 0 ? new byte[HASH_BYTES] : salt);
    return mac.doFinal(ikm);
  }

  /**
   * HKDF-Expand: T(1) | T(2) | ... truncated to {@code length} bytes, where T(i) = HMAC-SHA256(prk,
   * T(i-1) | info | i).
   *
   * @param length 1 to 255 * 32 bytes
   */
  public static byte[] expand(byte[] prk, byte[] info, int length) {
    if (length < 1 || length > 255 * HASH_BYTES) {
      throw new IllegalArgumentException(
          "HKDF-Expand length " + length + "; allowed: 1.." + 255 * HASH_BYTES);
    }
    Mac mac = mac(prk);
    byte[] out = new byte[length];
    byte[] t = new byte[0];
    for (int i = 1, done = 0; done < length; i++) {
      mac.update(t);
      mac.update(info);
      mac.update((byte) i);
      t = mac.doFinal();
      int n = Math.min(HASH_BYTES, length - done);
      System.arraycopy(t, 0, out, done, n);
      done += n;
    }
    return out;
  }

  private static Mac mac(byte[] key) {
    try {
      Mac mac = Mac.getInstance(HMAC);
      mac.init(new SecretKeySpec(key, HMAC));
      return mac;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JDK lacks " + HMAC, e);
    }
  }
}
