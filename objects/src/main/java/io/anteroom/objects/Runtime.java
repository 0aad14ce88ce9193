package io.anteroom.objects;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.anteroom.objects.storage.InMemoryStorageEngine;
import io.anteroom.objects.storage.SqliteStorageEngine;
import io.anteroom.objects.storage.StorageEngine;
import io.anteroom.objects.storage.internal.GroupCommitter;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Durable Objects runtime: hosts objects of registered namespaces, one live instance per id, each
 * with private durable storage behind input and output gates (see {@link Storage}).
 *
 * <pre>{@code
 * interface Counter { long next(); }
 *
 * final class CounterObject implements Counter {
 *     private final Storage storage;
 *     CounterObject(ObjectContext ctx) { this.storage = ctx.storage(); }
 *     public long next() {
 *         long v = storage.get("counter", Long.class).orElse(0L);
 *         storage.put("counter", v + 1);
 *         return v;                    // reaches the caller only once v + 1 is durable
 *     }
 * }
 *
 * try (Runtime runtime = Runtime.builder().dataDir(Path.of("data")).build()) {
 *     Namespace<Counter> counters = runtime.namespace("counter", Counter.class, CounterObject::new);
 *     long n = counters.get("orders").next();
 * }
 * }</pre>
 *
 * <p>Invariants: at most one live {@link ObjectHost} per object key is reachable from {@code
 * hosts}; a host that closes is removed from it by {@link #hostClosed}, and a successor is not
 * allowed to read storage before the predecessor's last flush ended ({@code draining}). Alarms are
 * scheduled by {@link Alarms}; idle instances are evicted by a periodic sweep. After {@link
 * #close()} no event is accepted ({@link IllegalStateException}), every accepted event has run,
 * every write is durable, and the engine is closed.
 *
 * <p>Fencing (one live instance per id across a cluster): the engine may call {@link #resetAll} (it
 * receives it through {@link StorageEngine#fenceWith}) when it loses the right to serve, and every
 * reply of a call is released only once the engine {@link StorageEngine#confirmReads confirmed} the
 * reads it was computed from (or, for an engine whose {@link StorageEngine#commitConfirmsReads
 * commits prove it}, once a write issued during the call committed); so a runtime whose engine was
 * deposed confirms nothing it read before, and serves nothing from its caches afterwards.
 */
public final class Runtime implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Runtime.class);
  private static final Pattern NAMESPACE_NAME = Pattern.compile("[A-Za-z0-9._-]{1,100}");

  final StorageEngine engine;

  /** The engine's {@link StorageEngine#commitConfirmsReads}, asked once. */
  final boolean commitConfirmsReads;

  /** The engine's {@link StorageEngine#allowsUnconfirmedOutputs}, asked once. */
  final boolean allowsUnconfirmedOutputs;

  final Scheduler scheduler;
  private final boolean ownsScheduler;
  private final Clock clock;
  final Codec codec = Codec.standard();
  final RuntimeMetrics metrics;
  final GroupCommitter committer;
  final ObjectCache.Budget cacheBudget;
  final int maxValueBytes;
  final long maxUnflushedBytes;
  final int maxQueuedEvents;
  final Duration idleTimeout;
  final Duration blockConcurrencyTimeout;

  private final Map<String, Namespace<?>> namespaces = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, ObjectHost> hosts = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, CompletableFuture<Void>> draining =
      new ConcurrentHashMap<>();
  final Alarms alarms;
  private final Object sweepLock = new Object();
  private final ExecutorService callbacks = Executors.newVirtualThreadPerTaskExecutor();
  private final LocalTransport transport = new LocalTransport(this);

  /** Which objects this runtime serves itself; null: all of them. */
  private final Placement placement;

  /** The group of a runtime's own {@link #incarnation}: all its objects. */
  public static final String INCARNATION_GROUP = "runtime";

  private volatile Incarnation incarnation = newIncarnation();

  private static Incarnation newIncarnation() {
    return new Incarnation(
        INCARNATION_GROUP, java.util.concurrent.ThreadLocalRandom.current().nextLong());
  }

  private volatile boolean closed;
  private Scheduler.Cancellable sweep;
  private java.net.http.HttpClient httpClient;

  private Runtime(Builder b) {
    this.engine = b.engine;
    this.commitConfirmsReads = engine.commitConfirmsReads();
    this.allowsUnconfirmedOutputs = engine.allowsUnconfirmedOutputs();
    engine.fenceWith(this::resetAll);
    this.clock =
        b.clock != null ? b.clock : (b.scheduler != null ? b.scheduler.clock() : Clock.systemUTC());
    this.ownsScheduler = b.scheduler == null;
    this.scheduler = b.scheduler != null ? b.scheduler : Scheduler.system(clock);
    this.metrics = new RuntimeMetrics(b.metrics != null ? b.metrics : new MetricRegistry());
    this.maxValueBytes = b.maxValueBytes;
    this.maxUnflushedBytes = b.maxUnflushedBytes;
    this.maxQueuedEvents = b.maxQueuedEvents;
    this.idleTimeout = b.idleTimeout;
    this.blockConcurrencyTimeout = b.blockConcurrencyTimeout;
    this.placement = b.placement;
    this.cacheBudget =
        new ObjectCache.Budget(
            b.cacheBudgetBytes, () -> hosts.values().stream().map(h -> h.storage.cache).toList());
    this.committer = new GroupCommitter(engine, metrics.fsyncs, metrics.batchesPerCommit);
    metrics.gauge("cache.bytes", (Gauge<Long>) cacheBudget::bytes);
    metrics.gauge("live", (Gauge<Integer>) hosts::size);
    this.alarms = new Alarms(this, engine.alarms());
    metrics.gauge("alarms.running", (Gauge<Integer>) alarms::running);
    scheduleSweep();
  }

  /** A builder; set {@link Builder#dataDir} (SQLite) or {@link Builder#storage}. */
  public static Builder builder() {
    return new Builder();
  }

  /** A runtime over a fresh {@link InMemoryStorageEngine}, for tests. */
  public static Runtime inMemory() {
    return builder().storage(new InMemoryStorageEngine()).build();
  }

  /**
   * Registers namespace {@code name}: objects implementing {@code iface}, created by {@code
   * factory} on their first event (in that event, so it may call {@link
   * ObjectContext#blockConcurrencyWhile}).
   *
   * @throws IllegalArgumentException if the name is taken or malformed, or the interface is
   *     unusable
   */
  public <T> Namespace<T> namespace(
      String name, Class<T> iface, Function<ObjectContext, ? extends T> factory) {
    checkOpen();
    Objects.requireNonNull(iface, "iface");
    Objects.requireNonNull(factory, "factory");
    if (name == null || !NAMESPACE_NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "namespace name must be 1-100 characters of [A-Za-z0-9._-], got: " + name);
    }
    Namespace<T> ns = new Namespace<>(this, name, iface, factory, null);
    if (namespaces.putIfAbsent(name, ns) != null) {
      throw new IllegalArgumentException(
          "namespace " + name + " is already registered in this runtime");
    }
    alarms.claim(ns);
    return ns;
  }

  /** The registered namespace {@code name}, typed. */
  @SuppressWarnings("unchecked")
  <T> Namespace<T> namespace(String name, Class<T> iface) {
    Namespace<?> ns = namespaces.get(name);
    if (ns == null)
      throw new IllegalArgumentException(
          "no namespace " + name + " in this runtime; registered: " + namespaces.keySet());
    if (ns.iface() != iface) {
      throw new IllegalArgumentException(
          "namespace " + name + " serves " + ns.iface().getName() + ", not " + iface.getName());
    }
    return (Namespace<T>) ns;
  }

  /** Whether a namespace of this name is registered (for transports that serve this runtime). */
  public boolean hasNamespace(String name) {
    return namespaces.containsKey(name);
  }

  /** The registered namespace names. */
  public Set<String> namespaceNames() {
    return Set.copyOf(namespaces.keySet());
  }

  /**
   * The in-process transport: codec-encoded arguments in, codec-encoded reply out; the future
   * completes once the object's output gate released the reply. An HTTP server serves exactly this.
   */
  public ObjectTransport transport() {
    return transport;
  }

  /**
   * Prepares the codec for the calls of every namespace registered so far ({@link Codec#prime}):
   * the first call of each method then decodes and encodes as fast as the next ones. The codec is
   * one per JVM, so a runtime built only for this (then closed) prepares the runtimes built later,
   * e.g. by a coordinator peer at its start, before it leads a shard.
   *
   * @return how many types were prepared
   */
  public int primeCodec() {
    int prepared = 0;
    for (Namespace<?> ns : namespaces.values()) prepared += codec.prime(ns.methods());
    return prepared;
  }

  /**
   * This runtime instance, drawn anew for every runtime built and at every {@link #resetAll}: a
   * caller that sees it change knows that every object it calls here was recreated since ({@link
   * Incarnation}).
   */
  public Incarnation incarnation() {
    return incarnation;
  }

  /** This runtime's metrics (names in {@code docs/objects.md}). */
  public MetricRegistry metrics() {
    return metrics.registry;
  }

  public Clock clock() {
    return clock;
  }

  /**
   * Alarm events fired and not yet answered (also the gauge {@code objects.alarms.running}). On a
   * {@link ManualScheduler}, zero after an {@link ManualScheduler#advance} means every alarm that
   * came due has run at that virtual time, its writes are durable, and its next alarm or retry is
   * scheduled: tests wait for it instead of sleeping.
   */
  public int alarmsRunning() {
    return alarms.running();
  }

  /**
   * The transport that reaches object {@code id} of {@code namespace} when another runtime serves
   * it ({@link Builder#placement}); null when this runtime serves it.
   */
  ObjectTransport elsewhere(String namespace, ObjectId id) {
    Placement p = placement;
    return p == null || p.here(namespace, id) ? null : p.elsewhere();
  }

  /**
   * Where a runtime that serves only some objects (one shard of a cluster) sends calls to the
   * others: stubs of this runtime's namespaces ({@link Namespace#get}, {@link
   * ObjectContext#namespace}) for an object that is not {@link #here} go through {@link
   * #elsewhere}, still obeying the calling object's gates.
   */
  public interface Placement {
    /** Whether this runtime serves object {@code id} of {@code namespace}. */
    boolean here(String namespace, ObjectId id);

    /** The transport to the runtimes that serve the other objects. */
    ObjectTransport elsewhere();
  }

  Namespace<?> namespaceOrNull(String name) {
    return namespaces.get(name);
  }

  static String objectKey(String namespace, ObjectId id) {
    return namespace + "/" + id;
  }

  // ---------------------------------------------------------------- calls

  /** Delivers a call; the future completes with the (copied or encoded) reply once released. */
  CompletableFuture<Object> invoke(
      Namespace<?> ns, ObjectId id, Method method, Object[] args, boolean encoded) {
    checkOpen();
    ObjectHost.Event e =
        new ObjectHost.Event(method, args, null, new CompletableFuture<>(), encoded);
    dispatch(ns, id, e);
    return e.reply;
  }

  /**
   * As {@link #invoke}, for a caller that will block on the reply: if it is a virtual thread and
   * the object is idle, the event runs right here instead of on a new thread.
   */
  CompletableFuture<Object> invokeBlocking(
      Namespace<?> ns, ObjectId id, Method method, Object[] args) {
    checkOpen();
    ObjectHost.Event e = new ObjectHost.Event(method, args, null, new CompletableFuture<>(), false);
    ObjectHost ran = dispatch(ns, id, e, Thread.currentThread().isVirtual());
    if (ran != null) ran.runHere(e);
    return e.reply;
  }

  /** Delivers {@code e} to the object's input gate (a new thread serves it if the gate is free). */
  void dispatch(Namespace<?> ns, ObjectId id, ObjectHost.Event e) {
    dispatch(ns, id, e, false);
  }

  /**
   * Delivers {@code e}; returns the host if the caller must run it here (see {@link
   * ObjectHost#submit}).
   */
  private ObjectHost dispatch(Namespace<?> ns, ObjectId id, ObjectHost.Event e, boolean runHere) {
    String key = objectKey(ns.name(), id);
    while (true) {
      ObjectHost h = hosts.get(key);
      if (h == null) {
        h =
            hosts.computeIfAbsent(
                key,
                k ->
                    new ObjectHost(
                        this,
                        ns,
                        id,
                        draining.getOrDefault(k, CompletableFuture.completedFuture(null))));
      }
      int outcome = h.submit(e, runHere);
      if (outcome == ObjectHost.RUN_HERE) return h;
      if (outcome == ObjectHost.ACCEPTED) return null;
      // closed a moment ago: hostClosed is about to replace it
      Thread.onSpinWait();
      Thread.yield();
    }
  }

  /** An event that never ran on a host that broke: give it to the next instance. */
  void redeliver(Namespace<?> ns, ObjectId id, ObjectHost.Event e) {
    if (closed) {
      e.reply.completeExceptionally(
          new ClosedBeforeRunException(
              "runtime is closed: the call to " + ns.name() + "/" + id + " was not run"));
      return;
    }
    try {
      dispatch(ns, id, e);
    } catch (RuntimeException failure) {
      e.reply.completeExceptionally(failure);
    }
  }

  /**
   * Fences this runtime: resets every live instance at once, as a failed flush resets one.
   *
   * <p>Invariants once it returns: every instance that was live is closed; each of its held replies
   * (and each later one) fails with {@link ObjectResetException}, so nothing it did that was not
   * yet confirmed is ever observed; its cache is dropped; events that were queued and never ran are
   * delivered to a fresh instance, and later calls create fresh instances, which read from the
   * engine (a deposed replicated engine refuses those reads, so nothing is served from memory). A
   * successor never reads storage before its predecessor's last flush ended. The runtime stays
   * open: where the engine serves again, calls succeed again.
   *
   * <p>Called by the engine (see {@link StorageEngine#fenceWith}), e.g. when its peer loses the
   * leadership of the shard; safe from any thread, any number of times. Draws a new {@link
   * #incarnation}: callers learn from their next reply that the objects were recreated.
   *
   * @param reason why, for the callers' {@link ObjectResetException} messages and the log
   * @return how many live instances were reset
   */
  public int resetAll(String reason) {
    incarnation = newIncarnation(); // first: a reply naming the old one was released before it
    ObjectResetException cause = new ObjectResetException("the runtime was fenced: " + reason);
    List<ObjectHost> live = List.copyOf(hosts.values());
    if (!live.isEmpty()) LOG.warn("resetting {} live objects: {}", live.size(), reason);
    for (ObjectHost h : live) h.reset(cause);
    return live.size();
  }

  /**
   * The future to give the output gate for {@code reply}: once the gate releases it, the reply is
   * completed only if the engine confirmed the event's reads ({@code reads}); otherwise it fails
   * with {@link ObjectResetException} and every instance is reset.
   */
  CompletableFuture<Object> afterReadsConfirmed(
      CompletionStage<Void> reads, CompletableFuture<Object> reply) {
    CompletableFuture<Object> released = new CompletableFuture<>();
    // completed on a virtual thread of its own: the engine may confirm on one of its threads,
    // and a runtime being closed may have shut its executors down already
    released.whenComplete(
        (value, failure) ->
            reads.whenComplete(
                (ok, notConfirmed) ->
                    Thread.ofVirtual()
                        .name("anteroom-objects-confirm-reads")
                        .start(
                            () -> {
                              if (notConfirmed == null || failure instanceof ObjectResetException) {
                                if (failure != null) reply.completeExceptionally(failure);
                                else reply.complete(value);
                                return;
                              }
                              Throwable cause =
                                  notConfirmed instanceof java.util.concurrent.CompletionException c
                                          && c.getCause() != null
                                      ? c.getCause()
                                      : notConfirmed;
                              resetAll(
                                  "the storage engine could not confirm that reads are current ("
                                      + cause.getMessage()
                                      + ")");
                              reply.completeExceptionally(
                                  new ObjectResetException(
                                      "the reply was withheld: the storage engine could not confirm"
                                          + " that the object's reads are current: "
                                          + cause.getMessage(),
                                      cause));
                            })));
    return released;
  }

  void hostClosed(ObjectHost host) {
    if (!host.retired.isDone()) {
      draining.put(host.objectKey, host.retired);
      host.retired.whenComplete((v, x) -> draining.remove(host.objectKey, host.retired));
    }
    hosts.remove(host.objectKey, host);
  }

  /** The HTTP client of {@link ObjectContext#fetch}, created on first use. */
  synchronized java.net.http.HttpClient httpClient() {
    checkOpen();
    if (httpClient == null) {
      httpClient = java.net.http.HttpClient.newBuilder().executor(callbacks).build();
    }
    return httpClient;
  }

  /**
   * Runs the dependents of an async reply on their own virtual thread, not on the thread confirming
   * flushes.
   */
  <R> CompletableFuture<R> detached(CompletableFuture<R> f) {
    return f.whenCompleteAsync((v, x) -> {}, callbacks);
  }

  // ---------------------------------------------------------------- idle eviction

  private void scheduleSweep() {
    Duration every = idleTimeout.dividedBy(4);
    if (every.isZero()) every = idleTimeout;
    Instant next = clock.instant().plus(every);
    synchronized (sweepLock) {
      if (closed) return;
      sweep =
          scheduler.schedule(
              next,
              () -> {
                evictIdle();
                scheduleSweep();
              });
    }
  }

  private void evictIdle() {
    long now = clock.millis();
    long idle = idleTimeout.toMillis();
    for (ObjectHost h : new ArrayList<>(hosts.values())) {
      h.evictIfIdle(now, idle);
    }
  }

  /** Events waiting at the input gate of an object (0 if it is not live). For tests. */
  int queuedEvents(String namespace, ObjectId id) {
    ObjectHost h = hosts.get(objectKey(namespace, id));
    return h == null ? 0 : h.queuedEvents();
  }

  /**
   * Waits until no live object runs or queues an event and every write is durable. For tests: idle
   * eviction skips objects whose last flush is still being confirmed.
   */
  void awaitIdle() {
    CompletableFuture.allOf(
            hosts.values().stream().map(ObjectHost::whenIdle).toArray(CompletableFuture[]::new))
        .join();
  }

  /** How many object instances are live (for tests and metrics). */
  int liveObjects() {
    return hosts.size();
  }

  // ---------------------------------------------------------------- close

  private void checkOpen() {
    if (closed) throw new IllegalStateException("runtime is closed: it accepts no more calls");
  }

  boolean isClosed() {
    return closed;
  }

  /**
   * An accepted call that never ran because the runtime closed first (its instance was reset, and
   * the runtime closed before a fresh one could take the call). A transport failure, not the
   * object's: remote callers get a 503 ("not run"), never an error that looks like the object's.
   */
  static final class ClosedBeforeRunException extends IllegalStateException {
    ClosedBeforeRunException(String message) {
      super(message);
    }
  }

  /**
   * Stops accepting events, lets accepted events finish, flushes every write, closes storage. Waits
   * at most the block-concurrency timeout for running events.
   */
  @Override
  public void close() {
    synchronized (sweepLock) {
      if (closed) return;
      closed = true;
      if (sweep != null) sweep.cancel();
    }
    alarms.close();
    List<CompletableFuture<Void>> idle = new ArrayList<>();
    for (ObjectHost h : hosts.values()) idle.add(h.whenIdle());
    draining.values().forEach(idle::add);
    try {
      CompletableFuture.allOf(idle.toArray(CompletableFuture[]::new))
          .get(blockConcurrencyTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      LOG.warn(
          "closing the runtime: some objects were still busy after {}; unconfirmed writes may be lost",
          blockConcurrencyTimeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException e) {
      LOG.warn("closing the runtime: {}", e.getCause().toString());
    }
    committer.close();
    synchronized (this) {
      if (httpClient != null) httpClient.close();
    }
    callbacks.shutdown();
    if (ownsScheduler) scheduler.close();
    engine.close();
  }

  /** Builder with documented defaults. */
  public static final class Builder {
    private StorageEngine engine;
    private Path dataDir;
    private Clock clock;
    private Scheduler scheduler;
    private MetricRegistry metrics;
    private long cacheBudgetBytes = 16L << 20;
    private int maxValueBytes = Storage.DEFAULT_MAX_VALUE_BYTES;
    private long maxUnflushedBytes = 8L << 20;
    private int maxQueuedEvents = 1000;
    private Duration idleTimeout = Duration.ofSeconds(30);
    private Duration blockConcurrencyTimeout = Duration.ofSeconds(30);
    private ManualScheduler virtualTime;
    private Placement placement;

    private Builder() {}

    /** SQLite storage in {@code dir} ({@link SqliteStorageEngine}), opened by {@link #build()}. */
    public Builder dataDir(Path dir) {
      this.dataDir = Objects.requireNonNull(dir, "dir");
      this.engine = null;
      return this;
    }

    /** Any storage engine (the runtime closes it on {@link Runtime#close()}). */
    public Builder storage(StorageEngine engine) {
      this.engine = Objects.requireNonNull(engine, "engine");
      this.dataDir = null;
      return this;
    }

    /**
     * The clock (default: the scheduler's clock, or the system UTC clock). With a custom {@link
     * #scheduler}, leave this unset or pass the same clock: the scheduler defines when "at" is.
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** The scheduler for alarms, idle eviction and timeouts (default: real time). */
    public Builder scheduler(Scheduler scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      if (virtualTime != null && clock == virtualTime.clock()) {
        clock = null; // the new scheduler's clock, not the replaced virtual time's
      }
      this.virtualTime = null;
      return this;
    }

    /**
     * Virtual time, for tests and simulations: {@code time} is the runtime's clock and scheduler,
     * and each {@link ManualScheduler#advance} waits until every alarm it fired has run (alarms run
     * on their objects' threads and read the clock when they run; {@link Runtime#alarmsRunning}).
     * What the caller reads after an {@code advance} is then what the objects hold at that moment,
     * however late a busy machine runs them, and no timeout in virtual time can expire while an
     * alarm is still running. A later {@link #scheduler} call replaces it.
     */
    public Builder virtualTime(ManualScheduler time) {
      this.virtualTime = Objects.requireNonNull(time, "time");
      this.clock = time.clock();
      this.scheduler = time;
      return this;
    }

    /**
     * Serve only the objects {@code placement} says are here; stubs of this runtime's namespaces
     * for any other object call it through {@link Placement#elsewhere} (default: every object is
     * here). A cluster peer's runtime of one shard uses it for calls to objects of other shards.
     */
    public Builder placement(Placement placement) {
      this.placement = Objects.requireNonNull(placement, "placement");
      return this;
    }

    /** Where metrics go (default: a new registry). */
    public Builder metrics(MetricRegistry registry) {
      this.metrics = Objects.requireNonNull(registry, "registry");
      return this;
    }

    /** Soft memory budget of all caches (default 16 MiB). */
    public Builder cacheBudgetBytes(long bytes) {
      this.cacheBudgetBytes = positive(bytes, "cacheBudgetBytes");
      return this;
    }

    /** Largest encoded value (default 128 KiB). */
    public Builder maxValueBytes(int bytes) {
      this.maxValueBytes = (int) positive(bytes, "maxValueBytes");
      return this;
    }

    /** Unflushed bytes per object above which writes wait for the flush (default 8 MiB). */
    public Builder maxUnflushedBytes(long bytes) {
      this.maxUnflushedBytes = positive(bytes, "maxUnflushedBytes");
      return this;
    }

    /** Events waiting for one object above which calls are rejected (default 1,000). */
    public Builder maxQueuedEvents(int events) {
      this.maxQueuedEvents = (int) positive(events, "maxQueuedEvents");
      return this;
    }

    /** Time without events after which an object is evicted from memory (default 30 s). */
    public Builder idleTimeout(Duration timeout) {
      this.idleTimeout = positive(timeout, "idleTimeout");
      return this;
    }

    /** Timeout of a blockConcurrencyWhile task (default 30 s). */
    public Builder blockConcurrencyTimeout(Duration timeout) {
      this.blockConcurrencyTimeout = positive(timeout, "blockConcurrencyTimeout");
      return this;
    }

    /**
     * @throws IllegalStateException if no storage was chosen
     */
    public Runtime build() {
      if (dataDir != null) engine = SqliteStorageEngine.open(dataDir);
      if (engine == null) {
        throw new IllegalStateException(
            "choose a storage: Runtime.builder().dataDir(path) for SQLite, or .storage(engine)");
      }
      Runtime runtime = new Runtime(this);
      if (virtualTime != null) {
        virtualTime.settleOn("alarms of an objects runtime", () -> runtime.alarmsRunning() == 0);
      }
      return runtime;
    }

    private static long positive(long v, String what) {
      if (v <= 0) throw new IllegalArgumentException(what + " must be greater than 0, got " + v);
      return v;
    }

    private static Duration positive(Duration d, String what) {
      if (d == null || d.isNegative() || d.isZero())
        throw new IllegalArgumentException(what + " must be a positive duration, got " + d);
      return d;
    }
  }
}
