package io.anteroom.sim.engine;

import java.time.Clock;
import java.time.Instant;
import java.util.PriorityQueue;

/**
 * A deterministic discrete-event loop: a virtual clock and a queue of actions ordered by time.
 *
 * <p>Invariants: single-threaded (everything runs on the caller of {@link #runUntil}); time never
 * goes backwards; actions due at the same millisecond run in the order they were scheduled, so a
 * run depends only on what was scheduled, never on hashing or threads. An action that throws stops
 * the run and the exception reaches the caller of {@code runUntil} unchanged.
 *
 * <pre>{@code
 * EventLoop loop = new EventLoop(Instant.parse("2026-01-01T00:00:00Z"));
 * loop.after(5_000, () -> System.out.println(loop.clock().instant()));   // 00:00:05
 * loop.runUntil(60_000);
 * }</pre>
 */
public final class EventLoop {
  private record Event(long at, long seq, Runnable action) {}

  private final long epochStartMillis;
  private final PriorityQueue<Event> queue =
      new PriorityQueue<>((a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.seq, b.seq));
  private final VirtualClock clock;
  private long now;
  private long seq;
  private long executed;

  /** A loop whose virtual time 0 is {@code start}. */
  public EventLoop(Instant start) {
    this.epochStartMillis = start.toEpochMilli();
    this.clock = VirtualClock.utc(this);
  }

  /** Milliseconds of virtual time since the start. */
  public long now() {
    return now;
  }

  /** The current virtual time as epoch milliseconds. */
  public long epochMillis() {
    return epochStartMillis + now;
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
    if (atMillis < now) {
      throw new IllegalArgumentException(
          "cannot schedule an event at " + atMillis + " ms: the virtual clock is already at " + now + " ms");
    }
    queue.add(new Event(atMillis, seq++, action));
  }

  /** Runs {@code action} {@code delayMillis} (≥ 0) from now. */
  public void after(long delayMillis, Runnable action) {
    if (delayMillis < 0) {
      throw new IllegalArgumentException("event delay must be >= 0 ms, was " + delayMillis);
    }
    at(now + delayMillis, action);
  }

  /** Runs every action due up to and including {@code endMillis}, then sets the clock there. */
  public void runUntil(long endMillis) {
    while (!queue.isEmpty() && queue.peek().at <= endMillis) {
      Event e = queue.poll();
      now = e.at;
      executed++;
      e.action.run();
    }
    if (endMillis > now) {
      now = endMillis;
    }
  }
}
