package io.anteroom.objects.http;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The key that the gateways and coordinators of one deployment share to authenticate object calls
 * (HMAC-SHA256, see {@link HttpObjectServer}). A secret has a short public <em>key id</em>, sent
 * with every call, so that a server can accept the old and the new key during a rotation.
 *
 * <pre>{@code
 * // coordinator.secret: "k1:" + base64 of at least 32 random bytes (e.g. `openssl rand -base64 32`)
 * SharedSecret secret = SharedSecret.parse(config.coordinatorSecret());
 * HttpObjectServer.builder(runtime.transport()).secret(secret).export("counter")...;
 * HttpObjectTransport.builder(uri).secret(secret)...;
 * }</pre>
 *
 * <p>Immutable. {@link #toString()} never shows the key.
 */
public final class SharedSecret {
  /** Fewer bytes than an HMAC-SHA256 output would make the key the weakest part. */
  public static final int MIN_BYTES = 32;

  private static final Pattern KEY_ID = Pattern.compile("[A-Za-z0-9._-]{1,32}");

  private final String keyId;
  private final byte[] key;

  private SharedSecret(String keyId, byte[] key) {
    this.keyId = keyId;
    this.key = key;
  }

  /**
   * A secret of raw key bytes (copied).
   *
   * @throws IllegalArgumentException if the key has fewer than {@value #MIN_BYTES} bytes or the key
   *     id is not 1 to 32 characters of {@code A-Z a-z 0-9 . _ -}
   */
  public static SharedSecret of(String keyId, byte[] key) {
    Objects.requireNonNull(keyId, "keyId");
    Objects.requireNonNull(key, "key");
    if (!KEY_ID.matcher(keyId).matches()) {
      throw new IllegalArgumentException(
          "shared secret key id must be 1 to 32 characters of A-Z a-z 0-9 . _ -, got \""
              + (keyId.length() > 40 ? keyId.substring(0, 40) + "..." : keyId)
              + '"');
    }
    if (key.length < MIN_BYTES) {
      throw new IllegalArgumentException(
          "shared secret \""
              + keyId
              + "\" has "
              + key.length
              + " bytes; at least "
              + MIN_BYTES
              + " random bytes are required (e.g. `openssl rand -base64 32`)");
    }
    return new SharedSecret(keyId, key.clone());
  }

  /**
   * Parses the configuration form {@code keyId:base64} (standard or URL-safe Base64, padding
   * optional), e.g. {@code k1:q8Vd...}; a value without {@code ':'} gets the key id {@code k1}.
   *
   * @throws IllegalArgumentException saying what is wrong, never echoing the key
   */
  public static SharedSecret parse(String value) {
    Objects.requireNonNull(value, "value");
    String v = value.strip();
    int colon = v.indexOf(':');
    String keyId = colon < 0 ? "k1" : v.substring(0, colon);
    String encoded = colon < 0 ? v : v.substring(colon + 1);
    byte[] key;
    try {
      key =
          (encoded.indexOf('-') >= 0 || encoded.indexOf('_') >= 0
                  ? Base64.getUrlDecoder()
                  : Base64.getDecoder())
              .decode(encoded);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "shared secret \""
              + keyId
              + "\" is not valid Base64 (expected keyId:base64, "
              + "e.g. k1:$(openssl rand -base64 32))",
          e);
    }
    return of(keyId, key);
  }

  /** A fresh random secret of 32 bytes, e.g. for a setup command that writes the configuration. */
  public static SharedSecret generate(String keyId) {
    byte[] key = new byte[MIN_BYTES];
    new SecureRandom().nextBytes(key);
    return of(keyId, key);
  }

  /** The public name of this key, sent with each call. */
  public String keyId() {
    return keyId;
  }

  /**
   * The configuration form {@code keyId:base64}, accepted by {@link #parse}. Contains the key: keep
   * it secret.
   */
  public String encoded() {
    return keyId + ':' + Base64.getEncoder().encodeToString(key);
  }

  byte[] key() {
    return key.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SharedSecret s
        && s.keyId.equals(keyId)
        && java.security.MessageDigest.isEqual(s.key, key);
  }

  @Override
  public int hashCode() {
    return keyId.hashCode();
  }

  /** Shows the key id only. */
  @Override
  public String toString() {
    return "SharedSecret[" + keyId + ", " + key.length + " bytes]";
  }

  static boolean validKeyId(String keyId) {
    return keyId != null && KEY_ID.matcher(keyId).matches();
  }
}
