package io.anteroom.gateway.edge;

/**
 * The request-head deadline of one connection (slowloris defence), as a pure state machine over
 * times given in milliseconds: while no request is in progress (the connection just opened, or its
 * last response ended), the next request head must arrive within {@code timeoutMillis}, else the
 * connection is to be closed. While a request is in progress (from its head to the end of its
 * response) the deadline does not run: slow origins and long downloads are the idle timeout's
 * business. The deadline is absolute: only a complete head ({@link #requestStarted}) stops it, the
 * bytes of a partial one do not move it (a read-idle timeout that each byte restarts let a head
 * sent a byte a second hold a connection for ever). {@link ListenerGuard} starts it at accept.
 *
 * <p>At most one timer is pending per connection: a request that starts and ends while the timer is
 * pending does not cancel it; when it fires, {@link #expired} says whether to close, and {@link
 * #timerDelay} re-arms it for what is left of the new idle period.
 *
 * <pre>{@code
 * var d = new HeadDeadline(10_000, now);   // connection opened
 * arm(d.timerDelay(now));                  // 10 000
 * d.requestStarted();                      // a head arrived
 * d.requestEnded(later);                   // its response ended
 * // the timer fires:
 * if (d.expired(now)) close(); else arm(d.timerDelay(now));
 * }</pre>
 *
 * <p>Not thread-safe: used on its connection's event loop only.
 */
final class HeadDeadline {

  /** {@link #timerDelay}: no timer is to be armed now. */
  static final long NO_TIMER = -1;

  private final long timeoutMillis;
  private long idleSince;
  private int inProgress;
  private boolean timerPending;

  /** A connection opened at {@code nowMillis}, waiting for its first request head. */
  HeadDeadline(long timeoutMillis, long nowMillis) {
    if (timeoutMillis < 1) {
      throw new IllegalArgumentException("timeoutMillis must be positive, got " + timeoutMillis);
    }
    this.timeoutMillis = timeoutMillis;
    this.idleSince = nowMillis;
  }

  /** A complete request head arrived: the deadline stops until its response ends. */
  void requestStarted() {
    inProgress++;
  }

  /** A request's response ended (or its stream closed) at {@code nowMillis}. */
  void requestEnded(long nowMillis) {
    if (inProgress == 0) {
      throw new IllegalStateException("requestEnded without requestStarted");
    }
    inProgress--;
    if (inProgress == 0) {
      idleSince = nowMillis;
    }
  }

  /**
   * The delay of a timer to arm now, or {@link #NO_TIMER} when a timer is already pending or a
   * request is in progress. The caller arms it and calls {@link #expired} when it fires.
   */
  long timerDelay(long nowMillis) {
    if (timerPending || inProgress > 0) {
      return NO_TIMER;
    }
    timerPending = true;
    return Math.max(1, idleSince + timeoutMillis - nowMillis);
  }

  /**
   * The pending timer fired at {@code nowMillis}: whether the connection has waited for a head for
   * the whole deadline and is to be closed. Otherwise the caller asks {@link #timerDelay} again.
   */
  boolean expired(long nowMillis) {
    timerPending = false;
    return inProgress == 0 && nowMillis - idleSince >= timeoutMillis;
  }

  /** Requests whose response has not ended yet. */
  int inProgress() {
    return inProgress;
  }
}
