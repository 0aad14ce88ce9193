package io.anteroom.door.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The HMAC key that signs a room's invitations ({@code invitations.keyFile}): the file holds the
 * key's bytes in base64 (standard or URL-safe alphabet, padding and surrounding white space
 * allowed), at least {@value #MIN_BYTES} bytes as HS256 requires. The operator's backend reads the
 * same file (or its value) to sign tokens; {@code openssl rand -base64 32} writes one, as does
 * {@code anteroom invite --new-key FILE}.
 */
public final class InvitationKey {

  /** The shortest key HS256 accepts: 256 bits. */
  public static final int MIN_BYTES = 32;

  private InvitationKey() {}

  /**
   * The key in {@code file}.
   *
   * @throws IllegalArgumentException naming the file and what is wrong with it
   */
  public static byte[] read(Path file) {
    return read(file, "an invitation key");
  }

  /**
   * The HS256 key in {@code file}, {@code what} naming it in messages ("an identity key").
   *
   * @throws IllegalArgumentException naming the file and what is wrong with it
   */
  public static byte[] read(Path file, String what) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.US_ASCII).strip();
    } catch (IOException | java.io.UncheckedIOException e) {
      throw new IllegalArgumentException(
          "cannot read \"" + file + "\": " + e.getClass().getSimpleName() + " " + e.getMessage());
    }
    byte[] key;
    try {
      key =
          text.indexOf('-') >= 0 || text.indexOf('_') >= 0
              ? Base64.getUrlDecoder().decode(text)
              : Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "\"" + file + "\" does not hold a base64 key (write one with: openssl rand -base64 32)");
    }
    if (key.length < MIN_BYTES) {
      throw new IllegalArgumentException(
          "\""
              + file
              + "\" holds a key of "
              + key.length
              + " bytes; "
              + what
              + " needs at least "
              + MIN_BYTES
              + " (write one with: openssl rand -base64 32)");
    }
    return key;
  }

  /**
   * Writes a fresh random key of {@value #MIN_BYTES} bytes to {@code file} (owner-only, never over
   * an existing file).
   *
   * @return false when the file exists (it is kept)
   */
  public static boolean create(Path file) throws IOException {
    byte[] key = new byte[MIN_BYTES];
    new SecureRandom().nextBytes(key);
    return SecretFile.createIfAbsent(file, Base64.getEncoder().encodeToString(key) + "\n");
  }
}
