package io.anteroom.objects;

import java.lang.reflect.Method;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live instance of one object: its input gate, its event loop and its lifecycle.
 *
 * <p>Input gate invariants (guarded by {@code gateLock}):
 * <ul>
 *   <li>At most one thread holds the gate ({@code held}); only the holder runs object code or
 *       waits on a storage read (storage operations keep the gate closed).</li>
 *   <li>{@code !held} implies the waiting queue is empty: an arriving event or resumption takes
 *       the gate at once when it is free, otherwise it queues, first-in first-out.</li>
 *   <li>New events are plain tasks, not threads: the holder that finishes an event runs the next
 *       queued event itself (one virtual thread serves a burst of calls without handoffs). A
 *       queued <em>resumption</em> (an event coming back from an outgoing call) is a parked
 *       thread; the gate is handed to it and the releasing thread stops serving.</li>
 *   <li>An outgoing call, {@code await} or {@code sleep} yields: it seals the event's writes into
 *       a batch (flush), hands the gate on, waits, and queues for the gate again. Inside
 *       {@code blockConcurrencyWhile} (and transactions) nothing yields.</li>
 * </ul>
 *
 * <p>Lifecycle: {@code closed} hosts accept no events (the runtime then creates a new host).
 * A host closes when evicted idle (nothing queued, nothing unflushed) or when broken (a flush
 * failed, or a {@code blockConcurrencyWhile} task failed): then every held reply fails with
 * {@link ObjectResetException}, queued events that never ran are redelivered to a fresh host,
 * and queued resumptions wake up to an {@link ObjectResetException}.
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

    private final Object gateLock = new Object();
    private boolean held;
    private final ArrayDeque<Object> waiting = new ArrayDeque<>();
    private int waitingEvents;
    /** Events suspended in an outgoing wait (gate open meanwhile): the instance is still in use. */
    private int suspended;
    private boolean closed;
    private long lastActivityMillis;
    private List<CompletableFuture<Void>> idleWaiters;

    /**
     * The thread running this object's code (the gate holder, or the worker of a
     * blockConcurrencyWhile task). Storage and context calls from any other thread would bypass
     * the gate, so they are refused.
     */
    volatile Thread holder;

    // touched only by the gate holder
    private Object instance;
    int blockDepth;
    private volatile Throwable brokenCause;

    ObjectHost(Runtime runtime, Namespace<?> namespace, ObjectId id, CompletableFuture<Void> predecessorDone) {
        this.runtime = runtime;
        this.namespace = namespace;
        this.id = id;
        this.objectKey = Runtime.objectKey(namespace.name(), id);
        this.predecessorDone = predecessorDone;
        this.storage = new ObjectStorage(this);
        this.context = new ObjectContextImpl(this);
        this.lastActivityMillis = runtime.clock().millis();
    }

    /** One delivery: a call of {@code method} or (method null) the alarm set for {@code alarmAt}. */
    static final class Event {
        final Method method;
        final Object[] args;
        final Instant alarmAt;
        final CompletableFuture<Object> reply;
        /** true: the reply is codec bytes (transport); false: a copied value or exception (typed stub). */
        final boolean encoded;
        long submittedNanos;

        Event(Method method, Object[] args, Instant alarmAt, CompletableFuture<Object> reply, boolean encoded) {
            this.method = method;
            this.args = args;
            this.alarmAt = alarmAt;
            this.reply = reply;
            this.encoded = encoded;
        }
    }

    private static final class Resume {
        final Thread thread = Thread.currentThread();
        volatile boolean granted;

        void grant() {
            granted = true;
            LockSupport.unpark(thread);
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
        synchronized (gateLock) {
            if (closed) return CLOSED;
            if (held) {
                if (waitingEvents >= runtime.maxQueuedEvents) {
                    runtime.metrics.overloadRejections.mark();
                    throw new ObjectOverloadedException("object " + namespace.name() + "/" + id + " is overloaded: "
                            + waitingEvents + " events already wait for it (limit " + runtime.maxQueuedEvents + "); back off and retry");
                }
                waiting.add(e);
                waitingEvents++;
                return ACCEPTED;
            }
            held = true;
        }
        if (runHere) return RUN_HERE;
        Thread.ofVirtual().name("object-" + namespace.name()).start(() -> serve(e));
        return ACCEPTED;
    }

    /**
     * Runs an event on the calling (virtual) thread, which holds the gate, then hands the gate on.
     * A blocking in-process caller would only wait meanwhile: this saves a thread per call.
     */
    void runHere(Event e) {
        holder = Thread.currentThread();
        runEvent(e);
        handOff(false);
    }

    /** Runs events while this thread holds the gate and the next queued item is a new event. */
    private void serve(Event first) {
        holder = Thread.currentThread();
        Event e = first;
        while (e != null) {
            runEvent(e);
            e = handOff(true);
        }
    }

    /**
     * Gives the gate to the next waiter. Returns the next new event if the caller should run it
     * itself ({@code serveNext}); otherwise starts a thread for it.
     */
    private Event handOff(boolean serveNext) {
        Event next = null;
        List<CompletableFuture<Void>> idle = null;
        synchronized (gateLock) {
            Object w = waiting.poll();
            if (w == null) {
                held = false;
                holder = null;
                lastActivityMillis = runtime.clock().millis();
                if (idleWaiters != null && suspended == 0 && storage.isQuiescent()) {
                    idle = idleWaiters;
                    idleWaiters = null;
                }
            } else if (w instanceof Event ev) {
                waitingEvents--;
                next = ev;
            } else {
                ((Resume) w).grant();
            }
        }
        if (idle != null) idle.forEach(f -> f.complete(null));
        if (next != null && !serveNext) {
            Event n = next;
            Thread.ofVirtual().name("object-" + namespace.name()).start(() -> serve(n));
            return null;
        }
        return next;
    }

    /** Called by the holder before waiting on something outside: seals writes, opens the gate. */
    void exitGate() {
        storage.onYield();
        exitGateSealed();
    }

    /** Opens the gate without sealing (the caller sealed already). */
    void exitGateSealed() {
        synchronized (gateLock) {
            suspended++;
        }
        handOff(false);
    }

    /** Called after the wait: queues for the gate and returns holding it. */
    void enterGate() {
        Resume r = null;
        synchronized (gateLock) {
            suspended--;
            if (!held) {
                held = true;
            } else {
                r = new Resume();
                waiting.add(r);
            }
        }
        if (r != null) {
            boolean interrupted = false;
            while (!r.granted) {
                LockSupport.park(this);
                // an interrupt must not turn this wait into a spin; it is kept for the object's code
                if (Thread.interrupted()) interrupted = true;
            }
            if (interrupted) Thread.currentThread().interrupt();
        }
        holder = Thread.currentThread();
        throwIfBroken();
    }

    int queuedEvents() {
        synchronized (gateLock) {
            return waitingEvents;
        }
    }

    /** @throws IllegalStateException unless called from this object's running event */
    void checkHolder(String what) {
        if (holder != Thread.currentThread()) {
            throw new IllegalStateException(what + " of object " + namespace.name() + "/" + id
                    + " was called outside of the object's own event (from thread " + Thread.currentThread()
                    + "); use it only from the object's methods, constructor, alarm handler or blockConcurrencyWhile task");
        }
    }

    void throwIfBroken() {
        Throwable cause = brokenCause;
        if (cause != null) {
            throw new ObjectResetException("object " + namespace.name() + "/" + id + " was reset: " + cause.getMessage(), cause);
        }
    }

    boolean isBroken() {
        return brokenCause != null;
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
        runtime.metrics.gateWait.update(System.nanoTime() - e.submittedNanos, TimeUnit.NANOSECONDS);
        if (brokenCause != null) {
            // never ran here: a fresh instance serves it
            runtime.redeliver(namespace, id, e);
            return;
        }
        runtime.metrics.events.mark();
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
                    result = codec.copy(result, codec.resultType(e.method), "result of " + Codec.describe(e.method));
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
        long confirmationPoint = storage.confirmationPoint();
        storage.onYield();
        storage.release(confirmationPoint, e.reply, result, error);
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
                IllegalStateException failure = new IllegalStateException("the factory of namespace " + namespace.name() + " returned null");
                reset(failure);
                throw failure;
            }
        }
        return instance;
    }

    private void runAlarm(Object target, Instant scheduledFor) throws Exception {
        if (!storage.alarmDue(scheduledFor)) return; // replaced or deleted meanwhile
        if (!(target instanceof AlarmHandler handler)) {
            LOG.warn("object {}/{} has an alarm but {} does not implement AlarmHandler; deleting the alarm",
                    namespace.name(), id, target.getClass().getName());
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
     * Breaks this instance: nothing unconfirmed will ever be released, the next event starts
     * fresh. Safe to call from any thread, more than once.
     */
    void reset(Throwable cause) {
        synchronized (gateLock) {
            if (brokenCause != null) return;
            brokenCause = cause;
            closed = true;
        }
        LOG.warn("object {}/{} reset: {}", namespace.name(), id, cause.toString());
        runtime.metrics.resets.mark();
        runtime.hostClosed(this);
        storage.breakAll(cause).whenComplete((v, x) -> retired.complete(null));
        List<CompletableFuture<Void>> idle;
        synchronized (gateLock) {
            idle = idleWaiters;
            idleWaiters = null;
        }
        if (idle != null) idle.forEach(f -> f.complete(null));
    }

    /** Closes this host if idle since {@code idleMillis} with nothing unflushed; true if closed. */
    boolean evictIfIdle(long nowMillis, long idleMillis) {
        synchronized (gateLock) {
            if (closed || held || !waiting.isEmpty() || suspended > 0) return false;
            if (nowMillis - lastActivityMillis < idleMillis) return false;
            if (!storage.isQuiescent()) return false;
            closed = true;
        }
        storage.dropCache();
        retired.complete(null);
        runtime.hostClosed(this);
        return true;
    }

    /** Completes when no event runs or waits and every write is durable (or the host broke). */
    CompletableFuture<Void> whenIdle() {
        synchronized (gateLock) {
            if ((!held && waiting.isEmpty() && suspended == 0 && storage.isQuiescent()) || brokenCause != null) {
                return CompletableFuture.completedFuture(null);
            }
            if (idleWaiters == null) idleWaiters = new ArrayList<>();
            CompletableFuture<Void> f = new CompletableFuture<>();
            idleWaiters.add(f);
            return f;
        }
    }

    /** Called after a flush completes: wakes {@link #whenIdle} waiters if now idle. */
    void flushed() {
        List<CompletableFuture<Void>> idle = null;
        synchronized (gateLock) {
            if (idleWaiters != null && !held && waiting.isEmpty() && suspended == 0 && storage.isQuiescent()) {
                idle = idleWaiters;
                idleWaiters = null;
            }
        }
        if (idle != null) idle.forEach(f -> f.complete(null));
    }
}
