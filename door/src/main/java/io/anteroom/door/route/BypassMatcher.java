package io.anteroom.door.route;

import io.anteroom.door.config.GatewayConfig.BypassRule;
import io.anteroom.door.match.Cidr;
import io.anteroom.door.match.Glob;
import io.anteroom.door.match.RequestTarget;
import java.util.List;
import java.util.Optional;

/**
 * Decides whether a request skips its room (not queued, not counted). Compiled once per room;
 * immutable, so the event loops share it without locks. Paths are matched against the request's
 * normalised {@link RequestTarget#path()} with linear-time {@link Glob}s (no regular expression a
 * hostile path could make backtrack).
 */
public final class BypassMatcher {

  /** The request facts a bypass rule can look at. */
  /** What the rules may read of a request. */
  public interface Request {
    String path();

    String header(String name);

    String cookie(String name);

    String clientIp();
  }

  private record Compiled(
      Optional<Glob> path,
      Optional<String> header,
      Optional<String> headerValue,
      Optional<String> cookie,
      Optional<Glob> userAgent,
      Optional<Cidr> cidr) {

    boolean matches(Request r) {
      if (path.isPresent() && !path.get().matches(r.path())) {
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
        if (ua == null || !userAgent.get().matches(ua)) {
          return false;
        }
      }
      return cidr.isEmpty() || r.clientIp() != null && cidr.get().contains(r.clientIp());
    }
  }

  private final List<Compiled> rules;

  /** The room's compiled {@code bypass} rules. */
  public BypassMatcher(List<BypassRule> rules) {
    this.rules =
        rules.stream()
            .map(
                b ->
                    new Compiled(
                        b.path().map(Glob::path),
                        b.header(),
                        b.headerValue(),
                        b.cookie(),
                        b.userAgent().map(Glob::text),
                        b.cidr().map(Cidr::parse)))
            .toList();
  }

  /** Whether the room has no rules. */
  public boolean isEmpty() {
    return rules.isEmpty();
  }

  /** Whether any rule lets {@code request} skip the room. */
  public boolean bypasses(Request request) {
    for (Compiled c : rules) {
      if (c.matches(request)) {
        return true;
      }
    }
    return false;
  }
}
