package io.anteroom.objects.http;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Which coordinators a {@link RoutingObjectTransport} pings now so that it holds an open, warm
 * connection to each of them: the ones that have had no exchange (a call's reply, a 421, a ping's
 * answer) for {@link #interval} and have no ping in flight. A deterministic decision over an
 * injected monotonic clock (nanoseconds); the transport feeds it the exchanges and sends the pings.
 *
 * <p>Why: a transport sends its calls to the leader only, so the pooled connections to the other
 * coordinators close after the keep-alive timeout. When the leader is cut off, the calls that
 * follow each opened a TLS connection to a follower (which answers 421 naming the new leader) and
 * then one to the new leader, in the middle of the failover (issue 40's fault suite). A ping every
 * {@link #interval}, shorter than the keep-alive timeout, keeps one connection to each coordinator
 * open, so the failover's calls find them ready.
 *
 * <p>Not thread-safe: the transport calls it on one event-loop context.
 */
final class WarmConnections {
  private final long intervalNanos;
  private final LongSupplier nanos;

  /** Per coordinator: the time of its last exchange; a ping in flight. */
  private final Map<String, long[]> lastExchange = new LinkedHashMap<>();

  private final Map<String, Boolean> pinging = new LinkedHashMap<>();

  /**
   * @param coordinators the coordinators to keep warm, in order
   * @param interval the longest time a coordinator goes without an exchange before it is pinged;
   *     below the transport's keep-alive timeout
   * @param nanos a monotonic clock in nanoseconds ({@link System#nanoTime} outside tests)
   */
  WarmConnections(List<String> coordinators, Duration interval, LongSupplier nanos) {
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("interval must be positive, got " + interval);
    }
    this.intervalNanos = interval.toNanos();
    this.nanos = Objects.requireNonNull(nanos, "nanos");
    long now = nanos.getAsLong();
    // none is warm yet: every coordinator is due at the first check
    for (String c : coordinators) {
      lastExchange.put(c, new long[] {now - intervalNanos});
      pinging.put(c, false);
    }
  }

  /** The time between two pings of an idle coordinator. */
  Duration interval() {
    return Duration.ofNanos(intervalNanos);
  }

  /**
   * An exchange with {@code coordinator} completed now (a reply of any status, a ping's answer).
   */
  void exchanged(String coordinator) {
    long[] last = lastExchange.get(coordinator);
    if (last != null) last[0] = nanos.getAsLong();
  }

  /**
   * The coordinators to ping now, each marked as pinging until {@link #pinged}: no exchange with
   * them for at least {@link #interval}, and no ping in flight.
   */
  List<String> due() {
    long now = nanos.getAsLong();
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, long[]> e : lastExchange.entrySet()) {
      String c = e.getKey();
      if (pinging.get(c)) continue;
      if (now - e.getValue()[0] >= intervalNanos) {
        pinging.put(c, true);
        out.add(c);
      }
    }
    return out;
  }

  /**
   * The ping of {@code coordinator} ended, answered or not: it is pinged again after another {@link
   * #interval} without an exchange (one that failed is not retried at once: the coordinator is
   * unreachable now, and its calls find that out themselves).
   */
  void pingEnded(String coordinator) {
    if (!pinging.containsKey(coordinator)) return;
    pinging.put(coordinator, false);
    lastExchange.get(coordinator)[0] = nanos.getAsLong();
  }
}
