package io.anteroom.servlet;

import jakarta.servlet.http.HttpServletRequest;
import java.util.ArrayList;
import java.util.List;

/**
 * The paths a pass check leaves alone (what the room forwards without a pass: the paths of its
 * bypass rules, the load balancer's health checks). A pattern is a path ({@code /health}: that path
 * only) or a path ending in {@code /**} ({@code /actuator/**}: {@code /actuator} and everything
 * below it). A request's path is the one the container mapped it by ({@code servletPath +
 * pathInfo}: decoded, without {@code ;} parameters, {@code .} and {@code ..} resolved), so {@code
 * /actuator/../checkout} is {@code /checkout}, never exempt.
 *
 * <p>Thread safety: immutable.
 */
final class ExemptPaths {
  private final List<String> exact = new ArrayList<>();
  private final List<String> below = new ArrayList<>();

  /**
   * @throws IllegalArgumentException naming a pattern that does not start with {@code /} or has
   *     {@code *} elsewhere than a final {@code /**}
   */
  ExemptPaths(List<String> patterns) {
    for (String p : patterns) {
      String pattern = p.strip();
      if (!pattern.startsWith("/")) {
        throw new IllegalArgumentException(
            "exempt path \"" + pattern + "\" must start with / (e.g. /health or /actuator/**)");
      }
      if (pattern.endsWith("/**")) {
        String base = pattern.substring(0, pattern.length() - 3);
        check(pattern, base);
        below.add(base);
      } else {
        check(pattern, pattern);
        exact.add(pattern);
      }
    }
  }

  private static void check(String pattern, String literal) {
    if (literal.contains("*")) {
      throw new IllegalArgumentException(
          "exempt path \""
              + pattern
              + "\": * is only allowed as a final /** (everything below a path)");
    }
  }

  /** Whether {@code request}'s path is exempt. */
  boolean exempt(HttpServletRequest request) {
    if (exact.isEmpty() && below.isEmpty()) {
      return false;
    }
    String info = request.getPathInfo();
    String path = info == null ? request.getServletPath() : request.getServletPath() + info;
    return matches(path.isEmpty() ? "/" : path);
  }

  boolean matches(String path) {
    if (exact.contains(path)) {
      return true;
    }
    for (String base : below) {
      if (path.equals(base)
          || (path.startsWith(base) && path.charAt(base.length()) == '/')
          || base.isEmpty()) {
        return true;
      }
    }
    return false;
  }
}
