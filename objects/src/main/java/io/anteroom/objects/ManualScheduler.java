package io.anteroom.objects;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * A {@link Scheduler} in virtual time, for tests and simulations: its clock stands still until
 * {@link #advance} moves it, running every task that comes due, in time order, on the calling
 * thread.
 *
 * <p>Invariants: guarded by {@code this}; tasks run outside the lock, so a task may schedule
 * further tasks (they run in the same {@code advance} if they fall due within it).
 *
 * <p>A task may start work on other threads (a runtime's alarm is delivered to its object's
 * thread). With {@link #settleOn} conditions registered, {@code advance} waits after each task
 * until every condition holds, with the clock at that task's time: the work a task started runs at
 * the virtual time it was due, however slowly the machine runs it.
 *
 * <pre>{@code
 * ManualScheduler time = new ManualScheduler(Instant.parse("2026-01-01T00:00:00Z"));
 * Runtime runtime = Runtime.builder().storage(new InMemoryStorageEngine()).virtualTime(time).build();
 * time.advance(Duration.ofSeconds(31));   // idle objects are evicted, due alarms fire and have run
 * }</pre>
 */
public final class ManualScheduler implements Scheduler {
  /** How long {@code advance} waits for a {@link #settleOn} condition before it gives up. */
  public static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(60);

  private final PriorityQueue<Task> tasks = new PriorityQueue<>();
  private final List<Settle> settle = new CopyOnWriteArrayList<>();
  private Instant now;
  private long sequence;
  private final Clock clock =
      new Clock() {
        @Override
        public ZoneId getZone() {
          return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
          throw new UnsupportedOperationException("the manual clock is UTC only");
        }

        @Override
        public Instant instant() {
          synchronized (ManualScheduler.this) {
            return now;
          }
        }
      };

  public ManualScheduler(Instant start) {
    this.now = start;
  }

  @Override
  public Clock clock() {
    return clock;
  }

  @Override
  public synchronized Cancellable schedule(Instant at, Runnable task) {
    Task t = new Task(at, sequence++, task);
    tasks.add(t);
    return () -> {
      synchronized (ManualScheduler.this) {
        tasks.remove(t);
      }
    };
  }

  /**
   * After each task it runs, {@link #advance} waits (real time, at most {@link #SETTLE_TIMEOUT})
   * until {@code settled} holds: for example "no alarm of this runtime is still running" ({@link
   * Runtime#alarmsRunning}). Only for work that finishes without the advancing thread's help.
   */
  public void settleOn(String what, BooleanSupplier settled) {
    settleOn(what, SETTLE_TIMEOUT, settled);
  }

  /** As {@link #settleOn(String, BooleanSupplier)}, giving up after {@code timeout}. */
  public void settleOn(String what, Duration timeout, BooleanSupplier settled) {
    settle.add(new Settle(what, timeout, settled));
  }

  /**
   * Moves the clock forward by {@code d}, running every task due up to the new time (and, after
   * each, waiting for the {@link #settleOn} conditions).
   *
   * @throws IllegalArgumentException if {@code d} is negative (the clock never goes back)
   * @throws IllegalStateException if a settle condition still fails after {@link #SETTLE_TIMEOUT}
   */
  public void advance(Duration d) {
    if (d.isNegative()) {
      throw new IllegalArgumentException("virtual time only moves forward; advance(" + d + ")");
    }
    Instant target;
    synchronized (this) {
      target = now.plus(d);
    }
    while (true) {
      Task next;
      synchronized (this) {
        next = tasks.peek();
        if (next == null || next.at.isAfter(target)) {
          now = target;
          return;
        }
        tasks.poll();
        if (next.at.isAfter(now)) now = next.at;
      }
      next.task.run();
      awaitSettled();
    }
  }

  private void awaitSettled() {
    for (Settle c : settle) {
      long deadline = System.nanoTime() + c.timeout().toNanos();
      while (!c.settled().getAsBoolean()) {
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException(
              "virtual time: " + c.what() + " not settled after " + c.timeout());
        }
        LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
      }
    }
  }

  /**
   * Moves the clock forward one {@code step} at a time until {@code done} holds (checked before
   * each step and after the last), at most {@code maxSteps} steps.
   *
   * @return whether {@code done} holds
   * @throws IllegalArgumentException if {@code step} is not positive or {@code maxSteps} negative
   */
  public boolean advanceUntil(Duration step, int maxSteps, BooleanSupplier done) {
    if (step.isNegative() || step.isZero() || maxSteps < 0) {
      throw new IllegalArgumentException(
          "advanceUntil: a positive step and at least 0 steps, got " + step + " x " + maxSteps);
    }
    for (int i = 0; i < maxSteps; i++) {
      if (done.getAsBoolean()) return true;
      advance(step);
    }
    return done.getAsBoolean();
  }

  /** Runs the tasks already due without moving the clock. */
  public void runDue() {
    advance(Duration.ZERO);
  }

  /** How many tasks wait. */
  public synchronized int pending() {
    return tasks.size();
  }

  @Override
  public synchronized void close() {
    tasks.clear();
  }

  private record Settle(String what, Duration timeout, BooleanSupplier settled) {}

  private record Task(Instant at, long seq, Runnable task) implements Comparable<Task> {
    @Override
    public int compareTo(Task o) {
      int c = at.compareTo(o.at);
      return c != 0 ? c : Long.compare(seq, o.seq);
    }
  }
}
