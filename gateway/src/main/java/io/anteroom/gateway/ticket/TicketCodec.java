package io.anteroom.gateway.ticket;

import io.anteroom.gateway.config.GatewayConfig.TicketKey;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals and opens ticket cookies with AES-GCM. Wire format (then base64url without padding): {@code
 * keyId (1 byte) | nonce (12 random bytes) | ciphertext + 16-byte tag}. The room id is the
 * additional authenticated data, so a cookie of another room fails to open like a tampered one.
 *
 * <p>Thread safety: immutable; a {@link Cipher} is not thread-safe, so each call takes one from a
 * thread-local. Sealing always uses the first key; opening accepts any configured key id, which is
 * what lets an operator rotate keys (add the new key first, keep the old one until sessions end).
 *
 * <pre>{@code
 * var codec = new TicketCodec(List.of(new TicketKey(1, secret)));
 * String cookie = codec.seal("shop", payload);
 * Optional<byte[]> back = codec.open("shop", cookie);   // empty when tampered, truncated, other room
 * }</pre>
 */
public final class TicketCodec {

  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;
  private static final int MIN_SEALED = 1 + NONCE_BYTES + TAG_BITS / 8;

  /** Longer cookie values are refused without decoding: bounds the work an attacker can cause. */
  static final int MAX_COOKIE_CHARS = 512;

  private static final ThreadLocal<Cipher> CIPHER =
      ThreadLocal.withInitial(
          () -> {
            try {
              return Cipher.getInstance("AES/GCM/NoPadding");
            } catch (GeneralSecurityException e) {
              throw new IllegalStateException("this JDK lacks AES/GCM/NoPadding", e);
            }
          });

  /**
   * Nonces come from a DRBG instance per thread: the default {@code NativePRNG} reads /dev/urandom
   * under one process-wide lock on every call, which the admitted hot path (a fresh nonce per
   * request) cannot afford.
   */
  private static final ThreadLocal<SecureRandom> RANDOM =
      ThreadLocal.withInitial(
          () -> {
            try {
              return SecureRandom.getInstance("DRBG");
            } catch (java.security.NoSuchAlgorithmException e) {
              return new SecureRandom();
            }
          });

  private final SecretKeySpec[] byId = new SecretKeySpec[256];
  private final int sealingId;

  /**
   * @param keys at least one key; the first one seals new cookies
   */
  public TicketCodec(List<TicketKey> keys) {
    if (keys.isEmpty()) {
      throw new IllegalArgumentException("ticketKeys: at least one key is needed");
    }
    for (TicketKey k : keys) {
      byId[k.id()] = new SecretKeySpec(k.secret(), "AES");
    }
    sealingId = keys.get(0).id();
  }

  /** Encrypts {@code payload} for {@code roomId}; a fresh random nonce every call. */
  public String seal(String roomId, byte[] payload) {
    byte[] nonce = new byte[NONCE_BYTES];
    RANDOM.get().nextBytes(nonce);
    Cipher c = CIPHER.get();
    try {
      c.init(Cipher.ENCRYPT_MODE, byId[sealingId], new GCMParameterSpec(TAG_BITS, nonce));
      c.updateAAD(roomId.getBytes(StandardCharsets.UTF_8));
      byte[] out = new byte[1 + NONCE_BYTES + c.getOutputSize(payload.length)];
      out[0] = (byte) sealingId;
      System.arraycopy(nonce, 0, out, 1, NONCE_BYTES);
      c.doFinal(payload, 0, payload.length, out, 1 + NONCE_BYTES);
      return Base64.getUrlEncoder().withoutPadding().encodeToString(out);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM sealing failed", e);
    }
  }

  /**
   * Decrypts a cookie value of {@code roomId}. Empty when the value is absent, not base64url,
   * truncated, sealed with an unknown key, tampered with or sealed for another room: the caller
   * then treats the user as new. Never throws for bad input.
   */
  public Optional<byte[]> open(String roomId, String cookie) {
    if (cookie == null || cookie.length() > MAX_COOKIE_CHARS) {
      return Optional.empty();
    }
    byte[] in;
    try {
      in = Base64.getUrlDecoder().decode(cookie);
    } catch (IllegalArgumentException e) {
      return Optional.empty(); // not ours: a garbled or foreign cookie is a new user, by design
    }
    if (in.length < MIN_SEALED) {
      return Optional.empty();
    }
    SecretKeySpec key = byId[in[0] & 0xFF];
    if (key == null) {
      return Optional.empty();
    }
    Cipher c = CIPHER.get();
    try {
      c.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, in, 1, NONCE_BYTES));
      c.updateAAD(roomId.getBytes(StandardCharsets.UTF_8));
      return Optional.of(c.doFinal(in, 1 + NONCE_BYTES, in.length - 1 - NONCE_BYTES));
    } catch (GeneralSecurityException e) {
      return Optional.empty(); // authentication failed: tampered or other room, i.e. a new user
    }
  }

  /** The key id that seals new cookies (written as the first byte). */
  int sealingKeyId() {
    return sealingId;
  }
}
