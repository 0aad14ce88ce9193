package io.anteroom.gateway.edge;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many connections a listener holds open, at most {@code max}: {@link #tryOpen} takes one of
 * the budget or refuses, {@link #closed} gives it back (exactly once per successful {@code
 * tryOpen}). Shared by every event loop of a listener.
 *
 * <p>Thread-safe (one atomic counter that never exceeds {@code max}).
 */
final class ConnectionBudget {

  private final int max;
  private final AtomicInteger open = new AtomicInteger();

  ConnectionBudget(int max) {
    if (max < 1) {
      throw new IllegalArgumentException("maxConnections must be at least 1, got " + max);
    }
    this.max = max;
  }

  /** Counts a new connection if fewer than {@code max} are open; false: refuse it. */
  boolean tryOpen() {
    while (true) {
      int now = open.get();
      if (now >= max) {
        return false;
      }
      if (open.compareAndSet(now, now + 1)) {
        return true;
      }
    }
  }

  /** A connection counted by {@link #tryOpen} closed. */
  void closed() {
    if (open.decrementAndGet() < 0) {
      open.incrementAndGet();
      throw new IllegalStateException("closed() without a matching tryOpen()");
    }
  }

  /** Connections open now. */
  int open() {
    return open.get();
  }

  int max() {
    return max;
  }
}
