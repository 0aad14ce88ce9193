package io.anteroom.objects.http;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * What a {@link RoutingObjectTransport} knows of each coordinator's connection, and the two
 * decisions it takes from that: which coordinators to ping now, and which coordinator a call tries
 * next. A deterministic class over an injected monotonic clock (nanoseconds); the transport feeds
 * it the answers and sends the pings.
 *
 * <ul>
 *   <li><b>Pings.</b> A coordinator that has not answered (a call's reply of any status, a 421, a
 *       ping) and was not pinged for {@link #interval} is pinged, once at a time. A transport sends
 *       its calls to the leader only, so its pooled connections to the other coordinators close
 *       after the keep-alive timeout; when the leader was cut off, the calls that followed opened
 *       TLS connections to a follower (which names the new leader) and to the new leader in the
 *       middle of the failover (issue 40's fault suite). Pings keep one connection to each open.
 *   <li><b>The next coordinator.</b> A coordinator that has not answered for {@link #staleAfter}
 *       (one and a half intervals: a live one answers its ping within about one) is silent: cut
 *       off, stopped or paused. A call that must try another coordinator (after a 421 without a
 *       leader, or a connection that could not be made) passes over the silent ones while another
 *       answers: an idle pooled connection to a silent coordinator would take the call and leave it
 *       unanswered (its outcome unknown) for the call's whole timeout, and a new one costs the
 *       connect timeout. When every other coordinator is silent, the next in order is tried anyway.
 * </ul>
 *
 * <p>Not thread-safe: the transport serializes its calls to it.
 */
final class WarmConnections {
  private final long intervalNanos;
  private final long staleAfterNanos;
  private final LongSupplier nanos;

  /** Per coordinator, in configured order. */
  private final Map<String, State> states = new LinkedHashMap<>();

  private static final class State {
    long answered;
    long pingEnded;
    boolean pinging;
  }

  /**
   * @param coordinators the coordinators, in order
   * @param interval the longest time a coordinator goes without an answer before it is pinged;
   *     below the transport's keep-alive timeout
   * @param nanos a monotonic clock in nanoseconds ({@link System#nanoTime} outside tests)
   */
  WarmConnections(List<String> coordinators, Duration interval, LongSupplier nanos) {
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("interval must be positive, got " + interval);
    }
    this.intervalNanos = interval.toNanos();
    this.staleAfterNanos = intervalNanos + intervalNanos / 2;
    this.nanos = Objects.requireNonNull(nanos, "nanos");
    long now = nanos.getAsLong();
    for (String c : coordinators) {
      State s = new State();
      // none has answered yet: every one is silent and due at the first check
      s.answered = now - staleAfterNanos;
      s.pingEnded = now - intervalNanos;
      states.put(c, s);
    }
  }

  /** The time between two pings of a coordinator that does not answer calls. */
  Duration interval() {
    return Duration.ofNanos(intervalNanos);
  }

  /** How long a coordinator may go without answering before it counts as silent. */
  Duration staleAfter() {
    return Duration.ofNanos(staleAfterNanos);
  }

  /** {@code coordinator} answered now: a call's reply of any status, a 421, a ping's answer. */
  void answered(String coordinator) {
    State s = states.get(coordinator);
    if (s != null) s.answered = nanos.getAsLong();
  }

  /**
   * The coordinators to ping now, each marked as pinging until {@link #pingEnded}: no answer and no
   * ping for at least {@link #interval}, and no ping in flight.
   */
  List<String> due() {
    long now = nanos.getAsLong();
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, State> e : states.entrySet()) {
      State s = e.getValue();
      if (s.pinging) continue;
      if (now - Math.max(s.answered, s.pingEnded) >= intervalNanos) {
        s.pinging = true;
        out.add(e.getKey());
      }
    }
    return out;
  }

  /**
   * The ping of {@code coordinator} ended: answered (an {@link #answered answer} too) or not (it is
   * pinged again after another {@link #interval}, not at once).
   */
  void pingEnded(String coordinator, boolean wasAnswered) {
    State s = states.get(coordinator);
    if (s == null || !s.pinging) return;
    s.pinging = false;
    s.pingEnded = nanos.getAsLong();
    if (wasAnswered) s.answered = s.pingEnded;
  }

  /** Whether {@code coordinator} answered within {@link #staleAfter}. */
  boolean answersNow(String coordinator) {
    State s = states.get(coordinator);
    return s != null && nanos.getAsLong() - s.answered < staleAfterNanos;
  }

  /**
   * The coordinator a call tries after {@code after}: the next in order that {@link #answersNow}
   * ({@code after} itself again if it is the only one), or, when none does, simply the next in
   * order.
   */
  String nextAfter(String after) {
    List<String> order = List.copyOf(states.keySet());
    int from = order.indexOf(after);
    for (int i = 1; i <= order.size(); i++) {
      String c = order.get(Math.floorMod(from + i, order.size()));
      if (answersNow(c)) return c;
    }
    return order.get(Math.floorMod(from + 1, order.size()));
  }
}
