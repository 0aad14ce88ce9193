package io.anteroom.door.config;

import io.anteroom.door.config.GatewayConfig.HostPort;

/**
 * The one reader of a {@code HOST:PORT} value, for the configuration file ({@code listen}, {@code
 * admin.listen}) and the command line ({@code --listen}, {@code --admin-listen}, {@code
 * --status-listen}): a host name or IPv4 address, or an IPv6 address in brackets ({@code
 * [::1]:8080}, kept with its brackets), a colon and a port from 0 (any free port) to 65535.
 */
public final class HostPorts {
  private HostPorts() {}

  /** The example every refusal ends with. */
  static final String EXAMPLE = "e.g. 127.0.0.1:8080 or [::1]:8080; port 0 to 65535";

  /**
   * {@code value} read as {@code HOST:PORT}.
   *
   * @throws IllegalArgumentException {@code "VALUE" is not host:port (WHY; e.g. ...)}: the caller
   *     puts the key or option in front
   */
  public static HostPort parse(String value) {
    if (value == null) {
      throw refused("", "no value");
    }
    int colon = value.lastIndexOf(':');
    if (colon < 0) {
      throw refused(value, "no port");
    }
    String host = value.substring(0, colon);
    String port = value.substring(colon + 1);
    if (host.isEmpty()) {
      throw refused(value, "no host");
    }
    String problem = hostProblem(host);
    if (problem != null) {
      throw refused(value, problem);
    }
    if (port.isEmpty()) {
      throw refused(value, "no port");
    }
    if (port.length() > 5 || !port.chars().allMatch(c -> c >= '0' && c <= '9')) {
      throw refused(value, "the port is not a number");
    }
    int p = Integer.parseInt(port);
    if (p > 65535) {
      throw refused(value, "port " + p + " is above 65535");
    }
    return new HostPort(host, p);
  }

  /**
   * {@code value} of {@code what} (a command-line option, e.g. {@code --listen}) read as {@code
   * HOST:PORT}.
   *
   * @throws IllegalArgumentException {@code WHAT: "VALUE" is not host:port (WHY; e.g. ...)}, the
   *     configuration file's words for its keys
   */
  public static HostPort parse(String what, String value) {
    try {
      return parse(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(what + ": " + e.getMessage(), e);
    }
  }

  /** Why {@code host} (not empty) cannot be a listener's host, or null when it can. */
  private static String hostProblem(String host) {
    if (host.startsWith("[") || host.endsWith("]")) {
      String inner =
          host.startsWith("[") && host.endsWith("]") && host.length() > 2
              ? host.substring(1, host.length() - 1)
              : null;
      int zone = inner == null ? -1 : inner.indexOf('%'); // fe80::1%eth0: a link-local zone
      String address = zone < 0 ? inner : inner.substring(0, zone);
      if (inner == null
          || address.indexOf(':') < 0
          || !address.chars().allMatch(c -> isHex(c) || c == ':' || c == '.')
          || (zone >= 0
              && (zone == inner.length() - 1
                  || !inner.substring(zone + 1).chars().allMatch(HostPorts::isAlphanumeric)))) {
        return "\"" + host + "\" is not an IPv6 address in brackets";
      }
      return null;
    }
    if (host.indexOf(':') >= 0) {
      return "write an IPv6 address in brackets";
    }
    if (!host.chars().allMatch(c -> isAlphanumeric(c) || c == '.' || c == '-' || c == '_')) {
      return "\"" + host + "\" is not a host name or address";
    }
    return null;
  }

  private static boolean isHex(int c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }

  private static boolean isAlphanumeric(int c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }

  private static IllegalArgumentException refused(String value, String why) {
    return new IllegalArgumentException(
        "\"" + value + "\" is not host:port (" + why + "; " + EXAMPLE + ")");
  }
}
