package io.anteroom.gateway.edge;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How many connections the admin listener holds open, at most {@code max}, such that connections
 * nobody authenticated cannot lock an operator out: at the cap a newcomer takes the place of the
 * oldest connection that has not been {@linkplain #vouch vouched for} (no request with the admin
 * token arrived on it), which the caller closes; the newcomer is refused only when every connection
 * held has been vouched for. A hostile client can therefore hold the listener only with the token;
 * without it, each connection it opens pushes out its own oldest one (or is closed by the head
 * deadline), and an operator's new connection is served as soon as it sends its request.
 *
 * <p>Pure (no I/O, no clock): {@code C} is whatever identifies a connection to the caller (each
 * connection given to {@link #open} is a distinct object).
 *
 * <p>Thread-safe (synchronized; the admin listener accepts a few connections a second at most).
 */
final class EvictingBudget<C> {

  /** What {@link #open} decided: admitted or not, and the connection to close for it, if any. */
  record Admission<C>(boolean admitted, C evicted) {}

  private final int max;

  /** The connections counted, oldest first, each with whether it has been vouched for. */
  private final Map<C, Boolean> open = new LinkedHashMap<>();

  EvictingBudget(int max) {
    if (max < 1) {
      throw new IllegalArgumentException("maxConnections must be at least 1, got " + max);
    }
    this.max = max;
  }

  /**
   * Counts {@code connection} if fewer than {@code max} are open, or in place of the oldest one not
   * vouched for (which is no longer counted: the caller closes it); else refuses it.
   */
  synchronized Admission<C> open(C connection) {
    if (open.containsKey(connection)) {
      throw new IllegalStateException("opened twice: " + connection);
    }
    C evicted = null;
    if (open.size() >= max) {
      for (Map.Entry<C, Boolean> e : open.entrySet()) {
        if (!e.getValue()) {
          evicted = e.getKey();
          break;
        }
      }
      if (evicted == null) {
        return new Admission<>(false, null);
      }
      open.remove(evicted);
    }
    open.put(connection, false);
    return new Admission<>(true, evicted);
  }

  /** A request with the admin token arrived on {@code connection}: it is never evicted. */
  synchronized void vouch(C connection) {
    open.replace(connection, true);
  }

  /** {@code connection} closed (also one evicted or refused before: then nothing changes). */
  synchronized void closed(C connection) {
    open.remove(connection);
  }

  /** Connections counted now. */
  synchronized int open() {
    return open.size();
  }

  int max() {
    return max;
  }
}
