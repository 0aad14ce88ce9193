package io.anteroom.servlet;

import io.anteroom.door.Answer;
import io.anteroom.door.Door;
import io.anteroom.door.Watch;
import io.anteroom.door.config.ConfigLoader;
import io.anteroom.door.config.GatewayConfig;
import io.anteroom.host.CoordinatorLink;
import io.anteroom.host.RoomHost;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The waiting room as a Jakarta Servlet filter: the door ({@link Door}) judges every request in the
 * application's own thread. An admitted request continues the filter chain (its ticket cookie set
 * or renewed on the application's response, the session ended when the application answers {@code
 * Anteroom-Command: revoke}); everyone else gets the door's own answer (the queue page or JSON, a
 * proof-of-work challenge, 429, 400) and never reaches the application.
 *
 * <p>It reads the same YAML as {@code anteroom run} (same loader, keys, defaults and messages): the
 * init parameter {@value #CONFIG_PARAMETER} names the file. By default the room's coordinating
 * objects run in this JVM with SQLite in the file's {@code dataDir} (the embedded topology: one
 * instance of the application). With the init parameter {@value #COORDINATOR_PARAMETER} every
 * instance of the application is a gateway of a coordinator or of a replicated cluster, as {@code
 * anteroom gateway} is (the same checks and messages: {@link CoordinatorLink}). A bad file or
 * setting fails {@link #init} with one line per problem.
 *
 * <pre>{@code
 * FilterRegistration.Dynamic f = context.addFilter("anteroom", AnteroomFilter.class);
 * f.setInitParameter("config", "/etc/shop/anteroom.yaml");
 * f.addMappingForUrlPatterns(null, false, "/*");
 * }</pre>
 *
 * <p>Thread safety: one filter serves every request thread; {@link #destroy} closes the rooms.
 */
public final class AnteroomFilter implements Filter {
  private static final Logger LOG = LoggerFactory.getLogger(AnteroomFilter.class);

  /** The init parameter naming the YAML file. */
  public static final String CONFIG_PARAMETER = "config";

  /**
   * The init parameter naming the coordinator (remote topology, as {@code anteroom gateway
   * --coordinator}): one URL, or every peer's of a replicated coordinator, comma-separated. Without
   * it the room's objects are embedded.
   */
  public static final String COORDINATOR_PARAMETER = "coordinator";

  /** This instance's data center (as {@code --datacenter}); required with a coordinator. */
  public static final String DATACENTER_PARAMETER = "datacenter";

  /** The deployment's shared secret file (as {@code --coordinator-secret-file}). */
  public static final String SECRET_FILE_PARAMETER = "coordinator-secret-file";

  /** PEM certificates to trust for an {@code https://} coordinator, comma-separated. */
  public static final String TRUST_PARAMETER = "coordinator-trust";

  /**
   * Where the filter answers {@code GET} with the public keys of the signed pass ({@code
   * Anteroom-Pass}) as a JWKS document, below the application's context path (the proxy serves them
   * at its admin listener's {@code /.well-known/jwks.json}; this path leaves the application's own
   * {@code /.well-known/jwks.json} to it).
   */
  public static final String JWKS_PATH = "/.well-known/anteroom/jwks.json";

  private RoomHost host;
  private boolean ownsHost;
  private Door door;

  /** A filter that builds its rooms from the file its init parameter names ({@link #init}). */
  public AnteroomFilter() {}

  /** A filter over rooms already started (the Spring Boot starter's); the caller closes them. */
  public AnteroomFilter(RoomHost host) {
    this.host = host;
    this.door = host.door();
  }

  /**
   * Loads the configuration and starts the rooms (embedded). Fails with the loader's message (one
   * line per problem) when the file is missing or invalid.
   */
  @Override
  public void init(FilterConfig filterConfig) throws ServletException {
    if (host != null) {
      return;
    }
    String file = filterConfig.getInitParameter(CONFIG_PARAMETER);
    if (file == null || file.isBlank()) {
      throw new ServletException(
          "anteroom: the filter's init parameter '"
              + CONFIG_PARAMETER
              + "' must name the YAML configuration file (the same file as anteroom run --config)");
    }
    GatewayConfig config = load(Path.of(file));
    String coordinator = filterConfig.getInitParameter(COORDINATOR_PARAMETER);
    host =
        coordinator == null || coordinator.isBlank()
            ? start(config)
            : start(config, link(filterConfig, coordinator));
    ownsHost = true;
    door = host.door();
  }

  /** The configuration of {@code file}; its problems as a {@link ServletException}, one a line. */
  static GatewayConfig load(Path file) throws ServletException {
    try {
      return ConfigLoader.load(file);
    } catch (IllegalArgumentException e) {
      throw new ServletException("anteroom: " + e.getMessage());
    }
  }

  /** The rooms of {@code config}, their objects embedded in this JVM. */
  static RoomHost start(GatewayConfig config) throws ServletException {
    try {
      return RoomHost.start(config, RoomHost.embedded(config), "local", Clock.systemUTC());
    } catch (IllegalArgumentException | IllegalStateException | java.io.UncheckedIOException e) {
      throw new ServletException("anteroom: " + e.getMessage());
    }
  }

  /** The remote topology's settings of the init parameters (checked by {@link RoomHost#remote}). */
  static CoordinatorLink link(FilterConfig params, String coordinator) throws ServletException {
    try {
      String trust = params.getInitParameter(TRUST_PARAMETER);
      String secret = params.getInitParameter(SECRET_FILE_PARAMETER);
      return new CoordinatorLink(
          list(coordinator).stream().map(URI::create).toList(),
          params.getInitParameter(DATACENTER_PARAMETER),
          secret == null || secret.isBlank() ? null : Path.of(secret.strip()),
          list(trust).stream().map(Path::of).toList(),
          CoordinatorLink.Names.FILTER);
    } catch (IllegalArgumentException e) {
      throw new ServletException(
          "anteroom: init parameter " + COORDINATOR_PARAMETER + ": " + e.getMessage());
    }
  }

  private static List<String> list(String commaSeparated) {
    if (commaSeparated == null) {
      return List.of();
    }
    return Arrays.stream(commaSeparated.split(","))
        .map(String::strip)
        .filter(v -> !v.isEmpty())
        .toList();
  }

  /** The rooms of {@code config}, a gateway of the coordinators {@code link} names. */
  static RoomHost start(GatewayConfig config, CoordinatorLink link) throws ServletException {
    try {
      return RoomHost.remote(
          config, link, System.getenv(CoordinatorLink.SECRET_ENV), Clock.systemUTC());
    } catch (IllegalArgumentException | IllegalStateException | java.io.UncheckedIOException e) {
      throw new ServletException("anteroom: " + e.getMessage());
    }
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    if (!(request instanceof HttpServletRequest http)
        || !(response instanceof HttpServletResponse out)) {
      chain.doFilter(request, response);
      return;
    }
    String uri = http.getRequestURI();
    if (isJwks(http, uri)) {
      out.setContentType("application/jwk-set+json");
      out.setHeader("Cache-Control", "max-age=300");
      out.getOutputStream().write(host.jwks().getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return;
    }
    ServletFacts facts = new ServletFacts(http, uri);
    if (Door.isWatch(facts)) {
      watch(http, out, facts);
      return;
    }
    Answer answer;
    try {
      answer = door.enter(facts, Runnable::run).toCompletableFuture().join();
    } catch (CompletionException e) {
      // the door never fails a request on purpose: this is a defect, not a decision
      LOG.error("anteroom: the door failed on a request", e.getCause());
      out.sendError(500);
      return;
    }
    switch (answer) {
      case Answer.Pass pass -> pass(http, out, chain, pass);
      case Answer.Respond respond -> respond(http, out, respond);
    }
  }

  /**
   * A push poll of the queue page ({@link Door#watch}): answered at once, or held in async mode
   * (the container's thread goes back to its pool) until the door wakes it, {@code pollHoldSeconds}
   * pass (the async timeout) or the client leaves; the answer is written on a container thread
   * ({@link AsyncContext#start}), never on the thread that applied the room's state. Without async
   * support (a filter or servlet in the chain not marked async) the page is told to keep
   * refreshing.
   */
  private void watch(HttpServletRequest request, HttpServletResponse response, ServletFacts facts)
      throws IOException {
    if (!request.isAsyncSupported()) {
      respond(request, response, Watch.unavailable().answer().toCompletableFuture().join());
      return;
    }
    Watch watch = door.watch(facts);
    var answered = watch.answer().toCompletableFuture();
    if (answered.isDone()) {
      respond(request, response, answered.join());
      return;
    }
    AsyncContext async = request.startAsync();
    async.setTimeout(host.pollHoldSeconds() * 1000L);
    var written = new java.util.concurrent.atomic.AtomicBoolean();
    async.addListener(
        new AsyncListener() {
          @Override
          public void onTimeout(AsyncEvent event) {
            watch.expire(); // answers "not yet", written below
            if (written.compareAndSet(false, true)) {
              write(async, answered.join());
            }
          }

          @Override
          public void onError(AsyncEvent event) {
            watch.cancel();
          }

          @Override
          public void onComplete(AsyncEvent event) {
            watch.cancel(); // a no-op once answered
          }

          @Override
          public void onStartAsync(AsyncEvent event) {}
        });
    answered.thenAccept(
        answer ->
            async.start(
                () -> {
                  if (written.compareAndSet(false, true)) {
                    write(async, answer);
                  }
                }));
  }

  private static void write(AsyncContext async, Answer.Respond answer) {
    try {
      respond(
          (HttpServletRequest) async.getRequest(),
          (HttpServletResponse) async.getResponse(),
          answer);
    } catch (IOException | IllegalStateException e) {
      // the client left meanwhile: nothing to answer
    } finally {
      try {
        async.complete();
      } catch (IllegalStateException e) {
        // completed by the container already (an error or a timeout)
      }
    }
  }

  /** A {@code GET} of {@link #JWKS_PATH} below the context path (no copy of the path). */
  private static boolean isJwks(HttpServletRequest request, String uri) {
    if (uri == null || !uri.endsWith(JWKS_PATH) || !"GET".equals(request.getMethod())) {
      return false;
    }
    int context = request.getContextPath().length();
    return uri.length() - context == JWKS_PATH.length();
  }

  private void pass(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain, Answer.Pass p)
      throws IOException, ServletException {
    for (String c : p.setCookies()) {
      response.addHeader("Set-Cookie", c);
    }
    var origin = new PassedResponse(response, door, p);
    try {
      chain.doFilter(new OriginRequest(request, p.originHeaders()), origin);
    } finally {
      origin.complete(); // nothing written yet: the cookie goes on the response now
    }
  }

  /** Writes the door's own answer; the application never sees the request. */
  private static void respond(
      HttpServletRequest request, HttpServletResponse response, Answer.Respond r)
      throws IOException {
    response.setStatus(r.status());
    for (Answer.Header h : r.headers()) {
      response.addHeader(h.name(), h.value());
    }
    if (r.closeConnection() && !request.getProtocol().startsWith("HTTP/2")) {
      response.setHeader("Connection", "close");
    }
    response.setContentLength(r.body().length);
    response.getOutputStream().write(r.body());
    response.flushBuffer();
    r.written();
  }

  @Override
  public void destroy() {
    if (ownsHost && host != null) {
      host.close();
    }
  }
}
