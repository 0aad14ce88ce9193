package io.anteroom.coordinator;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The signature of a webhook body: {@code Anteroom-Signature: t=<unix seconds>,v1=<hex>} where the
 * hex is HMAC-SHA256 (JDK {@link Mac}) keyed with the secret's bytes over {@code t + "." + body}.
 * The time is the attempt's, so a receiver can refuse old replays; the id in the body is the same
 * on every attempt, so it can drop duplicates.
 *
 * <pre>{@code
 * String header = WebhookSignature.header(secret, body, nowSeconds);
 * boolean ok = WebhookSignature.verify(secret, body, header, nowSeconds, 300);
 * }</pre>
 */
public final class WebhookSignature {

  /** The header that carries the signature. */
  public static final String HEADER = "Anteroom-Signature";

  /** The header that carries the change's id (also in the body). */
  public static final String ID_HEADER = "Anteroom-Webhook-Id";

  private WebhookSignature() {}

  /** The header value for {@code body} sent at {@code epochSeconds}. */
  public static String header(byte[] secret, String body, long epochSeconds) {
    return "t=" + epochSeconds + ",v1=" + hmacHex(secret, epochSeconds + "." + body);
  }

  /**
   * Whether {@code header} signs {@code body} with {@code secret} at a time within {@code
   * toleranceSeconds} of {@code nowSeconds} (compared in constant time).
   */
  public static boolean verify(
      byte[] secret, String body, String header, long nowSeconds, long toleranceSeconds) {
    if (header == null) {
      return false;
    }
    Long t = null;
    String v1 = null;
    for (String part : header.split(",")) {
      String p = part.trim();
      if (p.startsWith("t=")) {
        try {
          t = Long.parseLong(p.substring(2));
        } catch (NumberFormatException e) {
          return false;
        }
      } else if (p.startsWith("v1=")) {
        v1 = p.substring(3);
      }
    }
    if (t == null || v1 == null || Math.abs(nowSeconds - t) > toleranceSeconds) {
      return false;
    }
    return MessageDigest.isEqual(
        hmacHex(secret, t + "." + body).getBytes(StandardCharsets.US_ASCII),
        v1.getBytes(StandardCharsets.US_ASCII));
  }

  static String hmacHex(byte[] secret, String text) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      return HexFormat.of().formatHex(mac.doFinal(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException("HmacSHA256 is unavailable in this JVM", e);
    }
  }
}
