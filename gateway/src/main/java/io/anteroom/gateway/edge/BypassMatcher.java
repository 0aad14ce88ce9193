package io.anteroom.gateway.edge;

import io.anteroom.gateway.config.Cidr;
import io.anteroom.gateway.config.GatewayConfig.BypassRule;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Decides whether a request skips its room (not queued, not counted). Compiled once per room;
 * immutable, so the event loops share it without locks.
 */
final class BypassMatcher {

  /** The request facts a bypass rule can look at. */
  interface Request {
    String path();

    String header(String name);

    String cookie(String name);

    String clientIp();
  }

  private record Compiled(Optional<Pattern> path, Optional<String> header,
      Optional<String> headerValue, Optional<String> cookie, Optional<Pattern> userAgent,
      Optional<Cidr> cidr) {

    boolean matches(Request r) {
      if (path.isPresent() && !path.get().matcher(r.path()).matches()) {
        return false;
      }
      if (header.isPresent()) {
        String v = r.header(header.get());
        if (v == null || headerValue.isPresent() && !headerValue.get().equals(v)) {
          return false;
        }
      }
      if (cookie.isPresent() && r.cookie(cookie.get()) == null) {
        return false;
      }
      if (userAgent.isPresent()) {
        String ua = r.header("User-Agent");
        if (ua == null || !userAgent.get().matcher(ua).matches()) {
          return false;
        }
      }
      return cidr.isEmpty() || r.clientIp() != null && cidr.get().contains(r.clientIp());
    }
  }

  private final List<Compiled> rules;

  BypassMatcher(List<BypassRule> rules) {
    this.rules = rules.stream().map(b -> new Compiled(
        b.path().map(g -> glob(g, false)), b.header(), b.headerValue(), b.cookie(),
        b.userAgent().map(g -> glob(g, true)), b.cidr().map(Cidr::parse))).toList();
  }

  boolean isEmpty() {
    return rules.isEmpty();
  }

  boolean bypasses(Request request) {
    for (Compiled c : rules) {
      if (c.matches(request)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Glob to regex. Paths: {@code *} stays within one segment, {@code **} crosses segments.
   * User agents: {@code *} matches anything, compared case-insensitively.
   */
  static Pattern glob(String glob, boolean anything) {
    var sb = new StringBuilder();
    for (int i = 0; i < glob.length(); i++) {
      char c = glob.charAt(i);
      if (c == '*') {
        if (!anything && i + 1 < glob.length() && glob.charAt(i + 1) == '*') {
          sb.append(".*");
          i++;
        } else {
          sb.append(anything ? ".*" : "[^/]*");
        }
      } else if (c == '?') {
        sb.append(anything ? "." : "[^/]");
      } else {
        sb.append(Pattern.quote(String.valueOf(c)));
      }
    }
    return anything
        ? Pattern.compile(sb.toString(), Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE)
        : Pattern.compile(sb.toString());
  }
}
