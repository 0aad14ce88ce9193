package io.anteroom.objects;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The alarms of a runtime: when each object's stored alarm fires, and the retries of a handler that
 * threw.
 *
 * <p>Invariants (guarded by {@code lock}):
 *
 * <ul>
 *   <li>At most one scheduled task per object key; scheduling an alarm cancels the previous task.
 *       Only a durable alarm is scheduled ({@link #committed}, or read from the engine at start and
 *       claimed when its namespace registers): an alarm never fires for a write that could still be
 *       lost.
 *   <li>Firing delivers an alarm event through the object's input gate like any call; an overloaded
 *       object gets the alarm again after the first backoff, and so does an object whose event the
 *       runtime failed (a reset before the event's writes were durable), unless a newer alarm is
 *       scheduled meanwhile.
 *   <li>A handler that throws is retried with exponential backoff ({@value #RETRIES} retries,
 *       {@link #FIRST_BACKOFF} doubling); the attempt count lives in memory only, so a restart
 *       fires the stored alarm again with a fresh budget. After the last retry the alarm is deleted
 *       and an error is logged.
 *   <li>After {@link #close()} nothing is scheduled and nothing fires.
 * </ul>
 */
final class Alarms {
  private static final Logger LOG = LoggerFactory.getLogger(Alarms.class);
  static final int RETRIES = 6;
  static final Duration FIRST_BACKOFF = Duration.ofSeconds(2);

  private final Runtime runtime;
  private final Object lock = new Object();
  private final Map<String, Instant> unclaimed = new HashMap<>();
  private final Map<String, Scheduler.Cancellable> tasks = new HashMap<>();
  private final Map<String, Integer> attempts = new HashMap<>();
  private boolean closed;
  private final AtomicInteger running = new AtomicInteger();

  /** {@code stored}: every alarm in the engine, by object key, waiting for its namespace. */
  Alarms(Runtime runtime, Map<String, Instant> stored) {
    this.runtime = runtime;
    this.unclaimed.putAll(stored);
  }

  /** A namespace registered: schedule the stored alarms of its objects. */
  void claim(Namespace<?> ns) {
    List<Map.Entry<String, Instant>> mine = new ArrayList<>();
    synchronized (lock) {
      String prefix = ns.name() + "/";
      unclaimed
          .entrySet()
          .removeIf(
              e -> {
                if (e.getKey().startsWith(prefix)) {
                  mine.add(e);
                  return true;
                }
                return false;
              });
    }
    for (Map.Entry<String, Instant> e : mine) {
      ObjectId id = ObjectId.parse(e.getKey().substring(ns.name().length() + 1));
      schedule(ns, id, e.getValue(), e.getValue());
    }
  }

  /**
   * A batch carrying an alarm change is durable: (re)schedule it, or cancel it ({@code at} null).
   */
  void committed(ObjectHost host, Instant at) {
    if (at == null) {
      synchronized (lock) {
        Scheduler.Cancellable old = tasks.remove(host.objectKey);
        if (old != null) old.cancel();
        attempts.remove(host.objectKey);
      }
      return;
    }
    synchronized (lock) {
      attempts.remove(host.objectKey);
    }
    schedule(host.namespace, host.id, at, at);
  }

  private void schedule(Namespace<?> ns, ObjectId id, Instant stored, Instant fireAt) {
    String key = Runtime.objectKey(ns.name(), id);
    synchronized (lock) {
      if (closed) return;
      Scheduler.Cancellable old = tasks.remove(key);
      if (old != null) old.cancel();
      tasks.put(key, runtime.scheduler.schedule(fireAt, () -> fire(ns, id, stored)));
    }
  }

  private void scheduleUnlessScheduled(
      Namespace<?> ns, ObjectId id, Instant stored, Instant fireAt) {
    String key = Runtime.objectKey(ns.name(), id);
    synchronized (lock) {
      if (closed || tasks.containsKey(key)) return;
      tasks.put(key, runtime.scheduler.schedule(fireAt, () -> fire(ns, id, stored)));
    }
  }

  private void fire(Namespace<?> ns, ObjectId id, Instant stored) {
    if (runtime.isClosed()) return;
    synchronized (lock) {
      tasks.remove(Runtime.objectKey(ns.name(), id));
    }
    ObjectHost.Event e = new ObjectHost.Event(null, null, stored, new CompletableFuture<>(), false);
    running.incrementAndGet();
    e.reply.whenComplete(
        (v, x) -> {
          running.decrementAndGet();
          if (x == null) return;
          // not the handler (runAlarm retries those): the runtime failed the event, e.g. the
          // object was reset before the event's writes were durable. The alarm is still stored:
          // fire it again unless something newer is scheduled (a fresh instance checks that it is
          // still due)
          LOG.warn(
              "alarm event of {}/{} failed, firing it again in {}: {}",
              ns.name(),
              id,
              FIRST_BACKOFF,
              x.toString());
          scheduleUnlessScheduled(ns, id, stored, runtime.clock().instant().plus(FIRST_BACKOFF));
        });
    try {
      runtime.dispatch(ns, id, e);
    } catch (ObjectOverloadedException overloaded) {
      running.decrementAndGet();
      schedule(ns, id, stored, runtime.clock().instant().plus(FIRST_BACKOFF));
    } catch (RuntimeException notDispatched) {
      running.decrementAndGet(); // e.g. the runtime closed meanwhile: the event will never answer
      throw notDispatched;
    }
  }

  /**
   * Alarm events fired and not yet answered (their handler runs, or waits in the object's gate, or
   * its writes are not yet durable). A retry or the next alarm is scheduled before the count drops.
   */
  int running() {
    return running.get();
  }

  /** The alarm handler threw: schedule a retry (true) or give up (false). */
  boolean failed(ObjectHost host, Instant stored, Exception failure) {
    int attempt;
    synchronized (lock) {
      attempt = attempts.merge(host.objectKey, 1, Integer::sum);
      if (attempt > RETRIES) attempts.remove(host.objectKey);
    }
    if (attempt > RETRIES) {
      LOG.error(
          "alarm of {}/{} failed {} times; giving up and deleting it",
          host.namespace.name(),
          host.id,
          attempt,
          failure);
      return false;
    }
    Duration backoff = FIRST_BACKOFF.multipliedBy(1L << (attempt - 1));
    LOG.warn(
        "alarm of {}/{} failed (attempt {}), retrying in {}: {}",
        host.namespace.name(),
        host.id,
        attempt,
        backoff,
        failure.toString());
    schedule(host.namespace, host.id, stored, runtime.clock().instant().plus(backoff));
    // after scheduling: an observer of the count sees the retry already planned
    runtime.metrics.alarmRetries.inc();
    return true;
  }

  /** The alarm handler returned: its retry budget starts afresh. */
  void succeeded(String objectKey) {
    synchronized (lock) {
      attempts.remove(objectKey);
    }
  }

  /** Cancels every scheduled alarm; none is scheduled afterwards. */
  void close() {
    synchronized (lock) {
      closed = true;
      tasks.values().forEach(Scheduler.Cancellable::cancel);
      tasks.clear();
    }
  }
}
