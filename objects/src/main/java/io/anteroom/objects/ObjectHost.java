package io.anteroom.objects;

import io.anteroom.objects.storage.StorageEngine;
import java.lang.reflect.Method;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live instance of one object: a thin composition of its {@link InputGate} (which event runs),
 * its {@link ObjectStorage} (cache, batches and {@link OutputGate}) and its event loop.
 *
 * <p>Invariants: an event runs only while its thread holds the input gate; the reply of a call
 * leaves only through the output gate ({@link ObjectStorage#release}). An outgoing call, {@code
 * await} or {@code sleep} yields: it seals the event's writes into a batch (flush), suspends the
 * event at the input gate, waits, and queues for the gate again. Inside {@code
 * blockConcurrencyWhile} (and transactions) nothing yields.
 *
 * <p>Lifecycle: a host whose gate is closed accepts no events (the runtime then creates a new
 * host). A host closes when evicted idle (nothing queued, nothing unflushed) or when broken (a
 * flush failed, or a {@code blockConcurrencyWhile} task failed): then every held reply fails with
 * {@link ObjectResetException}, queued events that never ran are redelivered to a fresh host, and
 * queued resumptions wake up to an {@link ObjectResetException}. The reply of a call also waits for
 * the engine to confirm that the event's reads are current ({@link StorageEngine#confirmReads},
 * asked after the event ran); if it cannot, the reply fails with {@link ObjectResetException} and
 * the runtime resets every instance.
 */
final class ObjectHost {
  private static final Logger LOG = LoggerFactory.getLogger(ObjectHost.class);

  final Runtime runtime;
  final Namespace<?> namespace;
  final ObjectId id;
  final String objectKey;
  final ObjectStorage storage;
  final ObjectContextImpl context;
  private final CompletableFuture<Void> predecessorDone;

  /** Completes once this closed host can no longer change storage (its last flush ended). */
  final CompletableFuture<Void> retired = new CompletableFuture<>();

  /**
   * Which event runs. Storage and context calls from any thread but the current turn's would bypass
   * it, so they are refused ({@link InputGate#checkTurn}).
   */
  final InputGate<Event> gate;

  // touched only by the gate holder
  private Object instance;
  int blockDepth;

  ObjectHost(
      Runtime runtime,
      Namespace<?> namespace,
      ObjectId id,
      CompletableFuture<Void> predecessorDone) {
    this.runtime = runtime;
    this.namespace = namespace;
    this.id = id;
    this.objectKey = Runtime.objectKey(namespace.name(), id);
    this.predecessorDone = predecessorDone;
    this.storage = new ObjectStorage(this);
    this.gate =
        new InputGate<>(
            objectKey,
            runtime.maxQueuedEvents,
            runtime.clock(),
            runtime.metrics.overloadRejections,
            storage::isQuiescent);
    this.context = new ObjectContextImpl(this);
  }

  /** One delivery: a call of {@code method} or (method null) the alarm set for {@code alarmAt}. */
  static final class Event {
    final Method method;
    final Object[] args;
    final Instant alarmAt;
    final CompletableFuture<Object> reply;

    /**
     * true: the reply is codec bytes (transport); false: a copied value or exception (typed stub).
     */
    final boolean encoded;

    long submittedNanos;

    Event(
        Method method,
        Object[] args,
        Instant alarmAt,
        CompletableFuture<Object> reply,
        boolean encoded) {
      this.method = method;
      this.args = args;
      this.alarmAt = alarmAt;
      this.reply = reply;
      this.encoded = encoded;
    }
  }

  // ---------------------------------------------------------------- input gate

  /** Outcomes of {@link #submit}. */
  static final int CLOSED = 0;

  static final int ACCEPTED = 1;
  static final int RUN_HERE = 2;

  /**
   * Queues an event. Returns {@link #CLOSED} if this host is closed (the caller creates a new
   * host), {@link #RUN_HERE} if the gate was free, {@code runHere} was asked, and the calling
   * thread now holds the gate and must call {@link #runHere}; otherwise {@link #ACCEPTED}.
   *
   * @throws ObjectOverloadedException if too many events already wait
   */
  int submit(Event e, boolean runHere) {
    e.submittedNanos = System.nanoTime();
    InputGate.Admission admission = gate.arrive(e);
    if (admission == InputGate.Admission.CLOSED) return CLOSED;
    if (admission == InputGate.Admission.QUEUED) return ACCEPTED;
    if (runHere) return RUN_HERE;
    startServing(e);
    return ACCEPTED;
  }

  /**
   * Runs an event on the calling (virtual) thread, which holds the gate, then hands the gate on. A
   * blocking in-process caller would only wait meanwhile: this saves a thread per call.
   */
  void runHere(Event e) {
    gate.runBy(Thread.currentThread());
    runEvent(e);
    Event next = gate.leave();
    if (next != null) startServing(next);
  }

  private void startServing(Event first) {
    Thread.ofVirtual().name("object-" + namespace.name()).start(() -> serve(first));
  }

  /** Runs events while this thread holds the gate and the next queued item is a new event. */
  private void serve(Event first) {
    gate.runBy(Thread.currentThread());
    Event e = first;
    while (e != null) {
      runEvent(e);
      e = gate.leave();
    }
  }

  /** Called by the holder before waiting on something outside: seals writes, opens the gate. */
  void exitGate() {
    storage.onYield();
    exitGateSealed();
  }

  /** Opens the gate without sealing (the caller sealed already). */
  void exitGateSealed() {
    Event next = gate.suspend();
    if (next != null) startServing(next);
  }

  /** Called after the wait: queues for the gate and returns holding it. */
  void enterGate() {
    gate.resume();
  }

  int queuedEvents() {
    return gate.queuedEvents();
  }

  /**
   * @throws IllegalStateException unless called from this object's running event
   */
  void checkHolder(String what) {
    gate.checkTurn(what);
  }

  void throwIfBroken() {
    gate.throwIfBroken();
  }

  boolean isBroken() {
    return gate.isBroken();
  }

  // ---------------------------------------------------------------- events

  private void runEvent(Event e) {
    try {
      deliver(e);
    } catch (RuntimeException | Error bug) {
      // never leave the gate held or the caller waiting because of a failure in the runtime itself
      LOG.error("object {}/{}: event failed in the runtime", namespace.name(), id, bug);
      e.reply.completeExceptionally(bug);
    }
  }

  private void deliver(Event e) {
    long delivered = System.nanoTime();
    boolean fresh = instance == null;
    runtime.metrics.gateWait.update(delivered - e.submittedNanos, TimeUnit.NANOSECONDS);
    if (gate.isBroken()) {
      // never ran here: a fresh instance serves it
      runtime.redeliver(namespace, id, e);
      return;
    }
    runtime.metrics.events.mark();
    // the last write holding outputs before the event runs (see the read confirmation below)
    long pointBefore = storage.confirmationPoint();
    Object result = null;
    Throwable error = null;
    try {
      Object target = instance();
      if (e.method != null) {
        result = e.method.invoke(target, e.args);
        if (result instanceof CompletableFuture<?> f) {
          result = f.isDone() ? f.join() : context.await(f);
        }
      } else {
        runAlarm(target, e.alarmAt);
      }
    } catch (Throwable t) {
      error = Codec.unwrap(t);
    }
    if (e.method != null) {
      // the reply leaves the object now: copy or encode it before the object can touch it again
      Codec codec = runtime.codec;
      if (e.encoded) {
        byte[] bytes;
        if (error == null) {
          try {
            bytes = codec.encodeResult(result);
          } catch (IllegalArgumentException notSerializable) {
            bytes = codec.encodeError(notSerializable);
          }
        } else {
          bytes = codec.encodeError(error);
        }
        result = bytes;
        error = null;
      } else if (error == null) {
        try {
          result =
              codec.copy(
                  result, codec.resultType(e.method), "result of " + Codec.describe(e.method));
        } catch (IllegalArgumentException notSerializable) {
          error = notSerializable;
        }
      } else if (!(error instanceof ObjectResetException)) {
        Throwable original = error;
        error = codec.recreate(e.method, original.getClass().getName(), original.getMessage());
        if (error.getCause() == null && error != original) {
          try {
            error.initCause(original); // keeps the object's stack trace for in-process callers
          } catch (IllegalStateException | IllegalArgumentException causeAlreadySet) {
            error.addSuppressed(original);
          }
        }
      }
    }
    if (LOG.isDebugEnabled() && e.method != null) {
      LOG.debug(
          "object {}/{}: {} waited {} ms for the gate, ran {} ms{}",
          namespace.name(),
          id,
          e.method.getName(),
          TimeUnit.NANOSECONDS.toMillis(delivered - e.submittedNanos),
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - delivered),
          fresh ? " (a new instance)" : "");
    }
    long confirmationPoint = storage.confirmationPoint();
    storage.onYield();
    CompletableFuture<Object> reply = e.reply;
    // asked now, after every read of the event: the reply leaves only if they are still current.
    // Not asked of an engine whose commits prove it when a write was issued during the event: the
    // reply waits for that write's commit, and the event is ordered at that write's log entry
    // (every entry before it was known here; another leader's entries can only follow it).
    if (e.method != null && !(runtime.commitConfirmsReads && confirmationPoint > pointBefore)) {
      CompletionStage<Void> reads = runtime.engine.confirmReads();
      if (reads != StorageEngine.CONFIRMED) reply = runtime.afterReadsConfirmed(reads, reply);
    }
    storage.release(confirmationPoint, reply, result, error);
  }

  private Object instance() {
    if (instance == null) {
      predecessorDone.join();
      try {
        instance = namespace.factory().apply(context);
      } catch (RuntimeException | Error failure) {
        reset(failure);
        throw failure;
      }
      if (instance == null) {
        IllegalStateException failure =
            new IllegalStateException(
                "the factory of namespace " + namespace.name() + " returned null");
        reset(failure);
        throw failure;
      }
    }
    return instance;
  }

  private void runAlarm(Object target, Instant scheduledFor) throws Exception {
    if (!storage.alarmDue(scheduledFor)) return; // replaced or deleted meanwhile
    if (!(target instanceof AlarmHandler handler)) {
      LOG.warn(
          "object {}/{} has an alarm but {} does not implement AlarmHandler; deleting the alarm",
          namespace.name(),
          id,
          target.getClass().getName());
      storage.deleteAlarm();
      return;
    }
    long version = storage.beginAlarm();
    boolean retry = false;
    try {
      handler.alarm();
    } catch (Exception failure) {
      retry = runtime.alarms.failed(this, scheduledFor, failure);
    } finally {
      storage.endAlarm(version, retry);
    }
    if (!retry) runtime.alarms.succeeded(objectKey);
  }

  // ---------------------------------------------------------------- lifecycle

  /**
   * Breaks this instance: nothing unconfirmed will ever be released, the next event starts fresh.
   * Safe to call from any thread, more than once.
   */
  void reset(Throwable cause) {
    if (!gate.fail(cause)) return;
    LOG.warn("object {}/{} reset: {}", namespace.name(), id, cause.toString());
    runtime.metrics.resets.mark();
    runtime.hostClosed(this);
    storage.breakAll(cause).whenComplete((v, x) -> retired.complete(null));
    gate.wakeIdleWaiters();
  }

  /** Closes this host if idle since {@code idleMillis} with nothing unflushed; true if closed. */
  boolean evictIfIdle(long nowMillis, long idleMillis) {
    if (!gate.closeIfIdle(nowMillis, idleMillis)) return false;
    storage.dropCache();
    retired.complete(null);
    runtime.hostClosed(this);
    return true;
  }

  /** Completes when no event runs or waits and every write is durable (or the host broke). */
  CompletableFuture<Void> whenIdle() {
    return gate.whenIdle();
  }

  /** Called after a flush completes: wakes {@link #whenIdle} waiters if now idle. */
  void flushed() {
    gate.writesSettled();
  }
}
