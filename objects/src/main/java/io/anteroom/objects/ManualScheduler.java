package io.anteroom.objects;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.PriorityQueue;

/**
 * A {@link Scheduler} in virtual time, for tests and simulations: its clock stands still until
 * {@link #advance} moves it, running every task that comes due, in time order, on the calling
 * thread.
 *
 * <p>Invariants: guarded by {@code this}; tasks run outside the lock, so a task may schedule
 * further tasks (they run in the same {@code advance} if they fall due within it).
 *
 * <pre>{@code
 * ManualScheduler time = new ManualScheduler(Instant.parse("2026-01-01T00:00:00Z"));
 * Runtime runtime = Runtime.builder().storage(new InMemoryStorageEngine()).scheduler(time).build();
 * time.advance(Duration.ofSeconds(31));   // idle objects are evicted, due alarms fire
 * }</pre>
 */
public final class ManualScheduler implements Scheduler {
  private final PriorityQueue<Task> tasks = new PriorityQueue<>();
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

  /** Moves the clock forward by {@code d}, running every task due up to the new time. */
  public void advance(Duration d) {
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
    }
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

  private record Task(Instant at, long seq, Runnable task) implements Comparable<Task> {
    @Override
    public int compareTo(Task o) {
      int c = at.compareTo(o.at);
      return c != 0 ? c : Long.compare(seq, o.seq);
    }
  }
}
