package io.anteroom.door.proof;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The work rule: an answer to challenge {@code c} (its 64 ASCII characters) is a decimal counter
 * {@code n} (1 to {@value #MAX_COUNTER_DIGITS} digits) such that {@code SHA-256(c || n)}, both as
 * ASCII with nothing between them, starts with at least {@code difficulty} zero bits. The challenge
 * fills exactly one SHA-256 block, so a solver hashes it once and then one block per counter; the
 * verifier hashes once.
 *
 * <pre>{@code
 * long n = Work.solve(challenge, 18);            // what a JSON client does
 * boolean ok = Work.satisfies(challenge, Long.toString(n), 18);
 * }</pre>
 */
public final class Work {

  /** At most 16 digits: the counter and SHA-256's padding stay in the second block. */
  public static final int MAX_COUNTER_DIGITS = 16;

  private static final ThreadLocal<MessageDigest> SHA256 =
      ThreadLocal.withInitial(
          () -> {
            try {
              return MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
              throw new IllegalStateException("this JDK lacks SHA-256", e);
            }
          });

  private Work() {}

  /** Whether {@code counter} (decimal digits) solves {@code challenge} at {@code difficulty}. */
  public static boolean satisfies(String challenge, String counter, int difficulty) {
    if (!wellFormedCounter(counter)) {
      return false;
    }
    return leadingZeroBits(hash(challenge, counter)) >= difficulty;
  }

  static boolean wellFormedCounter(String counter) {
    int n = counter.length();
    if (n < 1 || n > MAX_COUNTER_DIGITS) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      char c = counter.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  /** {@code SHA-256(challenge || counter)}, both ASCII. */
  static byte[] hash(String challenge, String counter) {
    MessageDigest sha = SHA256.get();
    sha.update(challenge.getBytes(StandardCharsets.US_ASCII));
    sha.update(counter.getBytes(StandardCharsets.US_ASCII));
    return sha.digest();
  }

  /** How many zero bits {@code hash} starts with. */
  static int leadingZeroBits(byte[] hash) {
    int bits = 0;
    for (byte b : hash) {
      if (b == 0) {
        bits += 8;
        continue;
      }
      return bits + Integer.numberOfLeadingZeros(b & 0xff) - 24;
    }
    return bits;
  }

  /**
   * The smallest counter that solves {@code challenge} at {@code difficulty}: what a client does
   * (2^difficulty hashes expected), here for tests and JSON clients written in Java.
   */
  public static long solve(String challenge, int difficulty) {
    for (long n = 0; ; n++) {
      if (leadingZeroBits(hash(challenge, Long.toString(n))) >= difficulty) {
        return n;
      }
    }
  }
}
