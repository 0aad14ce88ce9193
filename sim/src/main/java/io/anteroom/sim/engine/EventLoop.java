package io.anteroom.sim.engine;

import java.time.Clock;
import java.time.Instant;
import java.util.PriorityQueue;

/**
 * The simulator's one deterministic discrete-event loop: a virtual clock and a queue of actions
 * ordered by time. The room simulations schedule in milliseconds ({@link #at}, {@link #after},
 * {@link #runUntil}), the back-pressure models in nanoseconds ({@link #atNanos}, {@link
 * #runBefore}); both are the same time, held in nanoseconds since the start.
 *
 * <p>Invariants: single-threaded (everything runs on the caller of {@code runUntil}/{@code
 * runBefore}); time never goes backwards; actions due at the same instant run in the order they
 * were scheduled, so a run depends only on what was scheduled, never on hashing or threads. An
 * action that throws stops the run and the exception reaches the caller unchanged.
 *
 * <pre>{@code
 * EventLoop loop = new EventLoop(Instant.parse("2026-01-01T00:00:00Z"));
 * loop.after(5_000, () -> System.out.println(loop.clock().instant()));   // 00:00:05
 * loop.runUntil(60_000);
 * }</pre>
 */
public final class EventLoop {
  private static final long NANOS_PER_MILLI = 1_000_000L;

  private record Event(long at, long seq, Runnable action) {}

  private final Instant start;
  private final PriorityQueue<Event> queue =
      new PriorityQueue<>(
          (a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.seq, b.seq));
  private final VirtualClock clock;
  private long nanos;
  private long seq;
  private long executed;

  /** A loop whose virtual time 0 is {@code start}. */
  public EventLoop(Instant start) {
    this.start = start;
    this.clock = VirtualClock.utc(this);
  }

  /** Milliseconds of virtual time since the start (rounded down). */
  public long now() {
    return nanos / NANOS_PER_MILLI;
  }

  /** Nanoseconds of virtual time since the start. */
  public long nanos() {
    return nanos;
  }

  /** The current virtual time. */
  public Instant instant() {
    return start.plusNanos(nanos);
  }

  /** A UTC {@link Clock} reading this loop's virtual time. */
  public Clock clock() {
    return clock;
  }

  /** Number of actions run so far. */
  public long executed() {
    return executed;
  }

  /** Runs {@code action} at virtual time {@code atMillis} (since the start; not in the past). */
  public void at(long atMillis, Runnable action) {
    if (atMillis * NANOS_PER_MILLI < nanos) {
      throw new IllegalArgumentException(
          "cannot schedule an event at "
              + atMillis
              + " ms: the virtual clock is already at "
              + now()
              + " ms");
    }
    atNanos(atMillis * NANOS_PER_MILLI, action);
  }

  /** Runs {@code action} {@code delayMillis} (≥ 0) from now. */
  public void after(long delayMillis, Runnable action) {
    if (delayMillis < 0) {
      throw new IllegalArgumentException("event delay must be >= 0 ms, was " + delayMillis);
    }
    atNanos(nanos + delayMillis * NANOS_PER_MILLI, action);
  }

  /** Runs {@code action} at virtual time {@code atNanos} (since the start; not in the past). */
  public void atNanos(long atNanos, Runnable action) {
    if (atNanos < nanos) {
      throw new IllegalArgumentException(
          "cannot schedule an event at "
              + atNanos
              + " ns: the virtual clock is already at "
              + nanos
              + " ns");
    }
    queue.add(new Event(atNanos, seq++, action));
  }

  /** Runs every action due up to and including {@code endMillis}, then sets the clock there. */
  public void runUntil(long endMillis) {
    long end = endMillis * NANOS_PER_MILLI;
    runWhileDue(end + 1);
    if (end > nanos) {
      nanos = end;
    }
  }

  /**
   * Runs every action due strictly before {@code endNanos}, then sets the clock to {@code endNanos}
   * (not in the past). With nothing scheduled this just moves the clock.
   */
  public void runBefore(long endNanos) {
    if (endNanos < nanos) {
      throw new IllegalArgumentException(
          "virtual time cannot go back from " + nanos + " ns to " + endNanos + " ns");
    }
    runWhileDue(endNanos);
    nanos = endNanos;
  }

  private void runWhileDue(long beforeNanos) {
    while (!queue.isEmpty() && queue.peek().at < beforeNanos) {
      Event e = queue.poll();
      nanos = e.at;
      executed++;
      e.action.run();
    }
  }
}
