package io.anteroom.objects;

import java.time.Clock;
import java.time.Instant;

/**
 * Runs short tasks at instants of a {@link Clock}: alarms, idle eviction, timeouts. Tests use
 * {@link ManualScheduler}, whose clock only moves when told, so no test sleeps.
 */
public interface Scheduler extends AutoCloseable {

  /** The clock that defines "now" for {@link #schedule}. */
  Clock clock();

  /** Runs {@code task} at or after {@code at} (at once if it is in the past). */
  Cancellable schedule(Instant at, Runnable task);

  /** Stops running tasks. */
  @Override
  void close();

  /** A scheduled task. */
  interface Cancellable {
    /** Prevents the task from running if it has not started. */
    void cancel();
  }

  /** Real time: a single daemon thread runs the tasks (over a {@code ScheduledExecutorService}). */
  static Scheduler system(Clock clock) {
    return new SystemScheduler(clock);
  }
}
