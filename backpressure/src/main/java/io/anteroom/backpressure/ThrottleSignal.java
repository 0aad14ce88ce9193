package io.anteroom.backpressure;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * The throttle signal on the wire: JSON responses carry {@code "throttle": true|false} and every
 * response carries the header {@code Anteroom-Throttle: 1|0}. Where a request is refused outright
 * the server answers 429 or 503 with {@code Retry-After} in whole seconds.
 *
 * <pre>{@code
 * boolean throttle = monitor.thresholdExceeded();
 * httpResponse.putHeader(ThrottleSignal.HEADER, ThrottleSignal.headerValue(throttle));
 * json.put(ThrottleSignal.JSON_FIELD, throttle);
 * // client side
 * controller.onResponse(ThrottleSignal.fromHeader(reply.getHeader(ThrottleSignal.HEADER)));
 * }</pre>
 */
public final class ThrottleSignal {
  /** The boolean field of JSON response bodies. */
  public static final String JSON_FIELD = "throttle";

  /** The response header, value {@code 1} (slow down) or {@code 0}. */
  public static final String HEADER = "Anteroom-Throttle";

  /** The header of a refusal (429 or 503) saying how many seconds to wait. */
  public static final String RETRY_AFTER = "Retry-After";

  private ThrottleSignal() {}

  /** {@code "1"} when throttling, else {@code "0"}. */
  public static String headerValue(boolean throttle) {
    return throttle ? "1" : "0";
  }

  /**
   * Reads the header value: absent means no throttle; {@code 1}/{@code true} and {@code 0}/{@code
   * false} are accepted (case and surrounding blanks ignored).
   *
   * @throws IllegalArgumentException for any other value
   */
  public static boolean fromHeader(String value) {
    if (value == null) {
      return false;
    }
    return switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "1", "true" -> true;
      case "0", "false" -> false;
      default ->
          throw new IllegalArgumentException(
              HEADER + " header: expected 1 or 0, got '" + value + "'");
    };
  }

  /**
   * Reads the {@code throttle} field of a decoded JSON object: absent or null means no throttle.
   *
   * @throws IllegalArgumentException when the field is not a boolean
   */
  public static boolean fromJson(Map<String, ?> body) {
    Object value = body.get(JSON_FIELD);
    if (value == null) {
      return false;
    }
    if (value instanceof Boolean b) {
      return b;
    }
    throw new IllegalArgumentException(
        "JSON field '" + JSON_FIELD + "': expected true or false, got " + value);
  }

  /** Writes the {@code throttle} field into a JSON object being built, and returns it. */
  public static <M extends Map<String, Object>> M putInto(M body, boolean throttle) {
    body.put(JSON_FIELD, throttle);
    return body;
  }

  /** The {@code Retry-After} value for a refusal: whole seconds, rounded up, at least 1. */
  public static String retryAfterValue(Duration wait) {
    if (wait.isNegative()) {
      throw new IllegalArgumentException(RETRY_AFTER + ": wait must be >= 0, got " + wait);
    }
    long seconds = wait.getSeconds() + (wait.getNano() > 0 ? 1 : 0);
    return Long.toString(Math.max(1, seconds));
  }
}
