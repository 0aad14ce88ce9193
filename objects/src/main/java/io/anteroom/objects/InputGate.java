package io.anteroom.objects;

import com.codahale.metrics.Meter;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The input gate of one live object: which of its events may run its code now.
 *
 * <p>What is serialized: events of the object (calls, alarms, and <em>resumptions</em>, i.e. events
 * coming back from an outgoing call) run one at a time. At most one thread holds the gate (the
 * <em>turn</em>); only the holder runs object code or waits on a storage operation, so storage
 * operations keep the gate closed. The gate is free only when nobody waits: an arriving event or
 * resumption takes a free gate at once, otherwise it queues, first-in first-out.
 *
 * <p>What is held back: while the gate is held, arrivals queue (at most {@code maxQueued} new
 * events; beyond that an arrival is refused with {@link ObjectOverloadedException}). The holder
 * opens the gate only by finishing its event ({@link #leave}) or by suspending it to wait on
 * something outside ({@link #suspend}, then {@link #resume} queues for the gate again). New events
 * are plain tasks, not threads: {@link #leave} hands the next queued new event to the leaving
 * thread, so one thread serves a burst of calls without hand-offs; a queued resumption is a parked
 * thread, and the gate is handed to it directly.
 *
 * <p>What happens on failure: {@link #fail} breaks the gate for good. It then admits nothing new
 * ({@link Admission#CLOSED}: the runtime starts a fresh instance), the events already queued still
 * get their turn (the host redelivers them to the fresh instance without running them), and every
 * resumption and every check ({@link #throwIfBroken}) throws {@link ObjectResetException}. A gate
 * also closes without failure when {@link #closeIfIdle evicted idle}.
 *
 * <p>Locking: all state is guarded by {@code lock}; the only call made while holding it is {@code
 * writesSettled} (the object's storage, which never calls back into the gate under its own lock).
 */
final class InputGate<E> {
  /** The outcome of {@link #arrive}. */
  enum Admission {
    /** The gate is closed for good: deliver the event to a new instance. */
    CLOSED,
    /** Queued: a holder will run it in its turn. */
    QUEUED,
    /** The gate was free: the calling thread now holds it and must run the event. */
    ENTERED
  }

  private final String name;
  private final int maxQueued;
  private final Clock clock;
  private final Meter rejections;
  private final BooleanSupplier writesSettled;

  private final Object lock = new Object();
  private boolean held;

  /** New events (E) and resumptions ({@link Resume}), in arrival order. */
  private final ArrayDeque<Object> waiting = new ArrayDeque<>();

  private int waitingEvents;

  /** Events suspended in an outgoing wait (gate open meanwhile): the instance is still in use. */
  private int suspended;

  private boolean closed;
  private long lastActivityMillis;
  private List<CompletableFuture<Void>> idleWaiters;
  private volatile Throwable failure;

  /**
   * The thread running the object's code: the holder, or the worker of a {@code
   * blockConcurrencyWhile} task that runs in its turn.
   */
  private volatile Thread holder;

  /**
   * @param name the object, for messages ({@code namespace/id})
   * @param writesSettled whether the object has no unflushed write and no held output (part of
   *     being idle)
   */
  InputGate(
      String name, int maxQueued, Clock clock, Meter rejections, BooleanSupplier writesSettled) {
    this.name = name;
    this.maxQueued = maxQueued;
    this.clock = clock;
    this.rejections = rejections;
    this.writesSettled = writesSettled;
    this.lastActivityMillis = clock.millis();
  }

  private static final class Resume {
    final Thread thread = Thread.currentThread();
    volatile boolean granted;

    void grant() {
      granted = true;
      LockSupport.unpark(thread);
    }
  }

  // ---------------------------------------------------------------- turns

  /**
   * A new event arrives: queue it, or take the free gate ({@link Admission#ENTERED}; the caller
   * then runs it and calls {@link #leave}).
   *
   * @throws ObjectOverloadedException if {@code maxQueued} events already wait
   */
  Admission arrive(E event) {
    synchronized (lock) {
      if (closed) return Admission.CLOSED;
      if (held) {
        if (waitingEvents >= maxQueued) {
          rejections.mark();
          throw new ObjectOverloadedException(
              "object "
                  + name
                  + " is overloaded: "
                  + waitingEvents
                  + " events already wait for it (limit "
                  + maxQueued
                  + "); back off and retry");
        }
        waiting.add(event);
        waitingEvents++;
        return Admission.QUEUED;
      }
      held = true;
      return Admission.ENTERED;
    }
  }

  /**
   * The holder's event is done: the gate goes to the next waiter. Returns the next new event if
   * there is one: the calling thread then holds the gate for it (and must run it, or start a thread
   * that does). Returns null if the gate went to a resumption or is now free.
   */
  @SuppressWarnings("unchecked")
  E leave() {
    E next = null;
    List<CompletableFuture<Void>> idle = null;
    synchronized (lock) {
      Object w = waiting.poll();
      if (w == null) {
        held = false;
        holder = null;
        lastActivityMillis = clock.millis();
        if (idleWaiters != null && suspended == 0 && writesSettled.getAsBoolean()) {
          idle = idleWaiters;
          idleWaiters = null;
        }
      } else if (w instanceof Resume r) {
        r.grant();
      } else {
        waitingEvents--;
        next = (E) w;
      }
    }
    if (idle != null) idle.forEach(f -> f.complete(null));
    return next;
  }

  /**
   * The holder suspends its event to wait on something outside (the caller sealed its writes
   * first). As {@link #leave}: a returned event is now the caller's to start on another thread.
   */
  E suspend() {
    synchronized (lock) {
      suspended++;
    }
    return leave();
  }

  /**
   * The suspended event's wait is over: queue for the gate and return holding it.
   *
   * @throws ObjectResetException if the gate broke meanwhile (the caller holds the gate anyway)
   */
  void resume() {
    Resume r = null;
    synchronized (lock) {
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

  /** Records the thread that runs the object's code in the current turn. */
  void runBy(Thread thread) {
    holder = thread;
  }

  /**
   * @throws IllegalStateException unless called from the thread of the current turn
   */
  void checkTurn(String what) {
    if (holder != Thread.currentThread()) {
      throw new IllegalStateException(
          what
              + " of object "
              + name
              + " was called outside of the object's own event (from thread "
              + Thread.currentThread()
              + "); use it only from the object's methods, constructor, alarm handler or"
              + " blockConcurrencyWhile task");
    }
  }

  int queuedEvents() {
    synchronized (lock) {
      return waitingEvents;
    }
  }

  // ---------------------------------------------------------------- failure and closing

  /**
   * Breaks the gate for good with {@code cause}. Returns false if it was broken already. Safe from
   * any thread.
   */
  boolean fail(Throwable cause) {
    synchronized (lock) {
      if (failure != null) return false;
      failure = cause;
      closed = true;
    }
    return true;
  }

  /** Wakes {@link #whenIdle} waiters of a broken gate. */
  void wakeIdleWaiters() {
    List<CompletableFuture<Void>> idle;
    synchronized (lock) {
      idle = idleWaiters;
      idleWaiters = null;
    }
    if (idle != null) idle.forEach(f -> f.complete(null));
  }

  boolean isBroken() {
    return failure != null;
  }

  /**
   * @throws ObjectResetException if the gate broke
   */
  void throwIfBroken() {
    Throwable cause = failure;
    if (cause != null) {
      throw new ObjectResetException("object " + name + " was reset: " + cause.getMessage(), cause);
    }
  }

  /**
   * Closes the gate if nothing runs, waits or is suspended, no event came for {@code idleMillis},
   * and the writes are settled; true if closed.
   */
  boolean closeIfIdle(long nowMillis, long idleMillis) {
    synchronized (lock) {
      if (closed || held || !waiting.isEmpty() || suspended > 0) return false;
      if (nowMillis - lastActivityMillis < idleMillis) return false;
      if (!writesSettled.getAsBoolean()) return false;
      closed = true;
      return true;
    }
  }

  /** Completes when no event runs, waits or is suspended and the writes are settled, or broken. */
  CompletableFuture<Void> whenIdle() {
    synchronized (lock) {
      if ((!held && waiting.isEmpty() && suspended == 0 && writesSettled.getAsBoolean())
          || failure != null) {
        return CompletableFuture.completedFuture(null);
      }
      if (idleWaiters == null) idleWaiters = new ArrayList<>();
      CompletableFuture<Void> f = new CompletableFuture<>();
      idleWaiters.add(f);
      return f;
    }
  }

  /** The writes may have settled (a flush ended): wakes {@link #whenIdle} waiters if idle now. */
  void writesSettled() {
    List<CompletableFuture<Void>> idle = null;
    synchronized (lock) {
      if (idleWaiters != null
          && !held
          && waiting.isEmpty()
          && suspended == 0
          && writesSettled.getAsBoolean()) {
        idle = idleWaiters;
        idleWaiters = null;
      }
    }
    if (idle != null) idle.forEach(f -> f.complete(null));
  }
}
