package io.anteroom.door.route;

import io.anteroom.door.config.GatewayConfig.SignedCondition;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;

/**
 * A signed bypass token for the operator's own monitors: {@code <unixSeconds>.<hex HMAC-SHA256>} in
 * a request header, where the MAC (key: the trimmed text of the rule's key file) covers
 *
 * <pre>{@code
 * anteroom-bypass-v1\n<room id>\n<unixSeconds>\n<METHOD>\n<normalised path>
 * }</pre>
 *
 * A token holds within {@code maxAgeSeconds} of its time (either way, for clocks that differ) and
 * only for its room, method and path: a copied token lets the same request through again within its
 * window, never after it, never for another path. The presence of a header or a cookie is
 * forgeable; this is not without the key. Immutable.
 */
public final class SignedBypass {
  private static final String PREFIX = "anteroom-bypass-v1\n";
  private static final int MAX_SECONDS_DIGITS = 12;

  private final String roomId;
  private final SecretKeySpec key;
  private final String header;
  private final long maxAgeMillis;

  private SignedBypass(String roomId, byte[] key, String header, int maxAgeSeconds) {
    this.roomId = roomId;
    this.key = key == null ? null : new SecretKeySpec(key, "HmacSHA256");
    this.header = header;
    this.maxAgeMillis = maxAgeSeconds * 1000L;
  }

  /**
   * The condition of a rule of room {@code roomId}; a key file that cannot be read any more (the
   * config check read it) makes a condition that never holds, with one line on {@code log}.
   */
  static SignedBypass load(String roomId, SignedCondition c, Logger log) {
    byte[] key = null;
    try {
      key = Files.readString(c.keyFile()).strip().getBytes(StandardCharsets.UTF_8);
    } catch (java.io.IOException | RuntimeException e) {
      log.warn(
          "room {}: cannot read the signed bypass key {} ({}); the rule never matches",
          roomId,
          c.keyFile(),
          e.getClass().getSimpleName());
    }
    return new SignedBypass(roomId, key, c.header(), c.maxAgeSeconds());
  }

  /** A condition with {@code key}, for tests and tools. */
  public static SignedBypass of(String roomId, byte[] key, String header, int maxAgeSeconds) {
    return new SignedBypass(roomId, key.clone(), header, maxAgeSeconds);
  }

  /** The token for a request at {@code unixSeconds} (what a monitor sends). */
  public static String token(
      byte[] key, String roomId, long unixSeconds, String method, String path) {
    return unixSeconds
        + "."
        + HexFormat.of()
            .formatHex(
                mac(new SecretKeySpec(key, "HmacSHA256"), roomId, unixSeconds, method, path));
  }

  /** Whether the request carries a token that holds now. */
  boolean verify(RuleMatcher.Request r) {
    if (key == null) {
      return false;
    }
    List<String> values = r.headers(header);
    for (String v : values) {
      if (holds(v, r)) {
        return true;
      }
    }
    return false;
  }

  private boolean holds(String token, RuleMatcher.Request r) {
    int dot = token.indexOf('.');
    if (dot < 1 || dot > MAX_SECONDS_DIGITS || token.length() - dot - 1 != 64) {
      return false;
    }
    long seconds = 0;
    for (int i = 0; i < dot; i++) {
      char ch = token.charAt(i);
      if (ch < '0' || ch > '9') {
        return false;
      }
      seconds = seconds * 10 + (ch - '0');
    }
    if (Math.abs(r.nowMillis() - seconds * 1000) > maxAgeMillis) {
      return false;
    }
    byte[] given;
    try {
      given = HexFormat.of().parseHex(token, dot + 1, token.length());
    } catch (IllegalArgumentException e) {
      return false;
    }
    return MessageDigest.isEqual(given, mac(key, roomId, seconds, r.method(), r.path()));
  }

  private static byte[] mac(
      SecretKeySpec key, String roomId, long seconds, String method, String path) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(key);
      return mac.doFinal(
          (PREFIX + roomId + "\n" + seconds + "\n" + method + "\n" + path)
              .getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }
}
