package io.anteroom.objects;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;

/**
 * Identity of one durable object within a namespace: 32 lowercase hex digits (128 bits).
 *
 * <p>{@link #fromName} derives the id from a name with SHA-256, so every process and node agrees on
 * it without coordination; {@link #unique()} draws a random id. Ids are printable, comparable and
 * usable as a storage prefix. The name an id was derived from is kept (when known) for diagnostics
 * only; equality is by the hex value.
 *
 * <pre>{@code
 * ObjectId id = ObjectId.fromName("counter", "orders");   // same id everywhere
 * ObjectId fresh = ObjectId.unique();
 * ObjectId parsed = ObjectId.parse(id.toString());        // round-trips
 * }</pre>
 */
public final class ObjectId implements Comparable<ObjectId> {
  private static final HexFormat HEX = HexFormat.of();
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final int HEX_LENGTH = 32;

  private final String hex;
  private final String name;

  private ObjectId(String hex, String name) {
    this.hex = hex;
    this.name = name;
  }

  /** The id of the object called {@code name} in {@code namespace}; stable across processes. */
  public static ObjectId fromName(String namespace, String name) {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(name, "name");
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(namespace.getBytes(StandardCharsets.UTF_8));
      sha.update((byte) 0);
      sha.update(name.getBytes(StandardCharsets.UTF_8));
      byte[] digest = sha.digest();
      return new ObjectId(HEX.formatHex(digest, 0, HEX_LENGTH / 2), name);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by the Java platform", e);
    }
  }

  /** A new random id (128 bits from {@link SecureRandom}). */
  public static ObjectId unique() {
    byte[] bytes = new byte[HEX_LENGTH / 2];
    RANDOM.nextBytes(bytes);
    return new ObjectId(HEX.formatHex(bytes), null);
  }

  /**
   * Parses the printed form of an id.
   *
   * @throws IllegalArgumentException unless {@code text} is 32 hex digits
   */
  public static ObjectId parse(String text) {
    if (text == null || text.length() != HEX_LENGTH) {
      throw new IllegalArgumentException(
          "object id must be " + HEX_LENGTH + " hex digits, got: " + abbreviate(text));
    }
    for (int i = 0; i < text.length(); i++) {
      if (Character.digit(text.charAt(i), 16) < 0) {
        throw new IllegalArgumentException(
            "object id must be " + HEX_LENGTH + " hex digits, got: " + abbreviate(text));
      }
    }
    return new ObjectId(text.toLowerCase(java.util.Locale.ROOT), null);
  }

  /** The name this id was derived from, if it was created by {@link #fromName} in this process. */
  public java.util.Optional<String> name() {
    return java.util.Optional.ofNullable(name);
  }

  @Override
  public String toString() {
    return hex;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ObjectId other && hex.equals(other.hex);
  }

  @Override
  public int hashCode() {
    return hex.hashCode();
  }

  @Override
  public int compareTo(ObjectId o) {
    return hex.compareTo(o.hex);
  }

  private static String abbreviate(String s) {
    if (s == null) return "null";
    return s.length() > 80 ? '"' + s.substring(0, 80) + "...\"" : '"' + s + '"';
  }
}
