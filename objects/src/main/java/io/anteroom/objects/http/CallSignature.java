package io.anteroom.objects.http;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The authentication of one object call: HMAC-SHA256 with a {@link SharedSecret} over
 *
 * <pre>
 * ANTEROOM-HMAC-SHA256 \n keyId \n METHOD \n request-target (raw path and query) \n date \n nonce \n hex(SHA-256(body))
 * </pre>
 *
 * sent as the headers {@value #KEY_ID}, {@value #DATE} (Unix epoch milliseconds), {@value #NONCE}
 * (16 random bytes, Base64url) and {@value #SIGNATURE} (Base64url of the MAC). No field can contain
 * a newline (HTTP forbids it in a request line and in header values, and the formats below are
 * checked), so the string to sign is unambiguous. Replays are the business of {@link ReplayGuard};
 * this class only says whether the MAC is right, compared in constant time.
 */
final class CallSignature {
  static final String KEY_ID = "Anteroom-Key-Id";
  static final String DATE = "Anteroom-Date";
  static final String NONCE = "Anteroom-Nonce";
  static final String SIGNATURE = "Anteroom-Signature";
  static final String SCHEME = "ANTEROOM-HMAC-SHA256";
  private static final int NONCE_BYTES = 16;
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

  private CallSignature() {}

  /** The headers of a signed call. */
  record Headers(String keyId, String date, String nonce, String signature) {}

  /** SHA-256 of a body, lower-case hex, computed once per call (before the event loop sees it). */
  static String bodyHash(byte[] body) {
    return HexFormat.of().formatHex(sha256().digest(body));
  }

  /** Signs a call at {@code epochMillis} with a fresh random nonce. */
  static Headers sign(
      SharedSecret secret, String method, String requestTarget, String bodyHash, long epochMillis) {
    byte[] n = new byte[NONCE_BYTES];
    RANDOM.nextBytes(n);
    String date = Long.toString(epochMillis);
    String nonce = B64.encodeToString(n);
    byte[] mac =
        mac(secret, stringToSign(secret.keyId(), method, requestTarget, date, nonce, bodyHash));
    return new Headers(secret.keyId(), date, nonce, B64.encodeToString(mac));
  }

  /**
   * Whether {@code signature} is the MAC of the call under the secret named {@code keyId} among
   * {@code secrets}. The comparison takes the same time wherever the bytes differ.
   */
  static boolean verify(
      List<SharedSecret> secrets,
      String keyId,
      String method,
      String requestTarget,
      String date,
      String nonce,
      String bodyHash,
      String signature) {
    byte[] given;
    try {
      given = Base64.getUrlDecoder().decode(signature);
    } catch (IllegalArgumentException e) {
      return false;
    }
    String toSign = null;
    boolean ok = false;
    for (SharedSecret s : secrets) {
      if (s.keyId().equals(keyId)) {
        if (toSign == null)
          toSign = stringToSign(keyId, method, requestTarget, date, nonce, bodyHash);
        ok |= MessageDigest.isEqual(mac(s, toSign), given);
      }
    }
    return ok;
  }

  /** A date header is 1 to 15 ASCII digits; anything else is refused before any other work. */
  static long parseDate(String date) {
    if (date == null || date.isEmpty() || date.length() > 15) return -1;
    long v = 0;
    for (int i = 0; i < date.length(); i++) {
      char c = date.charAt(i);
      if (c < '0' || c > '9') return -1;
      v = v * 10 + (c - '0');
    }
    return v;
  }

  /** A nonce is 16 to 64 Base64url characters. */
  static boolean validNonce(String nonce) {
    if (nonce == null || nonce.length() < 16 || nonce.length() > 64) return false;
    for (int i = 0; i < nonce.length(); i++) {
      char c = nonce.charAt(i);
      if (!(c >= 'A' && c <= 'Z'
          || c >= 'a' && c <= 'z'
          || c >= '0' && c <= '9'
          || c == '-'
          || c == '_')) {
        return false;
      }
    }
    return true;
  }

  static String stringToSign(
      String keyId,
      String method,
      String requestTarget,
      String date,
      String nonce,
      String bodyHash) {
    return SCHEME
        + '\n'
        + keyId
        + '\n'
        + method
        + '\n'
        + requestTarget
        + '\n'
        + date
        + '\n'
        + nonce
        + '\n'
        + bodyHash;
  }

  private static byte[] mac(SharedSecret secret, String toSign) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.key(), "HmacSHA256"));
      return mac.doFinal(toSign.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available in this JVM", e);
    }
  }
}
