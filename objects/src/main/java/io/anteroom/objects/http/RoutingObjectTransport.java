package io.anteroom.objects.http;

import io.anteroom.objects.ObjectId;
import io.anteroom.objects.ObjectTransport;
import io.anteroom.objects.ObjectTransportException;
import io.vertx.core.Vertx;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link ObjectTransport} over every coordinator of a cluster: each call goes to the coordinator
 * that leads the object's shard, found by following the servers' answers.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>A call is sent again, to another coordinator, only when it certainly did not run: the
 *       connection could not be made ({@code connection refused}: nothing was sent), or the server
 *       answered {@code 421 Misdirected Request} (it does not lead the object's shard and did not
 *       run the call; see {@link LeaderLookup}). Any other failure after the request may have left
 *       (a timeout, a connection lost before the reply, an HTTP 500) fails the call with an {@link
 *       ObjectTransportException} saying it may or may not have run, and it is never sent again: so
 *       no call is ever applied twice by this transport.
 *   <li>A 421 that names a leader sends the call there next, but only if the leader is one of the
 *       configured coordinators: a server cannot redirect signed calls to an address the caller did
 *       not choose. Without a usable leader the next coordinator is tried, after a short back-off
 *       (10 ms doubling to 500 ms) once every coordinator was tried, e.g. during an election.
 *   <li>Every coordinator is pinged once it has not answered for {@link Builder#keepWarm} (1 s), so
 *       a connection to each stays open for a failover; a coordinator that has not answered for one
 *       and a half of that is silent (cut off, stopped, paused), and a call that must try another
 *       passes over the silent ones while another answers, and follows a 421 naming a silent leader
 *       only after one more 421 names it ({@link WarmConnections}).
 *   <li>Retries stop once the call's {@link Builder#timeout} has passed since the call: it then
 *       fails saying it was not run. Each attempt ends within that timeout too.
 *   <li>The last leader that ran a call to an object is remembered (for at most 100,000 objects),
 *       so later calls to it go there directly. After a call whose outcome is unknown (a timeout,
 *       say: the leader may be paused or cut off while another was elected), the next call to the
 *       object starts at the next coordinator instead, which runs it or names the leader.
 * </ul>
 *
 * <pre>{@code
 * try (RoutingObjectTransport transport = RoutingObjectTransport.builder(List.of(
 *         URI.create("https://10.0.0.1:8081"), URI.create("https://10.0.0.2:8081"),
 *         URI.create("https://10.0.0.3:8081")))
 *     .secret(secret).trust(Path.of("coordinator-ca.pem")).build()) {
 *   Counter counter = Stubs.create(Counter.class, "counter", id, transport);
 * }
 * }</pre>
 */
public final class RoutingObjectTransport implements ObjectTransport {
  private static final Logger LOG = LoggerFactory.getLogger(RoutingObjectTransport.class);
  private static final int MAX_REMEMBERED = 100_000;
  private static final long FIRST_BACKOFF_MILLIS = 10;
  private static final long MAX_BACKOFF_MILLIS = 500;
  private static final Executor RETRIES = r -> Thread.ofVirtual().name("routing-retry").start(r);

  /**
   * How long a coordinator goes without an exchange before it is pinged ({@link Builder#keepWarm}).
   */
  static final Duration DEFAULT_KEEP_WARM = Duration.ofSeconds(1);

  /** Coordinators by their normalized base ({@code scheme://host:port}), in configured order. */
  private final Map<String, HttpObjectTransport> transports = new LinkedHashMap<>();

  private final List<String> order;
  private final Map<String, String> leaders = new ConcurrentHashMap<>();
  private final Duration timeout;
  private final Vertx vertx;
  private final boolean ownsVertx;

  /** Which coordinators to ping to keep a connection open (null: not kept warm). */
  private final WarmConnections warm;

  private final long warmTimer;

  private RoutingObjectTransport(Builder b) {
    this.timeout = b.timeout;
    this.ownsVertx = b.vertx == null;
    this.vertx = ownsVertx ? Vertx.vertx() : b.vertx;
    for (URI uri : b.coordinators) {
      HttpObjectTransport.Builder t =
          HttpObjectTransport.builder(uri)
              .poolSize(b.poolSize)
              .timeout(b.timeout)
              .connectTimeout(connectTimeout(b.timeout, b.coordinators.size()))
              .vertx(vertx);
      if (b.secret != null) t.secret(b.secret);
      if (!b.trust.isEmpty()) t.trust(b.trust.toArray(Path[]::new));
      if (b.incarnations != null) t.incarnations(b.incarnations); // one for all: leaders differ
      String key = normalize(uri);
      if (transports.containsKey(key)) {
        throw new IllegalArgumentException("coordinator " + uri + " is listed twice");
      }
      transports.put(key, t.build());
    }
    this.order = List.copyOf(transports.keySet());
    if (b.keepWarm.isZero() || order.size() < 2) {
      this.warm = null;
      this.warmTimer = -1;
    } else {
      this.warm = new WarmConnections(order, b.keepWarm, b.warmClock);
      this.warmTimer =
          vertx.setPeriodic(
              Math.max(1, b.keepWarm.toMillis() / 4), id -> keepWarm()); // checks: 4 per interval
    }
  }

  /** Pings the coordinators that had no exchange for the interval ({@link WarmConnections}). */
  private void keepWarm() {
    List<String> due;
    synchronized (warm) {
      due = warm.due();
    }
    for (String c : due) {
      transports
          .get(c)
          .ping(warm.interval())
          .whenComplete(
              (answered, failure) -> {
                synchronized (warm) {
                  warm.pingEnded(c, Boolean.TRUE.equals(answered));
                }
              });
    }
  }

  /** A coordinator answered (a reply or a 421): its connection is warm. */
  private void answered(String coordinator) {
    if (warm == null) return;
    synchronized (warm) {
      warm.answered(coordinator);
    }
  }

  /**
   * The coordinator to try after {@code target}: with pings, the next that answers now ({@link
   * WarmConnections#nextAfter}); without, the next in order.
   */
  private String nextAfter(String target) {
    if (warm == null) return order.get((order.indexOf(target) + 1) % order.size());
    synchronized (warm) {
      return warm.nextAfter(target);
    }
  }

  /** Whether {@code coordinator} answered lately; always true without pings. */
  private boolean answersNow(String coordinator) {
    if (warm == null) return true;
    synchronized (warm) {
      return warm.answersNow(coordinator);
    }
  }

  /** Whether the coordinator at {@code coordinator} answered lately (tests). */
  boolean answersNow(URI coordinator) {
    return answersNow(normalize(coordinator));
  }

  /**
   * The connect timeout of each coordinator's transport: with several coordinators a quarter of the
   * call's timeout (at least 250 ms), so that a call whose coordinator is cut off silently still
   * has time to reach another one; with one coordinator, the whole timeout.
   */
  static Duration connectTimeout(Duration timeout, int coordinators) {
    if (coordinators < 2) return timeout;
    Duration quarter = timeout.dividedBy(4);
    Duration floor = Duration.ofMillis(250);
    Duration chosen = quarter.compareTo(floor) < 0 ? floor : quarter;
    return chosen.compareTo(timeout) < 0 ? chosen : timeout;
  }

  /** A builder over these coordinators' base URIs ({@code http(s)://host:port}), at least one. */
  public static Builder builder(List<URI> coordinators) {
    return new Builder(coordinators);
  }

  /** The configured coordinators' bases, in order. */
  public List<String> coordinators() {
    return order;
  }

  static String normalize(URI uri) {
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    int port = uri.getPort() >= 0 ? uri.getPort() : ("https".equals(scheme) ? 443 : 80);
    String host = uri.getHost() == null ? "" : uri.getHost().toLowerCase(Locale.ROOT);
    return scheme + "://" + host + ":" + port;
  }

  @Override
  public CompletableFuture<byte[]> call(
      String namespace, ObjectId id, String method, byte[] encodedArgs) {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(id, "id");
    Attempts attempts = new Attempts(namespace, id, method, encodedArgs);
    String first = leaders.get(attempts.object);
    attempts.send(first != null ? first : order.get(0));
    return attempts.result;
  }

  /** The attempts of one call; each is sent only after the previous one certainly did not run. */
  private final class Attempts {
    final String namespace;
    final ObjectId id;
    final String method;
    final byte[] args;
    final String object;
    final CompletableFuture<byte[]> result = new CompletableFuture<>();
    final long deadlineNanos = System.nanoTime() + timeout.toNanos();
    final List<String> tried = new ArrayList<>();
    long backoffMillis = FIRST_BACKOFF_MILLIS;

    /** A 421 named a leader that had not answered lately, and another was tried first. */
    boolean passedOverSilentLeader;

    Attempts(String namespace, ObjectId id, String method, byte[] args) {
      this.namespace = namespace;
      this.id = id;
      this.method = method;
      this.args = args;
      this.object = namespace + "/" + id;
    }

    void send(String target) {
      tried.add(target);
      CompletableFuture<byte[]> reply;
      try {
        reply = transports.get(target).call(namespace, id, method, args);
      } catch (RuntimeException e) {
        reply = CompletableFuture.failedFuture(e);
      }
      reply.whenComplete(
          (bytes, failure) -> {
            if (failure == null
                || unwrap(failure) instanceof HttpObjectTransport.MisdirectedCallException) {
              answered(target);
            }
            if (failure == null) {
              if (leaders.size() >= MAX_REMEMBERED) leaders.clear();
              leaders.put(object, target);
              result.complete(bytes);
            } else {
              retryOrFail(target, unwrap(failure));
            }
          });
    }

    private void retryOrFail(String target, Throwable failure) {
      String next;
      if (failure instanceof HttpObjectTransport.MisdirectedCallException misdirected) {
        leaders.remove(object, target);
        next =
            misdirected
                .leader()
                .map(RoutingObjectTransport::normalize)
                .filter(transports::containsKey)
                .filter(l -> !l.equals(target))
                .orElse(null);
      } else if (failure instanceof HttpObjectTransport.CallNotSentException) {
        leaders.remove(object, target);
        next = null;
      } else {
        // may have run: never sent again. But the next call to this object starts at the next
        // coordinator: a leader that times out may be paused or cut off while another was
        // elected, and every call sent to it would wait for its timeout until it comes back
        leaders.put(object, nextAfter(target));
        result.completeExceptionally(failure);
        return;
      }
      if (next != null && !answersNow(next) && !passedOverSilentLeader) {
        // named by a coordinator that may not know yet, but silent here (cut off?): the others
        // first, once; it may still lead, so a second 421 naming it is followed
        passedOverSilentLeader = true;
        next = null;
      }
      boolean roundDone = false;
      if (next == null) {
        next = nextAfter(target);
        roundDone = tried.size() % order.size() == 0;
      }
      long delay = roundDone ? backoffMillis : 0;
      if (roundDone) backoffMillis = Math.min(backoffMillis * 2, MAX_BACKOFF_MILLIS);
      if (System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delay) > deadlineNanos) {
        result.completeExceptionally(
            new ObjectTransportException(
                "no coordinator ran the call to "
                    + object
                    + "/"
                    + method
                    + " within "
                    + HttpObjectTransport.format(timeout)
                    + " ("
                    + tried.size()
                    + " attempts; last: "
                    + failure.getMessage()
                    + "); the call was not run",
                failure));
        return;
      }
      String chosen = next;
      if (LOG.isDebugEnabled()) {
        LOG.debug(
            "{}/{}: attempt {} at {} failed ({}); next {} in {} ms ({} ms into the call)",
            object,
            method,
            tried.size(),
            target,
            failure.getClass().getSimpleName(),
            chosen,
            delay,
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - (deadlineNanos - timeout.toNanos())));
      }
      if (delay == 0) {
        send(chosen);
      } else {
        CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS, RETRIES)
            .execute(() -> send(chosen));
      }
    }
  }

  private static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /**
   * Closes every coordinator's connections (and the private Vert.x instance). Calls in flight fail.
   */
  @Override
  public void close() {
    if (warmTimer >= 0) vertx.cancelTimer(warmTimer);
    RuntimeException failure = null;
    for (HttpObjectTransport t : transports.values()) {
      try {
        t.close();
      } catch (RuntimeException e) {
        if (failure == null) failure = e;
        else failure.addSuppressed(e);
      }
    }
    if (ownsVertx) {
      try {
        vertx.close().await(10, TimeUnit.SECONDS);
      } catch (Exception e) {
        if (failure == null)
          failure = new IllegalStateException("closing Vert.x failed: " + e.getMessage(), e);
      }
    }
    if (failure != null) throw failure;
  }

  /** Options of a {@link RoutingObjectTransport}; as {@link HttpObjectTransport.Builder}. */
  public static final class Builder {
    private final List<URI> coordinators;
    private int poolSize = 64;
    private Duration timeout = Duration.ofSeconds(30);
    private Duration keepWarm = DEFAULT_KEEP_WARM;
    private LongSupplier warmClock = System::nanoTime;
    private Vertx vertx;
    private SharedSecret secret;
    private IncarnationWatch incarnations;
    private final List<Path> trust = new ArrayList<>();

    private Builder(List<URI> coordinators) {
      Objects.requireNonNull(coordinators, "coordinators");
      if (coordinators.isEmpty()) {
        throw new IllegalArgumentException("give at least one coordinator URI");
      }
      this.coordinators = List.copyOf(coordinators);
    }

    /** Pooled connections per coordinator (default 64). */
    public Builder poolSize(int poolSize) {
      this.poolSize = poolSize;
      return this;
    }

    /** Per-call timeout, from the call to the reply, retries included (default 30 s). */
    public Builder timeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("timeout must be positive, got " + timeout);
      }
      this.timeout = timeout;
      return this;
    }

    /**
     * Keeps a connection open to every coordinator: one that had no exchange for this long is
     * pinged ({@code GET /objects-ping}, answered at once and running nothing), so that the calls
     * of a failover find warm connections to the follower that names the new leader and to the new
     * leader (default 1 s, below the connections' keep-alive timeout of 5 s); and a call that must
     * try another coordinator passes over those that have not answered for one and a half intervals
     * while another answers ({@link WarmConnections}). {@link Duration#ZERO}: neither. With one
     * coordinator nothing is pinged.
     */
    public Builder keepWarm(Duration interval) {
      if (interval.isNegative()) {
        throw new IllegalArgumentException("keepWarm must not be negative, got " + interval);
      }
      this.keepWarm = interval;
      return this;
    }

    /**
     * The monotonic clock (nanoseconds) by which pings fall due and a coordinator answered lately
     * (tests); default {@link System#nanoTime}.
     */
    Builder warmClock(LongSupplier nanos) {
      this.warmClock = Objects.requireNonNull(nanos, "nanos");
      return this;
    }

    /** Runs on this Vert.x instance (not closed by the transport); default: a private one. */
    public Builder vertx(Vertx vertx) {
      this.vertx = Objects.requireNonNull(vertx, "vertx");
      return this;
    }

    /** Signs every call with this secret (every coordinator must hold it). */
    public Builder secret(SharedSecret secret) {
      this.secret = Objects.requireNonNull(secret, "secret");
      return this;
    }

    /**
     * Notes in {@code watch} the runtime instance each reply names, before the reply completes,
     * whichever coordinator sent it: a shard's new leader is a change ({@link IncarnationWatch}).
     */
    public Builder incarnations(IncarnationWatch watch) {
      this.incarnations = Objects.requireNonNull(watch, "watch");
      return this;
    }

    /** For {@code https://} coordinators: trust certificates chaining to these PEM files. */
    public Builder trust(Path... pemCertificates) {
      trust.addAll(List.of(pemCertificates));
      return this;
    }

    /**
     * @throws IllegalArgumentException if a URI is malformed or listed twice
     */
    public RoutingObjectTransport build() {
      return new RoutingObjectTransport(this);
    }
  }
}
