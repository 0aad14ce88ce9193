package io.anteroom.door.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.anteroom.door.config.GatewayConfig.HostPort;
import io.anteroom.door.match.RequestTarget;
import io.anteroom.door.match.RequestTargetResult;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * A YAML mapping being read. Each reader returns the value, or the fallback after recording one
 * error that names the key path ({@code rooms[0].strategy}), what was found and what is allowed; it
 * remembers which keys were read, so that {@link #rejectUnknown} reports the others.
 */
final class ConfigNode {
  private final JsonNode node;
  private final String where;
  private final List<String> errors;
  private final Set<String> known = new LinkedHashSet<>();

  ConfigNode(JsonNode node, String where, List<String> errors) {
    this.node = node;
    this.where = where;
    this.errors = errors;
  }

  String key(String name) {
    if (name.isEmpty()) {
      return where;
    }
    return where.isEmpty() ? name : where + "." + name;
  }

  void error(String name, String message) {
    errors.add(key(name) + ": " + message);
  }

  int errorCount() {
    return errors.size();
  }

  /** Whether {@code name} is set (not missing, not null); does not mark it as read. */
  boolean has(String name) {
    JsonNode v = node.get(name);
    return v != null && !v.isNull();
  }

  private JsonNode get(String name) {
    known.add(name);
    JsonNode v = node.get(name);
    return v == null || v.isNull() ? null : v;
  }

  private <T> T scalar(String name, T fallback, String expected, Function<JsonNode, T> read) {
    JsonNode v = get(name);
    if (v == null) {
      return fallback;
    }
    if (!v.isValueNode()) {
      error(name, "expected " + expected + ", found " + v.getNodeType().toString().toLowerCase());
      return fallback;
    }
    T value = read.apply(v);
    if (value == null) {
      error(name, "expected " + expected + ", found \"" + v.asText() + "\"");
      return fallback;
    }
    return value;
  }

  String string(String name, String fallback) {
    return scalar(name, fallback, "a string", JsonNode::asText);
  }

  Optional<String> optional(String name) {
    return Optional.ofNullable(string(name, null)).filter(s -> !s.isEmpty());
  }

  /** A whole number of any size an int holds; the range is checked elsewhere (the room core). */
  int integer(String name, int fallback) {
    return scalar(name, fallback, "a whole number", ConfigNode::asInteger);
  }

  int integer(String name, int fallback, int min, int max) {
    Integer v =
        scalar(name, fallback, "a whole number from " + min + " to " + max, ConfigNode::asInteger);
    if (v < min || v > max) {
      error(name, v + " is out of range; allowed: " + min + " to " + max);
      return fallback;
    }
    return v;
  }

  long longInteger(String name, long fallback, long min, long max) {
    Long v =
        scalar(name, fallback, "a whole number from " + min + " to " + max, ConfigNode::asLong);
    if (v < min || v > max) {
      error(name, v + " is out of range; allowed: " + min + " to " + max);
      return fallback;
    }
    return v;
  }

  private static Long asLong(JsonNode n) {
    return n.canConvertToLong() && (n.isIntegralNumber() || n.asText().matches("-?\\d+"))
        ? Long.valueOf(n.asLong())
        : null;
  }

  private static Integer asInteger(JsonNode n) {
    return n.canConvertToInt() && (n.isIntegralNumber() || n.asText().matches("-?\\d+"))
        ? Integer.valueOf(n.asInt())
        : null;
  }

  /** A number; the range is checked elsewhere (the room core). */
  double decimal(String name, double fallback) {
    return scalar(name, fallback, "a number", ConfigNode::asDecimal);
  }

  double decimal(String name, double fallback, double min, double max) {
    Double v = scalar(name, fallback, "a number from " + min + " to " + max, ConfigNode::asDecimal);
    if (!(v >= min && v <= max)) {
      error(name, v + " is out of range; allowed: " + min + " to " + max);
      return fallback;
    }
    return v;
  }

  private static Double asDecimal(JsonNode n) {
    if (n.isNumber()) {
      return n.asDouble();
    }
    try {
      return Double.valueOf(n.asText());
    } catch (NumberFormatException e) {
      return null;
    }
  }

  boolean bool(String name, boolean fallback) {
    return scalar(
        name,
        fallback,
        "true or false",
        n ->
            n.isBoolean()
                ? Boolean.valueOf(
                    n.asBoolean()) // boxed: a null from the switch is an error, not an NPE
                : switch (n.asText()) {
                  case "true" -> Boolean.TRUE;
                  case "false" -> Boolean.FALSE;
                  default -> null;
                });
  }

  /** One of {@code allowed}, written in the file as {@code configName}. */
  <E> E choice(String name, E fallback, List<E> allowed, Function<E, String> configName) {
    String v = string(name, configName.apply(fallback));
    var names = new ArrayList<String>();
    for (E a : allowed) {
      if (configName.apply(a).equals(v)) {
        return a;
      }
      names.add(configName.apply(a));
    }
    error(
        name,
        "\""
            + v
            + "\" is not allowed; allowed: "
            + String.join(", ", names)
            + suggestion(v, names));
    return fallback;
  }

  /**
   * A route's path prefix, in the normal form requests are compared in ({@link RequestTarget}): a
   * prefix that no normalised request path can have ({@code //shop/}, {@code /./shop/}, {@code
   * /%73hop/}) would never match, so it is refused with its normal form.
   */
  String path(String name, String fallback) {
    String v = string(name, fallback);
    if (!v.startsWith("/")) {
      error(name, "\"" + v + "\" must start with '/' (a path prefix such as / or /shop/)");
      return fallback;
    }
    if (v.indexOf('?') >= 0 || v.indexOf(';') >= 0) {
      error(name, "\"" + v + "\" is a path prefix: it cannot contain '?' or ';'");
      return fallback;
    }
    switch (RequestTarget.parse(v, null, null)) {
      case RequestTarget t when !t.path().equals(v) -> {
        error(
            name,
            "\""
                + v
                + "\" is not in normal form; requests are routed on normalised"
                + " paths, write \""
                + t.path()
                + "\"");
        return fallback;
      }
      case RequestTarget t -> {
        return v;
      }
      case RequestTargetResult.Rejected r -> {
        error(name, "\"" + v + "\" is not a usable path prefix: " + r.reason());
        return fallback;
      }
    }
  }

  /**
   * A route's host: {@code *} or a host name or IP literal without port (requests' hosts are
   * compared lower-case, without port and trailing dot).
   */
  String host(String name, String fallback) {
    String v = string(name, fallback);
    if (v.equals("*")) {
      return v;
    }
    switch (RequestTarget.parse("/", v, null)) {
      case RequestTarget t when t.host() != null && (v.endsWith("]") || v.indexOf(':') < 0) -> {
        return v;
      }
      case RequestTarget t ->
          error(
              name,
              "\""
                  + v
                  + "\" is not a host name: write the name only"
                  + " (e.g. shop.example.com, no port, no scheme), or * for any host");
      case RequestTargetResult.Rejected r ->
          error(name, "\"" + v + "\" is not a host name: " + r.reason());
    }
    return fallback;
  }

  HostPort hostPort(String name, String fallback) {
    String v = string(name, fallback);
    try {
      return HostPorts.parse(v);
    } catch (IllegalArgumentException e) {
      error(name, e.getMessage());
      return HostPorts.parse(fallback);
    }
  }

  Optional<URI> url(String name) {
    String v = string(name, null);
    if (v == null) {
      return Optional.empty();
    }
    try {
      URI u = new URI(v);
      if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme())) || u.getHost() == null) {
        throw new URISyntaxException(v, "no http(s) scheme or host");
      }
      if (u.getRawUserInfo() != null
          || u.getRawQuery() != null
          || u.getRawFragment() != null
          || !(u.getRawPath() == null || u.getRawPath().isEmpty() || u.getRawPath().equals("/"))) {
        // credentials would be logged and shown by the admin API; a path or query would be
        // silently ignored (requests keep their own)
        error(
            name,
            "\""
                + v
                + "\" must be only scheme://host[:port] (no user information,"
                + " path, query or fragment)");
        return Optional.empty();
      }
      return Optional.of(u);
    } catch (URISyntaxException e) {
      error(name, "\"" + v + "\" is not an http:// or https:// URL with a host");
      return Optional.empty();
    }
  }

  byte[] base64Key(String name) {
    String v = string(name, null);
    if (v == null) {
      error(name, "missing; a base64 AES key of 16, 24 or 32 bytes");
      return null;
    }
    try {
      byte[] k = Base64.getDecoder().decode(v);
      if (k.length == 16 || k.length == 24 || k.length == 32) {
        return k;
      }
      error(name, "decodes to " + k.length + " bytes; allowed: 16, 24 or 32 bytes (base64)");
    } catch (IllegalArgumentException e) {
      error(name, "not base64: " + e.getMessage());
    }
    return null;
  }

  ConfigNode object(String name) {
    JsonNode v = get(name);
    if (v != null && !v.isObject()) {
      error(
          name,
          "expected a mapping (key: value lines), found "
              + v.getNodeType().toString().toLowerCase());
      v = null;
    }
    return new ConfigNode(v == null ? JsonNodeFactory.instance.objectNode() : v, key(name), errors);
  }

  List<ConfigNode> objects(String name) {
    JsonNode v = get(name);
    var out = new ArrayList<ConfigNode>();
    if (v == null) {
      return out;
    }
    if (!v.isArray()) {
      error(
          name,
          "expected a list (lines starting with '- '), found "
              + v.getNodeType().toString().toLowerCase());
      return out;
    }
    for (int i = 0; i < v.size(); i++) {
      String at = key(name) + "[" + i + "]";
      if (!v.get(i).isObject()) {
        errors.add(at + ": expected a mapping (key: value lines)");
      } else {
        out.add(new ConfigNode(v.get(i), at, errors));
      }
    }
    return out;
  }

  /** Whether {@code name} is set to a mapping; does not mark it as read. */
  boolean isObject(String name) {
    JsonNode v = node.get(name);
    return v != null && v.isObject();
  }

  /** Whether {@code name} is set to a list; does not mark it as read. */
  boolean isList(String name) {
    JsonNode v = node.get(name);
    return v != null && v.isArray();
  }

  /** One string or a list of strings; empty when missing. */
  List<String> stringOrList(String name) {
    if (isList(name)) {
      return strings(name);
    }
    String one = string(name, null);
    return one == null ? List.of() : List.of(one);
  }

  /** One mapping or a list of mappings; empty when missing. */
  List<ConfigNode> objectOrList(String name) {
    if (isObject(name)) {
      return List.of(object(name));
    }
    return objects(name);
  }

  /** A list of strings (scalars); other elements are errors. */
  List<String> strings(String name) {
    JsonNode v = get(name);
    var out = new ArrayList<String>();
    if (v == null) {
      return out;
    }
    if (!v.isArray()) {
      error(name, "expected a list of strings, found " + v.getNodeType().toString().toLowerCase());
      return out;
    }
    for (int i = 0; i < v.size(); i++) {
      if (!v.get(i).isValueNode()) {
        errors.add(key(name) + "[" + i + "]: expected a string");
      } else {
        out.add(v.get(i).asText());
      }
    }
    return out;
  }

  void rejectUnknown() {
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      if (!known.contains(k)) {
        error(
            k,
            "unknown key" + suggestion(k, known) + "; allowed here: " + String.join(", ", known));
      }
    }
  }

  private static String suggestion(String wrong, Iterable<String> candidates) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String c : candidates) {
      int d = distance(wrong, c);
      if (d < bestDistance) {
        best = c;
        bestDistance = d;
      }
    }
    return best != null && bestDistance <= Math.max(2, wrong.length() / 3)
        ? " (did you mean \"" + best + "\"?)"
        : "";
  }

  /** Edit distance, for "did you mean". */
  static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost =
            Character.toLowerCase(a.charAt(i - 1)) == Character.toLowerCase(b.charAt(j - 1))
                ? 0
                : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
