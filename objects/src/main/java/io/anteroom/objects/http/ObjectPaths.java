package io.anteroom.objects.http;

import io.anteroom.objects.ObjectId;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The one place that knows the URL of a call: {@code /objects/{namespace}/{id}/{method}}, each
 * segment percent-encoded as UTF-8. Both {@link HttpObjectServer} and {@link HttpObjectTransport}
 * go through here, so the two ends cannot disagree on the format.
 */
final class ObjectPaths {
  static final String PREFIX = "/objects/";
  static final String FORMAT = "POST /objects/{namespace}/{id}/{method}";

  /**
   * {@code GET} here is answered 204 at once, without authentication (it reveals nothing and runs
   * nothing): the routing transport's ping that keeps a connection to every coordinator open.
   */
  static final String PING = "/objects-ping";

  private ObjectPaths() {}

  /** The target of one call, as parsed from a request path. */
  record Target(String namespace, ObjectId id, String method) {}

  /** The raw (encoded) request path for a call. */
  static String path(String namespace, ObjectId id, String method) {
    return PREFIX + encode(namespace) + '/' + id + '/' + encode(method);
  }

  /** Whether {@code rawPath} is under the calls prefix at all (otherwise the answer is 404). */
  static boolean isCallPath(String rawPath) {
    return rawPath != null && rawPath.startsWith(PREFIX);
  }

  /**
   * Parses a raw request path that {@link #isCallPath} accepted.
   *
   * @throws IllegalArgumentException saying what is wrong with the path
   */
  static Target parse(String rawPath) {
    String rest = rawPath.substring(PREFIX.length());
    String[] segments = rest.split("/", -1);
    if (segments.length != 3) {
      throw new IllegalArgumentException(
          "malformed call path " + quote(rawPath) + ": expected " + FORMAT);
    }
    String namespace = decode(segments[0], "namespace", rawPath);
    String method = decode(segments[2], "method", rawPath);
    ObjectId id;
    try {
      id = ObjectId.parse(segments[1]);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "malformed call path " + quote(rawPath) + ": " + e.getMessage(), e);
    }
    return new Target(namespace, id, method);
  }

  /** Percent-encodes every byte of the UTF-8 form except RFC 3986 unreserved characters. */
  static String encode(String segment) {
    byte[] bytes = segment.getBytes(StandardCharsets.UTF_8);
    StringBuilder out = new StringBuilder(bytes.length);
    for (byte b : bytes) {
      int c = b & 0xff;
      if ((c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9')
          || c == '-'
          || c == '.'
          || c == '_'
          || c == '~') {
        out.append((char) c);
      } else {
        out.append('%')
            .append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
            .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
      }
    }
    return out.toString();
  }

  private static String decode(String segment, String what, String rawPath) {
    if (segment.isEmpty()) {
      throw new IllegalArgumentException(
          "malformed call path "
              + quote(rawPath)
              + ": the "
              + what
              + " is empty; expected "
              + FORMAT);
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(segment.length());
    for (int i = 0; i < segment.length(); i++) {
      char c = segment.charAt(i);
      if (c == '%') {
        int hi = i + 2 < segment.length() ? Character.digit(segment.charAt(i + 1), 16) : -1;
        int lo = hi >= 0 ? Character.digit(segment.charAt(i + 2), 16) : -1;
        if (lo < 0) {
          throw new IllegalArgumentException(
              "malformed call path "
                  + quote(rawPath)
                  + ": bad percent-escape in the "
                  + what
                  + " (a '%' must be followed by two hex digits)");
        }
        bytes.write(hi << 4 | lo);
        i += 2;
      } else if (c < 0x80) {
        bytes.write(c);
      } else {
        throw new IllegalArgumentException(
            "malformed call path "
                + quote(rawPath)
                + ": non-ASCII character in the "
                + what
                + " (percent-encode it as UTF-8)");
      }
    }
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes.toByteArray()))
          .toString();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException(
          "malformed call path "
              + quote(rawPath)
              + ": the "
              + what
              + " is not valid UTF-8 once percent-decoded",
          e);
    }
  }

  static String quote(String s) {
    return s.length() > 200 ? '"' + s.substring(0, 200) + "...\"" : '"' + s + '"';
  }
}
