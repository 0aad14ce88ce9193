package io.anteroom.objects.http;

import io.anteroom.objects.ObjectId;
import io.anteroom.objects.ObjectTransport;
import io.anteroom.objects.ObjectTransportException;
import io.anteroom.objects.RefusedCallException;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.PemTrustOptions;
import java.net.ConnectException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link ObjectTransport} that reaches the objects of a remote runtime served by {@link
 * HttpObjectServer}, over pooled keep-alive HTTP/1.1 connections.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>Never retries. Each {@link #call} sends at most one request; if it fails after the request
 *       may have reached the server, the exception says the call "may or may not have run", because
 *       retrying could apply it twice. Only the caller can decide (e.g. with an idempotent method)
 *       whether to call again.
 *   <li>Every call ends within its timeout (default 30 s, from the moment of the call, including
 *       waiting for a pooled connection): with the reply, or with an {@link
 *       ObjectTransportException} naming the URL. A request that timed out is reset, so its late
 *       reply can never be mistaken for another call's.
 *   <li>Futures are completed on virtual threads, never on the Vert.x event loop, so code chained
 *       on them may block.
 *   <li>With a {@link Builder#secret shared secret}, every request is signed when it is sent (fresh
 *       date and nonce; see {@link HttpObjectServer}); a 401 fails the call with the server's
 *       reason. With {@code https://} and {@link Builder#trust}, the server's certificate must
 *       chain to the given PEM certificates and name the URI's host.
 * </ul>
 *
 * <pre>{@code
 * try (HttpObjectTransport transport = HttpObjectTransport.builder(URI.create("https://coordinator:8081"))
 *         .secret(SharedSecret.parse(System.getenv("ANTEROOM_COORDINATOR_SECRET")))
 *         .trust(Path.of("coordinator-ca.pem"))
 *         .poolSize(64).timeout(Duration.ofSeconds(5)).build()) {
 *     byte[] reply = transport.call("counter", id, "next", encodedArgs).join();
 * }
 * }</pre>
 *
 * Most code uses typed stubs from {@link RemoteObjects} instead of calling this directly.
 */
public final class HttpObjectTransport implements ObjectTransport {
  private static final Logger LOG = LoggerFactory.getLogger(HttpObjectTransport.class);

  private final String base;
  private final String host;
  private final int port;
  private final Duration timeout;
  private final SharedSecret secret;
  private final Clock clock;
  private final Vertx vertx;
  private final boolean ownsVertx;
  private final HttpClientAgent client;
  private final IncarnationWatch incarnations;

  /**
   * Every exchange starts, and so runs all its callbacks, on this one event-loop context. Requests
   * started from arbitrary (virtual) threads each got a fresh context, so the response could arrive
   * on one event loop while the request's callbacks ran on another; under load about one reply in a
   * few hundred was then never delivered.
   */
  private final io.vertx.core.Context context;

  /** Virtual threads need no shutdown: one executor serves every transport of the process. */
  private static final ExecutorService COMPLETIONS =
      Executors.newThreadPerTaskExecutor(
          Thread.ofVirtual().name("http-object-reply-", 0).factory());

  private final AtomicBoolean closed = new AtomicBoolean();

  /** The connections seen so far (on {@link #context} only), to tell new ones in the trace. */
  private final java.util.Set<Object> known =
      java.util.Collections.newSetFromMap(new java.util.WeakHashMap<>());

  private HttpObjectTransport(Builder b) {
    URI uri = b.baseUri;
    this.host = uri.getHost();
    boolean https = "https".equalsIgnoreCase(uri.getScheme());
    this.port = uri.getPort() < 0 ? (https ? 443 : 80) : uri.getPort();
    this.base = (https ? "https://" : "http://") + uri.getRawAuthority();
    this.timeout = b.timeout;
    this.secret = b.secret;
    this.clock = b.clock;
    this.incarnations = b.incarnations;
    this.ownsVertx = b.vertx == null;
    this.vertx = ownsVertx ? Vertx.vertx() : b.vertx;
    HttpClientOptions options =
        new HttpClientOptions()
            .setKeepAlive(true)
            // below the server's request read deadline (10 s by default), so that the server
            // never closes a pooled connection just as a call is sent on it
            .setKeepAliveTimeout(5)
            .setTcpNoDelay(true)
            .setConnectTimeout(
                (int)
                    Math.min(
                        Integer.MAX_VALUE,
                        (b.connectTimeout != null && b.connectTimeout.compareTo(b.timeout) < 0
                                ? b.connectTimeout
                                : b.timeout)
                            .toMillis()));
    if (https) {
      options.setSsl(true).setVerifyHost(true);
      if (!b.trust.isEmpty()) {
        PemTrustOptions trust = new PemTrustOptions();
        b.trust.forEach(p -> trust.addCertPath(p.toString()));
        options.setTrustOptions(trust);
      }
    }
    this.client = vertx.createHttpClient(options, new PoolOptions().setHttp1MaxSize(b.poolSize));
    this.context = vertx.getOrCreateContext();
  }

  /**
   * A builder for a transport to the server at {@code baseUri}, e.g. {@code http://127.0.0.1:8081}.
   */
  public static Builder builder(URI baseUri) {
    return new Builder(baseUri);
  }

  /** The per-call timeout. */
  public Duration timeout() {
    return timeout;
  }

  @Override
  public CompletableFuture<byte[]> call(
      String namespace, ObjectId id, String method, byte[] encodedArgs) {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(encodedArgs, "encodedArgs");
    String path = ObjectPaths.path(namespace, id, method);
    String url = base + path;
    CompletableFuture<byte[]> result = new CompletableFuture<>();
    if (closed.get()) {
      result.completeExceptionally(
          new ObjectTransportException(
              "transport to " + base + " is closed: the call to " + url + " was not sent"));
      return result;
    }
    String bodyHash =
        secret == null ? null : CallSignature.bodyHash(encodedArgs); // here, not on the event loop
    Exchange exchange = new Exchange(url, path, encodedArgs, bodyHash, result);
    context.runOnContext(v -> exchange.start());
    // re-complete on a virtual thread, failures included (thenApplyAsync would pass a failure on
    // synchronously)
    CompletableFuture<byte[]> delivered = new CompletableFuture<>();
    result.whenCompleteAsync(
        (bytes, failure) -> {
          if (failure == null) {
            delivered.complete(bytes);
          } else {
            delivered.completeExceptionally(failure);
          }
        },
        COMPLETIONS);
    return delivered;
  }

  /**
   * Sends {@code GET} {@value ObjectPaths#PING} on a pooled connection (opening one if none is
   * free), so that a connection to this server is open and warm when a call needs one; completes
   * true once answered, false if it failed or took longer than {@code within} (its request is then
   * reset). Runs nothing on the server and is never retried.
   */
  CompletableFuture<Boolean> ping(Duration within) {
    CompletableFuture<Boolean> answered = new CompletableFuture<>();
    if (closed.get()) {
      answered.complete(false);
      return answered;
    }
    context.runOnContext(
        v -> {
          java.util.concurrent.atomic.AtomicReference<HttpClientRequest> sent =
              new java.util.concurrent.atomic.AtomicReference<>();
          long timer =
              vertx.setTimer(
                  Math.max(1, within.toMillis()),
                  t -> {
                    if (answered.complete(false)) {
                      HttpClientRequest req = sent.get();
                      if (req != null) req.reset(); // a silent server must not keep the connection
                    }
                  });
          answered.whenComplete((ok, e) -> vertx.cancelTimer(timer));
          client
              .request(
                  new RequestOptions()
                      .setMethod(HttpMethod.GET)
                      .setHost(host)
                      .setPort(port)
                      .setURI(ObjectPaths.PING))
              .compose(
                  req -> {
                    sent.set(req);
                    if (answered.isDone()) { // timed out while connecting
                      req.reset();
                      return io.vertx.core.Future.failedFuture("timed out before sending");
                    }
                    return req.send().compose(r -> r.body().map(b -> r.statusCode()));
                  })
              .onComplete(
                  status -> answered.complete(status.succeeded() && status.result() == 204));
        });
    return answered;
  }

  /** Closes the pooled connections (and the private Vert.x instance). Calls in flight fail. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) return;
    try {
      client.close().await(10, TimeUnit.SECONDS);
      if (ownsVertx) {
        vertx.close().await(10, TimeUnit.SECONDS);
      }
    } catch (Exception e) {
      throw new IllegalStateException(
          "closing the HTTP object transport to " + base + " failed: " + e.getMessage(), e);
    }
  }

  /**
   * One request and its reply. {@code sent} records whether the request may have left this process:
   * before that, a failure means the call certainly did not run.
   */
  private final class Exchange {
    private final String url;
    private final String path;
    private final byte[] args;
    private final String bodyHash;
    private final CompletableFuture<byte[]> result;
    private volatile boolean sent;
    private volatile HttpClientRequest request;
    private final long began = System.nanoTime();
    private volatile long connected;
    private volatile boolean fresh;

    Exchange(
        String url, String path, byte[] args, String bodyHash, CompletableFuture<byte[]> result) {
      this.url = url;
      this.path = path;
      this.args = args;
      this.bodyHash = bodyHash;
      this.result = result;
    }

    void start() {
      long timer = vertx.setTimer(Math.max(1, timeout.toMillis()), t -> onTimeout());
      result.whenComplete((r, e) -> vertx.cancelTimer(timer));
      RequestOptions options =
          new RequestOptions()
              .setMethod(HttpMethod.POST)
              .setHost(host)
              .setPort(port)
              .setURI(path)
              .putHeader(HttpHeaders.CONTENT_TYPE, HttpObjectServer.CODEC_CONTENT_TYPE);
      client
          .request(options)
          .compose(
              req -> {
                request = req;
                connected = System.nanoTime();
                fresh = known.add(req.connection());
                if (result.isDone()) { // timed out while waiting for a connection
                  req.reset();
                  return io.vertx.core.Future.failedFuture("timed out before sending");
                }
                if (secret != null) {
                  // signed as late as possible: the date must not age while waiting for a
                  // connection
                  CallSignature.Headers h =
                      CallSignature.sign(secret, "POST", path, bodyHash, clock.millis());
                  req.putHeader(CallSignature.KEY_ID, h.keyId())
                      .putHeader(CallSignature.DATE, h.date())
                      .putHeader(CallSignature.NONCE, h.nonce())
                      .putHeader(CallSignature.SIGNATURE, h.signature());
                }
                sent = true;
                return req.send(Buffer.buffer(args));
              })
          .compose(
              response ->
                  response
                      .body()
                      .map(
                          body -> {
                            int status = response.statusCode();
                            trace(String.valueOf(status));
                            if (status == 200) {
                              if (incarnations != null) {
                                // before the reply completes: its caller sees the change
                                incarnations.observe(
                                    response.getHeader(HttpObjectServer.INCARNATION_HEADER));
                              }
                              result.complete(body.getBytes());
                            } else if (status == HttpObjectServer.MISDIRECTED) {
                              result.completeExceptionally(
                                  misdirected(
                                      response.getHeader(HttpObjectServer.LEADER_HEADER),
                                      body.toString()));
                            } else {
                              result.completeExceptionally(httpError(status, body.toString()));
                            }
                            return null;
                          }))
          .onFailure(this::onFailure);
    }

    /** One DEBUG line per exchange: how long the connection and the reply took. */
    private void trace(String outcome) {
      if (!LOG.isDebugEnabled()) return;
      long now = System.nanoTime();
      LOG.debug(
          "{}: {} after {} ms ({} connection after {} ms)",
          url,
          outcome,
          TimeUnit.NANOSECONDS.toMillis(now - began),
          connected == 0 ? "no" : fresh ? "new" : "pooled",
          connected == 0 ? -1 : TimeUnit.NANOSECONDS.toMillis(connected - began));
    }

    private void onTimeout() {
      trace("timeout");
      boolean mayHaveRun = sent;
      if (result.completeExceptionally(
          new ObjectTransportException(
              "no reply within "
                  + format(timeout)
                  + " from "
                  + url
                  + (mayHaveRun
                      ? ": the call may or may not have run; not retried"
                      : ": no connection became available, the call was not sent; not retried")))) {
        HttpClientRequest req = request;
        if (req != null) {
          req.reset(); // close the connection: a late reply must not reach another call
        }
      }
    }

    private void onFailure(Throwable failure) {
      if (result.isDone()) return;
      trace("failure " + failure);
      String why =
          failure.getMessage() == null ? failure.getClass().getSimpleName() : failure.getMessage();
      if (!sent || failure instanceof ConnectException) {
        result.completeExceptionally(
            new CallNotSentException(
                "could not connect to "
                    + base
                    + " for "
                    + url
                    + " ("
                    + why
                    + "): the call was not sent; not retried",
                failure));
      } else {
        result.completeExceptionally(
            new ObjectTransportException(
                "connection to "
                    + base
                    + " failed before the reply of "
                    + url
                    + " ("
                    + why
                    + "): the call may or may not have run; not retried",
                failure));
      }
    }

    private ObjectTransportException misdirected(String leaderHeader, String body) {
      URI leader = null;
      if (leaderHeader != null) {
        try {
          leader = URI.create(leaderHeader.strip());
        } catch (IllegalArgumentException malformed) {
          leader = null; // treated as "leader unknown"
        }
      }
      return new MisdirectedCallException(
          "HTTP 421 from " + url + ": " + body.strip() + " (not retried)", leader);
    }

    private ObjectTransportException httpError(int status, String body) {
      String message = body.strip();
      String consequence =
          status == 500
              ? "the call may or may not have run; not retried"
              : "the call was not run; not retried";
      return new RefusedCallException(
          status, "HTTP " + status + " from " + url + ": " + message + " (" + consequence + ")");
    }
  }

  /** The call certainly did not reach the server (no connection). */
  static final class CallNotSentException extends ObjectTransportException {
    CallNotSentException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** The server does not lead the object's shard and did not run the call (HTTP 421). */
  static final class MisdirectedCallException extends ObjectTransportException {
    private final transient URI leader;

    MisdirectedCallException(String message, URI leader) {
      super(message);
      this.leader = leader;
    }

    /** The leader the server named, if any. */
    java.util.Optional<URI> leader() {
      return java.util.Optional.ofNullable(leader);
    }
  }

  static String format(Duration d) {
    long ms = d.toMillis();
    return ms % 1000 == 0 ? (ms / 1000) + " s" : ms + " ms";
  }

  /** Options of an {@link HttpObjectTransport}. */
  public static final class Builder {
    private final URI baseUri;
    private int poolSize = 64;
    private Duration timeout = Duration.ofSeconds(30);
    private Duration connectTimeout;
    private Vertx vertx;
    private SharedSecret secret;
    private Clock clock = Clock.systemUTC();
    private IncarnationWatch incarnations;
    private final java.util.List<Path> trust = new java.util.ArrayList<>();

    private Builder(URI baseUri) {
      Objects.requireNonNull(baseUri, "baseUri");
      String scheme = baseUri.getScheme();
      if (!("http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme))
          || baseUri.getHost() == null) {
        throw new IllegalArgumentException(
            "remote runtime URI must be http://host:port or https://host:port, got " + baseUri);
      }
      if (baseUri.getRawUserInfo() != null
          || baseUri.getRawQuery() != null
          || baseUri.getRawFragment() != null) {
        throw new IllegalArgumentException(
            "remote runtime URI must be only scheme://host:port, got " + baseUri);
      }
      String p = baseUri.getRawPath();
      if (p != null && !p.isEmpty() && !p.equals("/")) {
        throw new IllegalArgumentException(
            "remote runtime URI must have no path (calls go to "
                + ObjectPaths.PREFIX
                + "...), got "
                + baseUri);
      }
      this.baseUri = baseUri;
    }

    /** Maximum pooled keep-alive connections (default 64); more concurrent calls queue for one. */
    public Builder poolSize(int poolSize) {
      if (poolSize < 1) {
        throw new IllegalArgumentException("poolSize must be at least 1, got " + poolSize);
      }
      this.poolSize = poolSize;
      return this;
    }

    /** Per-call timeout, from the call to the reply (default 30 s). */
    public Builder timeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("timeout must be positive, got " + timeout);
      }
      this.timeout = timeout;
      return this;
    }

    /**
     * How long a new connection may take to open before the call fails as not sent (default: the
     * call's whole {@link #timeout}). A {@link RoutingObjectTransport} gives a quarter of it, so
     * that a coordinator cut off silently (its packets dropped: no refusal) costs a call a short
     * wait and the call goes on to another coordinator, instead of its whole time.
     */
    public Builder connectTimeout(Duration connectTimeout) {
      if (connectTimeout.isNegative() || connectTimeout.isZero()) {
        throw new IllegalArgumentException(
            "connect timeout must be positive, got " + connectTimeout);
      }
      this.connectTimeout = connectTimeout;
      return this;
    }

    /** Runs on this Vert.x instance (not closed by the transport); default: a private one. */
    public Builder vertx(Vertx vertx) {
      this.vertx = Objects.requireNonNull(vertx, "vertx");
      return this;
    }

    /** Signs every call with this secret; the server must hold a secret with the same key id. */
    public Builder secret(SharedSecret secret) {
      this.secret = Objects.requireNonNull(secret, "secret");
      return this;
    }

    /**
     * For {@code https://} URIs: trust server certificates that chain to the certificates in these
     * PEM files (a private CA, or the server's self-signed certificate itself) instead of the JVM's
     * default trust store. The host name is always verified.
     */
    public Builder trust(Path... pemCertificates) {
      for (Path p : pemCertificates) {
        if (!Files.isReadable(p)) {
          throw new IllegalArgumentException(
              "trusted certificate file "
                  + p.toAbsolutePath()
                  + " does not exist or is not readable");
        }
        trust.add(p);
      }
      return this;
    }

    /**
     * Notes in {@code watch} the runtime instance each reply names, before the reply completes: a
     * caller can tell that the objects were recreated since its last call (a coordinator restart).
     */
    public Builder incarnations(IncarnationWatch watch) {
      this.incarnations = Objects.requireNonNull(watch, "watch");
      return this;
    }

    /** The clock that dates signatures (tests); default the system clock. */
    Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    public HttpObjectTransport build() {
      if (!trust.isEmpty() && !"https".equalsIgnoreCase(baseUri.getScheme())) {
        throw new IllegalArgumentException(
            "trusted certificates are given but the URI "
                + baseUri
                + " is not https://: calls would not use TLS");
      }
      return new HttpObjectTransport(this);
    }
  }
}
