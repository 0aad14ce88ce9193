package io.anteroom.servlet;

import io.anteroom.pass.Pass;
import io.anteroom.pass.PassCheck;
import io.anteroom.pass.PassVerifier;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The origin-side check of the signed pass, for an application behind an Anteroom gateway ({@code
 * anteroom run} or {@code gateway}): every request's {@value PassVerifier#HEADER} header is
 * verified ({@link PassVerifier}: ES256, the gateway's keys, expiry, room), and the verified {@link
 * Pass} is the request attribute {@value #PASS_ATTRIBUTE} for the application (one order per pass
 * id at checkout). In strict mode (the default) a request without a valid pass gets 403 and never
 * reaches the application, so a site reachable around the gateway is no longer open; with {@code
 * strict=false} (a roll-out) such requests go through and are only counted in the log. Exempt paths
 * (the room's bypass rules, health checks) are not checked. Refusals are logged summarised: one
 * line at the first, then at most one a minute with the counts by reason.
 *
 * <p>Init parameters: {@value #JWKS_PARAMETER} (required: the gateway's JWKS URL, e.g. {@code
 * http://gateway.internal:9090/.well-known/jwks.json}, fetched when first needed, cached, fetched
 * again at most every 30 s when a pass names a key it lacks; or a file holding a copy, read at
 * start), {@value #ROOMS_PARAMETER} (required, comma-separated: the rooms whose passes are
 * accepted), {@value #EXEMPT_PARAMETER} (comma-separated paths, {@code /health} or {@code
 * /actuator/**}) and {@value #STRICT_PARAMETER} ({@code true} by default).
 *
 * <pre>{@code
 * FilterRegistration.Dynamic f = context.addFilter("anteroom-pass", AnteroomPassFilter.class);
 * f.setInitParameter("jwks", "http://gateway.internal:9090/.well-known/jwks.json");
 * f.setInitParameter("rooms", "shop");
 * f.setInitParameter("exempt", "/health,/static/**");
 * f.addMappingForUrlPatterns(null, false, "/*");
 * }</pre>
 *
 * <p>Thread safety: one filter serves every request thread.
 */
public final class AnteroomPassFilter implements Filter {
  private static final Logger LOG = LoggerFactory.getLogger(AnteroomPassFilter.class);

  /** The request attribute holding the verified {@link Pass}: {@code io.anteroom.pass.Pass}. */
  public static final String PASS_ATTRIBUTE = "io.anteroom.pass.Pass";

  /** The init parameter naming the gateway's JWKS (URL or file). */
  public static final String JWKS_PARAMETER = "jwks";

  /** The init parameter naming the accepted rooms, comma-separated. */
  public static final String ROOMS_PARAMETER = "rooms";

  /** The init parameter naming the exempt paths, comma-separated. */
  public static final String EXEMPT_PARAMETER = "exempt";

  /** The init parameter {@code true} (refuse, the default) or {@code false} (log only). */
  public static final String STRICT_PARAMETER = "strict";

  /** The body of the 403. */
  static final String REFUSED_BODY =
      "Forbidden: this site is reached through its waiting room only.\n";

  private static final byte[] REFUSED = REFUSED_BODY.getBytes(StandardCharsets.UTF_8);

  private PassVerifier verifier;
  private ExemptPaths exempt;
  private boolean strict;
  private RefusalSummary refusals;

  /** A filter configured by its init parameters ({@link #init}). */
  public AnteroomPassFilter() {}

  /**
   * A filter over {@code verifier} (the Spring Boot starter's).
   *
   * @param exempt paths not checked ({@code /health}, {@code /actuator/**})
   * @param strict refuse requests without a valid pass (else let them through, counted in the log)
   * @throws IllegalArgumentException naming a malformed exempt path
   */
  public AnteroomPassFilter(PassVerifier verifier, List<String> exempt, boolean strict) {
    configure(verifier, exempt, strict);
  }

  private void configure(PassVerifier verifier, List<String> exempt, boolean strict) {
    this.verifier = verifier;
    this.exempt = new ExemptPaths(exempt);
    this.strict = strict;
    this.refusals =
        new RefusalSummary(Clock.systemUTC(), LOG::warn, strict ? "refused" : "let through");
  }

  @Override
  public void init(FilterConfig config) throws ServletException {
    if (verifier != null) {
      return;
    }
    try {
      String strictValue = config.getInitParameter(STRICT_PARAMETER);
      boolean strictMode = strictValue == null || strictValue.isBlank() || parse(strictValue);
      configure(
          verifier(
              config.getInitParameter(JWKS_PARAMETER),
              list(config.getInitParameter(ROOMS_PARAMETER)),
              "init parameter "),
          list(config.getInitParameter(EXEMPT_PARAMETER)),
          strictMode);
    } catch (IllegalArgumentException | IllegalStateException | UncheckedIOException e) {
      throw new ServletException("anteroom pass: " + e.getMessage());
    }
  }

  private static boolean parse(String strict) {
    return switch (strict.strip()) {
      case "true" -> true;
      case "false" -> false;
      default ->
          throw new IllegalArgumentException(
              "init parameter " + STRICT_PARAMETER + " is \"" + strict + "\": true or false");
    };
  }

  /**
   * A verifier of the passes of {@code rooms} signed by the keys of {@code jwks}: an {@code
   * http(s)://} URL (fetched when first needed, cached, fetched again at most every 30 s for an
   * unknown key) or a file (read now).
   *
   * @param prefix how the caller names its settings in messages ({@code "anteroom.pass."})
   * @throws IllegalArgumentException one line saying what is missing or wrong
   */
  public static PassVerifier verifier(String jwks, List<String> rooms, String prefix) {
    if (jwks == null || jwks.isBlank()) {
      throw new IllegalArgumentException(
          prefix
              + JWKS_PARAMETER
              + " must name the gateway's JWKS: its URL (http://ADMIN_LISTEN/.well-known/jwks.json)"
              + " or a file holding a copy");
    }
    if (rooms.isEmpty()) {
      throw new IllegalArgumentException(
          prefix + ROOMS_PARAMETER + " must name the rooms whose passes this application accepts");
    }
    var builder = PassVerifier.builder();
    String source = jwks.strip();
    if (source.startsWith("http://") || source.startsWith("https://")) {
      try {
        builder.jwks(URI.create(source).toURL());
      } catch (MalformedURLException | IllegalArgumentException e) {
        throw new IllegalArgumentException(
            prefix + JWKS_PARAMETER + " " + source + " is not a URL: " + e.getMessage(), e);
      }
    } else {
      builder.jwks(Path.of(source));
    }
    builder.rooms(rooms.getFirst(), rooms.subList(1, rooms.size()).toArray(String[]::new));
    return builder.build();
  }

  static List<String> list(String commaSeparated) {
    if (commaSeparated == null) {
      return List.of();
    }
    return Arrays.stream(commaSeparated.split(","))
        .map(String::strip)
        .filter(v -> !v.isEmpty())
        .toList();
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    if (!(request instanceof HttpServletRequest http)
        || !(response instanceof HttpServletResponse out)
        || exempt.exempt(http)) {
      chain.doFilter(request, response);
      return;
    }
    switch (verifier.verify(http.getHeader(PassVerifier.HEADER))) {
      case PassCheck.Valid valid -> {
        http.setAttribute(PASS_ATTRIBUTE, valid.pass());
        chain.doFilter(request, response);
      }
      case PassCheck.Refused refused -> {
        refusals.refused(refused);
        if (strict) {
          out.setStatus(HttpServletResponse.SC_FORBIDDEN);
          out.setContentType("text/plain;charset=UTF-8");
          out.setHeader("Cache-Control", "no-store");
          out.setContentLength(REFUSED.length);
          out.getOutputStream().write(REFUSED);
        } else {
          chain.doFilter(request, response);
        }
      }
    }
  }

  @Override
  public void destroy() {
    if (refusals != null) {
      refusals.flush();
    }
  }
}
