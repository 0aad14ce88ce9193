package io.anteroom.door.route;

import io.anteroom.door.config.GatewayConfig.Rule;
import io.anteroom.door.config.GatewayConfig.RuleAction;
import io.anteroom.door.config.GatewayConfig.ValueMatch;
import io.anteroom.door.match.Cidr;
import io.anteroom.door.match.Glob;
import io.anteroom.door.match.RequestTarget;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A room's rules ({@code rules}, then {@code bypass}), compiled once: the action of the first rule
 * whose conditions all match a request, or null when none does. Immutable, so the event loops share
 * it without locks. Every condition reads the normalised request: paths are the request's {@link
 * RequestTarget#path()} matched with linear-time {@link Glob}s (no regular expression a hostile
 * path could make backtrack), query parameters are percent-decoded, the client address is the one
 * trusted proxies name ({@link ClientAddress}).
 *
 * <p>A value condition (header, cookie, query parameter) holds when any of the request's values of
 * that name matches; a negated one ({@code not: true}) when none does (an absent value included),
 * so repeating a header or a parameter cannot slip past a {@code block} rule.
 */
public final class RuleMatcher {
  private static final Logger LOG = LoggerFactory.getLogger(RuleMatcher.class);

  /** What the rules may read of a request. */
  public interface Request {
    /** The normalised path. */
    String path();

    /** The request method, as sent (e.g. {@code GET}). */
    String method();

    /** The query without {@code ?}, or null. */
    String query();

    /** Every value of header {@code name}, in order; empty when none. */
    List<String> headers(String name);

    /** The first value of cookie {@code name}, or null. */
    String cookie(String name);

    /** The client's address (trusted proxies applied), or null when unknown. */
    String clientIp();

    /** The time the request is judged at, for signed bypass tokens. */
    long nowMillis();
  }

  /** A condition on one named value. */
  private record Value(String name, String exact, Glob glob, boolean not) {
    static Value of(ValueMatch m) {
      return new Value(
          m.name(), m.value().orElse(null), m.glob().map(Glob::text).orElse(null), m.not());
    }

    boolean test(List<String> values) {
      boolean any = false;
      for (String v : values) {
        if (v != null && (exact != null ? exact.equals(v) : glob == null || glob.matches(v))) {
          any = true;
          break;
        }
      }
      return any != not;
    }
  }

  private record Compiled(
      RuleAction action,
      Optional<Glob> path,
      List<String> methods,
      List<Value> query,
      List<Value> headers,
      List<Value> cookies,
      Optional<Glob> userAgent,
      List<Cidr> cidrs,
      Optional<SignedBypass> signed) {

    boolean matches(Request r) {
      if (path.isPresent() && !path.get().matches(r.path())) {
        return false;
      }
      if (!methods.isEmpty() && !methods.contains(r.method())) {
        return false;
      }
      for (Value h : headers) {
        if (!h.test(r.headers(h.name()))) {
          return false;
        }
      }
      for (Value c : cookies) {
        String v = r.cookie(c.name());
        if (!c.test(v == null ? List.of() : List.of(v))) {
          return false;
        }
      }
      for (Value q : query) {
        if (!q.test(parameters(r.query(), q.name()))) {
          return false;
        }
      }
      if (userAgent.isPresent() && !anyMatches(userAgent.get(), r.headers("User-Agent"))) {
        return false;
      }
      if (!cidrs.isEmpty() && !inAny(r.clientIp())) {
        return false;
      }
      return signed.isEmpty() || signed.get().verify(r);
    }

    private boolean inAny(String ip) {
      if (ip == null) {
        return false;
      }
      for (Cidr c : cidrs) {
        if (c.contains(ip)) {
          return true;
        }
      }
      return false;
    }
  }

  private static boolean anyMatches(Glob glob, List<String> values) {
    for (String v : values) {
      if (glob.matches(v)) {
        return true;
      }
    }
    return false;
  }

  /** Every value of query parameter {@code name}, percent-decoded ({@code +} is a space). */
  static List<String> parameters(String query, String name) {
    if (query == null || query.isEmpty()) {
      return List.of();
    }
    var found = new java.util.ArrayList<String>(1);
    int start = 0;
    while (start <= query.length()) {
      int end = query.indexOf('&', start);
      if (end < 0) {
        end = query.length();
      }
      String pair = query.substring(start, end);
      int eq = pair.indexOf('=');
      String n = decode(eq < 0 ? pair : pair.substring(0, eq));
      if (n.equals(name)) {
        found.add(eq < 0 ? "" : decode(pair.substring(eq + 1)));
      }
      start = end + 1;
    }
    return found;
  }

  private static String decode(String s) {
    if (s.indexOf('%') < 0 && s.indexOf('+') < 0) {
      return s;
    }
    try {
      return URLDecoder.decode(s, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return s; // a broken escape is compared as written
    }
  }

  private final List<Compiled> rules;

  /** The compiled rules of room {@code roomId}, in the order they are looked at. */
  public RuleMatcher(String roomId, List<Rule> rules) {
    this.rules =
        rules.stream()
            .map(
                b ->
                    new Compiled(
                        b.action(),
                        b.path().map(Glob::path),
                        b.methods(),
                        b.query().stream().map(Value::of).toList(),
                        b.headers().stream().map(Value::of).toList(),
                        b.cookies().stream().map(Value::of).toList(),
                        b.userAgent().map(Glob::text),
                        b.cidrs().stream().map(Cidr::parse).toList(),
                        b.signed().map(s -> SignedBypass.load(roomId, s, LOG))))
            .toList();
  }

  /** Whether the room has no rules. */
  public boolean isEmpty() {
    return rules.isEmpty();
  }

  /** The action of the first rule that matches {@code request}, or null when none does. */
  public RuleAction decide(Request request) {
    for (Compiled c : rules) {
      if (c.matches(request)) {
        return c.action();
      }
    }
    return null;
  }

  /** Whether the first rule that matches {@code request} bypasses the room. */
  public boolean bypasses(Request request) {
    return decide(request) == RuleAction.BYPASS;
  }

  /** Whether any rule asks for the room's challenge (the proof of work must be ready for it). */
  public boolean challenges() {
    return rules.stream().anyMatch(c -> c.action() == RuleAction.CHALLENGE);
  }
}
