package io.anteroom.objects.http;

import io.anteroom.objects.ObjectOverloadedException;
import io.anteroom.objects.ObjectTransport;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.net.PemKeyCertOptions;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves an {@link ObjectTransport} (normally the local transport of a runtime) over HTTP, so that
 * other processes can reach its objects with {@link HttpObjectTransport} or {@link RemoteObjects}.
 *
 * <p>Protocol: {@code POST /objects/{namespace}/{id}/{method}} with the codec-encoded arguments as
 * the body; the response body is the codec-encoded reply (the result or the object's exception,
 * both with status 200). Errors of the request itself are plain-text messages: 400 malformed path,
 * id or request, 401 missing or bad authentication, stale date or replayed nonce, 404 namespace not
 * exported or unknown path, 405 not a POST, 413 body above the limit, 421 this server does not lead
 * the object's shard (with a {@link #LEADER_HEADER} header naming the leader when known; see {@link
 * Builder#leaderLookup}), 503 the runtime refused the call (overloaded, closing) or too many calls
 * to remember within the replay window, 500 anything else the transport failed with.
 *
 * <p>Hostile peers: anyone who can reach the port is assumed hostile.
 *
 * <ul>
 *   <li><b>Authentication.</b> With a {@link Builder#secret shared secret} every call must be
 *       signed by an {@link HttpObjectTransport} holding it (HMAC-SHA256 over method, path with
 *       query, SHA-256 of the body, date and nonce; see {@link SharedSecret}); the MAC is compared
 *       in constant time. A date more than the {@link Builder#replayWindow replay window} (default
 *       30 s) away from this server's clock, or a nonce already accepted within it, is refused with
 *       401. Without a secret the server only binds a loopback address: that mode is for a single
 *       host and for tests.
 *   <li><b>Exposure.</b> Only namespaces {@link Builder#export exported} to the server are
 *       callable; by default none is.
 *   <li><b>TLS.</b> {@link Builder#tls} serves HTTPS with a PEM certificate and key; transports
 *       trust it with {@link HttpObjectTransport.Builder#trust}.
 *   <li><b>Resources.</b> At most {@link Builder#maxConnections} connections (default 256; the next
 *       ones are closed at once); the head of each request must arrive within {@link
 *       Builder#requestReadTimeout} (default 10 s) of the connection opening or of the previous
 *       response, and its body within the same time after the head (slow clients are disconnected,
 *       idle keep-alive connections too); a connection without any traffic is closed after {@link
 *       Builder#idleTimeout} (default 60 s); bodies above {@link Builder#maxBodyBytes} get 413; the
 *       head is limited to 8 KiB.
 * </ul>
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>The response is written only when the transport's future completes, i.e. when the object's
 *       output gate released the reply: the HTTP response <em>is</em> the held output, so a client
 *       never sees a result whose writes are not durable.
 *   <li>The event loop never blocks: each call is handed to a virtual thread, and the reply is
 *       written back on the request's own event-loop context.
 *   <li>Each request is delivered to the transport at most once; the server never retries. A 421
 *       answer means the call never reached the transport.
 * </ul>
 *
 * <pre>{@code
 * try (HttpObjectServer server = HttpObjectServer.builder(runtime.transport())
 *         .export("counter", "datacenter")      // 404 for the others
 *         .secret(SharedSecret.parse(System.getenv("ANTEROOM_COORDINATOR_SECRET")))
 *         .tls(Path.of("coordinator.pem"), Path.of("coordinator-key.pem"))    // optional
 *         .host("0.0.0.0").port(8081)          // default: 127.0.0.1, port 0 (any free port)
 *         .start()) {
 *     System.out.println("objects served at " + server.uri());
 *     ...
 * }
 * }</pre>
 */
public final class HttpObjectServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HttpObjectServer.class);

  /** Content type of encoded arguments and replies. */
  static final String CODEC_CONTENT_TYPE = "application/octet-stream";

  static final String TEXT_CONTENT_TYPE = "text/plain; charset=utf-8";

  /** Virtual threads need no shutdown: one executor serves every server of the process. */
  private static final ExecutorService CALLERS =
      Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("http-object-call-", 0).factory());

  static final String AUTH_SCHEME_HEADER = "WWW-Authenticate";

  /** The base URI of the object's leader, on a 421 answer (see {@link LeaderLookup}). */
  public static final String LEADER_HEADER = "Anteroom-Leader";

  /**
   * With every reply of a call that ran: the runtime instance serving the object once the reply is
   * released ({@link io.anteroom.objects.Incarnation}, {@code group/id}), looked up after the call,
   * so it is never older than the one that ran it.
   */
  public static final String INCARNATION_HEADER = "Anteroom-Incarnation";

  /** Misdirected Request: this server does not lead the object's shard; the call was not run. */
  static final int MISDIRECTED = 421;

  private final ObjectTransport transport;
  private final Predicate<String> knownNamespace;
  private final LeaderLookup leaderLookup;
  private final long maxBodyBytes;
  private final List<SharedSecret> secrets;
  private final ReplayGuard replayGuard;
  private final boolean tls;
  private final long requestReadMillis;
  private final int maxConnections;
  private final int maxRememberedNonces;
  private final AtomicInteger connections = new AtomicInteger();
  private final Map<HttpConnection, ReadDeadline> deadlines = new ConcurrentHashMap<>();
  private final Duration closeGracePeriod;
  private final Vertx vertx;
  private final boolean ownsVertx;
  private final HttpServer server;
  private final String host;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicInteger inFlight = new AtomicInteger();

  /** Completed once no call is in flight after {@link #close} began (the drain's end). */
  private final CompletableFuture<Void> idle = new CompletableFuture<>();

  private final AtomicLong answered = new AtomicLong();
  private final AtomicLong unanswered = new AtomicLong();

  private HttpObjectServer(Builder b) {
    this.transport = b.transport;
    this.knownNamespace = b.knownNamespace;
    this.leaderLookup = b.leaderLookup;
    this.maxBodyBytes = b.maxBodyBytes;
    this.closeGracePeriod = b.closeGracePeriod;
    this.secrets = List.copyOf(b.secrets);
    this.replayGuard = new ReplayGuard(b.clock, b.replayWindow.toMillis(), b.maxRememberedNonces);
    this.tls = b.tlsCert != null;
    this.requestReadMillis = Math.max(1, b.requestReadTimeout.toMillis());
    this.maxConnections = b.maxConnections;
    this.maxRememberedNonces = b.maxRememberedNonces;
    this.host = b.host;
    this.ownsVertx = b.vertx == null;
    this.vertx = ownsVertx ? Vertx.vertx() : b.vertx;
    HttpServerOptions options =
        new HttpServerOptions()
            .setHost(b.host)
            .setPort(b.port)
            .setTcpNoDelay(true)
            .setHttp2ClearTextEnabled(false) // the protocol is plain HTTP/1.1 with keep-alive
            .setMaxInitialLineLength(4096)
            .setMaxHeaderSize(8192)
            .setIdleTimeout((int) Math.max(1, b.idleTimeout.toMillis()))
            .setIdleTimeoutUnit(TimeUnit.MILLISECONDS);
    if (tls) {
      options
          .setSsl(true)
          .setKeyCertOptions(
              new PemKeyCertOptions()
                  .setCertPath(b.tlsCert.toString())
                  .setKeyPath(b.tlsKey.toString()))
          .setSslHandshakeTimeout(requestReadMillis)
          .setSslHandshakeTimeoutUnit(TimeUnit.MILLISECONDS);
    }
    this.server =
        vertx
            .createHttpServer(options)
            .connectionHandler(this::accept)
            .requestHandler(this::handle);
    try {
      server.listen().await(30, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      closeOwnedVertx();
      throw new IllegalStateException(
          "HTTP object server did not bind " + b.host + ":" + b.port + " within 30 s", e);
    } catch (Exception e) {
      closeOwnedVertx();
      throw new IllegalStateException(
          "HTTP object server could not bind " + b.host + ":" + b.port + ": " + e.getMessage(), e);
    }
  }

  /** A builder for a server in front of {@code transport}. */
  public static Builder builder(ObjectTransport transport) {
    return new Builder(transport);
  }

  /** The port actually bound (useful with port 0). */
  public int actualPort() {
    return server.actualPort();
  }

  /**
   * The base URI of this server, e.g. {@code http://127.0.0.1:40123} ({@code https://} with {@link
   * Builder#tls}), for {@link HttpObjectTransport#builder}.
   */
  public URI uri() {
    String h = host.contains(":") ? '[' + host + ']' : host;
    return URI.create((tls ? "https://" : "http://") + h + ':' + actualPort());
  }

  /** Whether calls must be signed with a shared secret. */
  public boolean authenticated() {
    return !secrets.isEmpty();
  }

  /** Connections open now (for metrics and tests). */
  public int openConnections() {
    return connections.get();
  }

  /**
   * Stops accepting connections, lets calls in flight finish and send their replies (up to the
   * grace period, default 30 s), then releases the port. Does not close the transport.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) return;
    long answeredBefore = answered.get();
    long unansweredBefore = unanswered.get();
    long began = System.nanoTime();
    int port = actualPort();
    LOG.info(
        "object server on port {} stopping: no new connections; draining {} {} in flight for up to"
            + " {} s",
        port,
        inFlight.get(),
        inFlight.get() == 1 ? "call" : "calls",
        closeGracePeriod.toSeconds());
    try {
      server
          .shutdown(closeGracePeriod.toMillis(), TimeUnit.MILLISECONDS)
          .await(closeGracePeriod.toMillis() + 5_000, TimeUnit.MILLISECONDS);
      // Vert.x's shutdown can end while a call's reply is still to be written on a connection it
      // has not closed yet: the drain ends when the calls in flight have ended, or at the grace
      // period
      if (inFlight.get() == 0) idle.complete(null);
      long left = closeGracePeriod.toNanos() - (System.nanoTime() - began);
      try {
        idle.get(Math.max(0, left), TimeUnit.NANOSECONDS);
      } catch (TimeoutException stillInFlight) {
        // counted cut off below
      }
      long drained = answered.get() - answeredBefore;
      LOG.info(
          "object server on port {} drained: {} {} answered during the drain, {} cut off, in {} ms",
          port,
          drained,
          drained == 1 ? "call" : "calls",
          unanswered.get() - unansweredBefore + inFlight.get(),
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began));
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "HTTP object server on port "
              + actualPort()
              + " did not shut down within "
              + closeGracePeriod.plusSeconds(5),
          e);
    } catch (Exception e) {
      throw new IllegalStateException(
          "HTTP object server on port " + actualPort() + " failed to shut down: " + e.getMessage(),
          e);
    } finally {
      closeOwnedVertx();
    }
  }

  private void closeOwnedVertx() {
    if (ownsVertx) {
      try {
        vertx.close().await(30, TimeUnit.SECONDS);
      } catch (Exception e) {
        throw new IllegalStateException(
            "closing the Vert.x instance of the HTTP object server failed: " + e.getMessage(), e);
      }
    }
  }

  // ---- connections (event loop) ----

  /**
   * Caps the connections and arms the read deadline of a new connection. One deadline per
   * connection: armed when the connection opens and when a response ends (waiting for the next
   * head), re-armed when a head arrives (waiting for its body), cancelled while a call runs.
   */
  private void accept(HttpConnection connection) {
    if (connections.incrementAndGet() > maxConnections) {
      connections.decrementAndGet();
      connection.close();
      return;
    }
    LOG.debug("connection from {}", connection.remoteAddress());
    ReadDeadline deadline = new ReadDeadline(connection);
    deadlines.put(connection, deadline);
    connection.closeHandler(
        v -> {
          deadline.cancel();
          deadlines.remove(connection);
          connections.decrementAndGet();
        });
    deadline.arm();
  }

  private final class ReadDeadline {
    private final HttpConnection connection;
    private long timer = -1;

    ReadDeadline(HttpConnection connection) {
      this.connection = connection;
    }

    void arm() {
      cancel();
      timer =
          vertx.setTimer(
              requestReadMillis,
              t -> {
                timer = -1;
                connection
                    .close(); // too slow to send a head or a body: a slow-loris or a dead peer
              });
    }

    void cancel() {
      if (timer >= 0) {
        vertx.cancelTimer(timer);
        timer = -1;
      }
    }
  }

  // ---- request handling (event loop) ----

  /** A call's reply ended (written or cut off): the drain ends with the last one. */
  private void callEnded() {
    if (inFlight.decrementAndGet() == 0 && closed.get()) idle.complete(null);
  }

  private void handle(HttpServerRequest request) {
    ReadDeadline deadline = deadlines.get(request.connection());
    if (deadline == null) { // a connection above the cap, closed before its first request
      request.connection().close();
      return;
    }
    deadline.arm(); // the body must now arrive in time
    inFlight.incrementAndGet();
    var counted = new AtomicBoolean();
    request
        .response()
        .endHandler(
            v -> {
              deadline.arm(); // then the next head
              if (counted.compareAndSet(false, true)) {
                // also called when the connection closes under an unfinished response
                (request.response().closed() ? unanswered : answered).incrementAndGet();
                callEnded();
              }
            })
        .closeHandler(
            v -> {
              if (counted.compareAndSet(false, true)) {
                unanswered.incrementAndGet();
                callEnded();
              }
            });
    String path = request.path();
    if (ObjectPaths.PING.equals(path) && request.method() == HttpMethod.GET) {
      // a routing transport keeping its connection warm: answered once the (empty) request ended,
      // so the connection stays open for the next request
      request
          .end()
          .onComplete(
              done -> {
                if (!request.response().ended()) request.response().setStatusCode(204).end();
              });
      return;
    }
    if (!ObjectPaths.isCallPath(path)) {
      reject(
          request,
          404,
          "no such endpoint "
              + ObjectPaths.quote(String.valueOf(path))
              + "; calls are "
              + ObjectPaths.FORMAT);
      return;
    }
    if (request.method() != HttpMethod.POST) {
      request.response().putHeader(HttpHeaders.ALLOW, "POST");
      reject(
          request,
          405,
          "method " + request.method() + " not allowed; calls are " + ObjectPaths.FORMAT);
      return;
    }
    ObjectPaths.Target target;
    try {
      target = ObjectPaths.parse(path);
    } catch (IllegalArgumentException e) {
      reject(request, 400, e.getMessage());
      return;
    }
    Authentication auth = null;
    if (!secrets.isEmpty()) {
      auth = Authentication.of(request);
      String problem = auth.headerProblem(replayGuard);
      if (problem != null) {
        unauthorized(request, problem);
        return;
      }
    }
    String declaredLength = request.getHeader(HttpHeaders.CONTENT_LENGTH);
    if (declaredLength != null && exceedsLimit(declaredLength)) {
      reject(request, 413, tooLarge(declaredLength + " bytes declared"));
      return;
    }
    Buffer body = Buffer.buffer();
    request.handler(
        chunk -> {
          if (request.response().ended()) return; // already rejected: discard the rest
          if (body.length() + (long) chunk.length() > maxBodyBytes) {
            reject(request, 413, tooLarge("more than " + maxBodyBytes + " bytes sent"));
            return;
          }
          body.appendBuffer(chunk);
        });
    Authentication signed = auth;
    request.endHandler(
        done -> {
          if (request.response().ended()) return;
          deadline
              .cancel(); // the call may take as long as the object needs; the idle timeout still
          // applies
          byte[] args = body.getBytes();
          if (signed != null) {
            String problem = signed.verify(secrets, replayGuard, args);
            if (problem == FULL) {
              reject(
                  request,
                  503,
                  FULL + " (more than " + maxRememberedNonces + "); the call was not run");
              return;
            }
            if (problem != null) {
              unauthorized(request, problem);
              return;
            }
          }
          if (!knownNamespace.test(target.namespace())) {
            reject(
                request,
                404,
                "unknown namespace "
                    + ObjectPaths.quote(target.namespace())
                    + " (not exported by this server)");
            return;
          }
          if (leaderLookup != null && !leads(request, target)) return;
          dispatch(request.response(), target, args);
        });
  }

  /**
   * Whether this server runs the call; if not, the request was answered (421, or 503 if the lookup
   * failed).
   */
  private boolean leads(HttpServerRequest request, ObjectPaths.Target target) {
    LeaderLookup.Leader leader;
    try {
      leader = leaderLookup.leaderOf(target.namespace(), target.id());
    } catch (RuntimeException e) {
      reject(
          request,
          503,
          "cannot tell which coordinator leads "
              + target.namespace()
              + "/"
              + target.id()
              + " ("
              + e
              + "); the call was not run");
      return false;
    }
    if (leader.self()) return true;
    LOG.debug("{}/{}: 421, leader {}", target.namespace(), target.id(), leader.uri());
    leader.uri().ifPresent(uri -> request.response().putHeader(LEADER_HEADER, uri.toString()));
    reject(
        request,
        MISDIRECTED,
        "this coordinator does not lead the shard of "
            + target.namespace()
            + "/"
            + target.id()
            + "; "
            + leader
                .uri()
                .map(uri -> "the leader is " + uri)
                .orElse("no leader is known yet (an election)")
            + "; the call was not run");
    return false;
  }

  private boolean exceedsLimit(String declaredLength) {
    try {
      return Long.parseLong(declaredLength.trim()) > maxBodyBytes;
    } catch (NumberFormatException e) {
      return false; // the HTTP codec itself rejects malformed lengths
    }
  }

  private String tooLarge(String what) {
    return "request body too large (" + what + "); the limit is " + maxBodyBytes + " bytes";
  }

  /** Hands the call to a virtual thread; the reply is written back on this request's context. */
  private void dispatch(HttpServerResponse response, ObjectPaths.Target target, byte[] args) {
    Context context = vertx.getOrCreateContext();
    long received = System.nanoTime();
    CALLERS.execute(
        () -> {
          long started = System.nanoTime();
          CompletableFuture<byte[]> reply;
          try {
            reply = transport.call(target.namespace(), target.id(), target.method(), args);
          } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
          }
          reply.whenComplete(
              (bytes, failure) -> {
                if (LOG.isDebugEnabled()) {
                  long now = System.nanoTime();
                  LOG.debug(
                      "{}/{}/{}: {} after {} ms (the runtime took {} ms)",
                      target.namespace(),
                      target.id(),
                      target.method(),
                      failure == null ? "replied" : "failed: " + unwrap(failure),
                      TimeUnit.NANOSECONDS.toMillis(now - received),
                      TimeUnit.NANOSECONDS.toMillis(now - started));
                }
                context.runOnContext(
                    v -> {
                      if (failure == null) {
                        incarnation(target)
                            .ifPresent(i -> response.putHeader(INCARNATION_HEADER, i.toString()));
                        response
                            .setStatusCode(200)
                            .putHeader(HttpHeaders.CONTENT_TYPE, CODEC_CONTENT_TYPE)
                            .end(Buffer.buffer(bytes));
                      } else {
                        Throwable cause = unwrap(failure);
                        response
                            .setStatusCode(statusFor(cause))
                            .putHeader(HttpHeaders.CONTENT_TYPE, TEXT_CONTENT_TYPE)
                            .end(cause.getClass().getSimpleName() + ": " + cause.getMessage());
                      }
                    });
              });
        });
  }

  /** The transport's incarnation of the call's object; a lookup that fails sends none. */
  private java.util.Optional<io.anteroom.objects.Incarnation> incarnation(
      ObjectPaths.Target target) {
    try {
      return transport.incarnation(target.namespace(), target.id());
    } catch (RuntimeException e) {
      return java.util.Optional.empty();
    }
  }

  /**
   * How a failure of the transport (not of the object: those are encoded in the reply) maps to a
   * status.
   */
  static int statusFor(Throwable cause) {
    if (cause instanceof ObjectOverloadedException
        || cause instanceof java.util.concurrent.RejectedExecutionException) {
      return 503;
    }
    if (cause instanceof IllegalStateException) {
      return 503; // the runtime is closing or closed
    }
    if (cause instanceof IllegalArgumentException) {
      return 400; // the runtime could not make sense of the method or the arguments
    }
    return 500;
  }

  private static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /** 401; the connection is closed, since its peer does not hold the secret (or replays). */
  private static void unauthorized(HttpServerRequest request, String why) {
    request
        .response()
        .putHeader(AUTH_SCHEME_HEADER, CallSignature.SCHEME)
        .putHeader(HttpHeaders.CONNECTION, "close");
    reject(request, 401, "unauthorized: " + why);
  }

  /**
   * 503 when the replay guard is full: the call was not run and may be retried after the window.
   */
  private static final String FULL = "too many calls within the replay window";

  /**
   * The authentication headers of one request. The cheap checks (presence, format, key id, date)
   * run before the body is read; the MAC and the nonce after.
   */
  private record Authentication(
      String method,
      String target,
      String keyId,
      String date,
      String nonce,
      String signature,
      long dateMillis) {
    static Authentication of(HttpServerRequest r) {
      String date = r.getHeader(CallSignature.DATE);
      return new Authentication(
          r.method().name(),
          r.uri(),
          r.getHeader(CallSignature.KEY_ID),
          date,
          r.getHeader(CallSignature.NONCE),
          r.getHeader(CallSignature.SIGNATURE),
          CallSignature.parseDate(date));
    }

    /** Why the headers alone refuse the call, or null. */
    String headerProblem(ReplayGuard guard) {
      if (keyId == null || date == null || nonce == null || signature == null) {
        return "the call is not signed (headers "
            + CallSignature.KEY_ID
            + ", "
            + CallSignature.DATE
            + ", "
            + CallSignature.NONCE
            + ", "
            + CallSignature.SIGNATURE
            + " are required)";
      }
      if (!SharedSecret.validKeyId(keyId) || dateMillis < 0 || !CallSignature.validNonce(nonce)) {
        return "malformed authentication headers";
      }
      if (!guard.fresh(dateMillis)) {
        return "the call's date is outside the replay window (check the clocks of both hosts)";
      }
      return null;
    }

    /** Why the MAC or the nonce refuses the call, or null (the nonce is then remembered). */
    String verify(List<SharedSecret> secrets, ReplayGuard guard, byte[] body) {
      if (!CallSignature.verify(
          secrets, keyId, method, target, date, nonce, CallSignature.bodyHash(body), signature)) {
        return "bad signature (wrong secret or key id, or the request was altered)";
      }
      return switch (guard.admit(dateMillis, nonce)) {
        case ACCEPTED -> null;
        case STALE ->
            "the call's date is outside the replay window (check the clocks of both hosts)";
        case REPLAYED -> "replayed nonce";
        case FULL -> FULL;
      };
    }
  }

  private static void reject(HttpServerRequest request, int status, String message) {
    HttpServerResponse response = request.response();
    boolean bodyUnread = !request.isEnded();
    response.setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, TEXT_CONTENT_TYPE);
    if (bodyUnread) {
      // the unread rest of the body would be parsed as the next request: close after replying
      response.putHeader(HttpHeaders.CONNECTION, "close");
    }
    response.end(message + '\n');
  }

  /** Options of an {@link HttpObjectServer}; {@link #start()} binds it. */
  public static final class Builder {
    private final ObjectTransport transport;
    private String host = "127.0.0.1";
    private int port = 0;
    private long maxBodyBytes = 1 << 20;
    private Duration closeGracePeriod = Duration.ofSeconds(30);
    private Predicate<String> knownNamespace = ns -> false;
    private LeaderLookup leaderLookup;
    private Vertx vertx;
    private final List<SharedSecret> secrets = new ArrayList<>();
    private Duration replayWindow = Duration.ofSeconds(30);
    private int maxRememberedNonces = 100_000;
    private Clock clock = Clock.systemUTC();
    private Path tlsCert;
    private Path tlsKey;
    private Duration idleTimeout = Duration.ofSeconds(60);
    private Duration requestReadTimeout = Duration.ofSeconds(10);
    private int maxConnections = 256;

    private Builder(ObjectTransport transport) {
      this.transport = Objects.requireNonNull(transport, "transport");
    }

    /**
     * Requires every call to be signed with one of these secrets (several: during a key rotation,
     * the old and the new one; transports sign with the one they hold). The normal mode of a
     * server; without it, {@link #start()} refuses any non-loopback host.
     */
    public Builder secret(SharedSecret... secrets) {
      for (SharedSecret s : secrets) {
        Objects.requireNonNull(s, "secret");
        for (SharedSecret known : this.secrets) {
          if (known.keyId().equals(s.keyId()) && !known.equals(s)) {
            throw new IllegalArgumentException(
                "two different shared secrets with key id \"" + s.keyId() + '"');
          }
        }
        this.secrets.add(s);
      }
      return this;
    }

    /**
     * How far a signed call's date may be from this server's clock, either way (default 30 s);
     * nonces are remembered for as long. Must cover the clock skew between hosts.
     */
    public Builder replayWindow(Duration window) {
      if (window.isNegative() || window.isZero() || window.compareTo(Duration.ofMinutes(10)) > 0) {
        throw new IllegalArgumentException(
            "replayWindow must be positive and at most 10 minutes, got " + window);
      }
      this.replayWindow = window;
      return this;
    }

    /**
     * Most nonces remembered at once (default 100,000, about 15 MiB): above it, calls get 503 until
     * older nonces expire. Allows about {@code max / (2 × window)} calls per second.
     */
    public Builder maxRememberedNonces(int max) {
      if (max < 1) {
        throw new IllegalArgumentException("maxRememberedNonces must be at least 1, got " + max);
      }
      this.maxRememberedNonces = max;
      return this;
    }

    /** The clock that judges signed dates (tests); default the system clock. */
    Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Serves HTTPS with this PEM certificate (chain) and PEM private key (PKCS#8 or PKCS#1). */
    public Builder tls(Path certificatePem, Path privateKeyPem) {
      Objects.requireNonNull(certificatePem, "certificatePem");
      Objects.requireNonNull(privateKeyPem, "privateKeyPem");
      for (Path p : List.of(certificatePem, privateKeyPem)) {
        if (!Files.isReadable(p)) {
          throw new IllegalArgumentException(
              "TLS file " + p.toAbsolutePath() + " does not exist or is not readable");
        }
      }
      this.tlsCert = certificatePem;
      this.tlsKey = privateKeyPem;
      return this;
    }

    /**
     * A connection without any traffic for this long is closed (default 60 s; longer than any call
     * should take).
     */
    public Builder idleTimeout(Duration idleTimeout) {
      if (idleTimeout.isNegative() || idleTimeout.isZero()) {
        throw new IllegalArgumentException("idleTimeout must be positive, got " + idleTimeout);
      }
      this.idleTimeout = idleTimeout;
      return this;
    }

    /**
     * Deadline for a request's head (from the connection's opening or the previous response) and
     * then for its body (from the head); default 10 s. Idle keep-alive connections are closed after
     * it too (transports close theirs after 5 s idle, before the server does).
     */
    public Builder requestReadTimeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("requestReadTimeout must be positive, got " + timeout);
      }
      this.requestReadTimeout = timeout;
      return this;
    }

    /** Most connections open at once (default 256); further ones are closed at once. */
    public Builder maxConnections(int max) {
      if (max < 1) {
        throw new IllegalArgumentException("maxConnections must be at least 1, got " + max);
      }
      this.maxConnections = max;
      return this;
    }

    /**
     * The namespaces callable through this server; calls to any other get 404 without reaching the
     * transport. Default: none. Replaces an earlier {@link #namespaces} filter.
     */
    public Builder export(String... namespaces) {
      Set<String> exported = new LinkedHashSet<>(List.of(namespaces));
      this.knownNamespace = exported::contains;
      return this;
    }

    /** Interface to bind; default {@code 127.0.0.1} (only local clients). */
    public Builder host(String host) {
      this.host = Objects.requireNonNull(host, "host");
      return this;
    }

    /** Port to bind, 0 for any free port (default); see {@link HttpObjectServer#actualPort()}. */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be between 0 and 65535, got " + port);
      }
      this.port = port;
      return this;
    }

    /** Largest accepted request body (encoded arguments); larger ones get 413. Default 1 MiB. */
    public Builder maxBodyBytes(long maxBodyBytes) {
      if (maxBodyBytes < 1) {
        throw new IllegalArgumentException("maxBodyBytes must be at least 1, got " + maxBodyBytes);
      }
      this.maxBodyBytes = maxBodyBytes;
      return this;
    }

    /**
     * Which namespaces are callable, as a predicate (e.g. {@code runtime::hasNamespace} to export
     * every namespace of a runtime that holds only remotely callable objects); calls to others get
     * 404 without reaching the transport. Default: none. Prefer {@link #export}.
     */
    public Builder namespaces(Predicate<String> knownNamespace) {
      this.knownNamespace = Objects.requireNonNull(knownNamespace, "knownNamespace");
      return this;
    }

    /**
     * In a cluster: runs only calls to objects this server leads ({@link LeaderLookup}); the others
     * are answered 421 with the leader's URI, before they reach the transport. Default: none (every
     * call runs here).
     */
    public Builder leaderLookup(LeaderLookup lookup) {
      this.leaderLookup = Objects.requireNonNull(lookup, "lookup");
      return this;
    }

    /** How long {@link HttpObjectServer#close()} waits for calls in flight. Default 30 s. */
    public Builder closeGracePeriod(Duration closeGracePeriod) {
      if (closeGracePeriod.isNegative()) {
        throw new IllegalArgumentException(
            "closeGracePeriod must not be negative, got " + closeGracePeriod);
      }
      this.closeGracePeriod = closeGracePeriod;
      return this;
    }

    /** Runs on this Vert.x instance (not closed by the server); default: a private one. */
    public Builder vertx(Vertx vertx) {
      this.vertx = Objects.requireNonNull(vertx, "vertx");
      return this;
    }

    /**
     * Binds the server; throws {@link IllegalStateException} if the port cannot be bound, and
     * {@link IllegalArgumentException} if the host is not a loopback address and no {@link #secret}
     * was given.
     */
    public HttpObjectServer start() {
      LoopbackRule.require(
          !secrets.isEmpty(),
          host,
          () ->
              "refusing to serve objects on "
                  + host
                  + " without a shared secret: "
                  + "anyone who can reach the port could call them. Configure a secret (e.g. coordinator.secret), "
                  + "or listen on a loopback address such as 127.0.0.1");
      return new HttpObjectServer(this);
    }
  }
}
