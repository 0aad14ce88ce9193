package io.anteroom.backpressure;

import java.time.Duration;

/**
 * Sets the pace of a periodic client (a gateway reporting to its coordinator, a page polling its
 * queue status) from the throttle signal of the replies: slow down at once, speed up slowly.
 *
 * <pre>{@code
 * RateController pace = AimdRateController.builder()
 *         .minInterval(Duration.ofSeconds(1)).maxInterval(Duration.ofSeconds(60))
 *         .build();
 * // after each reply
 * pace.onResponse(ThrottleSignal.fromHeader(reply.getHeader(ThrottleSignal.HEADER)));
 * scheduler.schedule(this::poll, pace.nextDelay());
 * }</pre>
 *
 * <p>Implementations are not thread-safe: one controller belongs to one client loop, which calls it
 * from one thread at a time. A controller fed from several threads (a gateway setting the {@code
 * refreshIntervalSeconds} of every queue-status reply from one shared pace) is wrapped with {@link
 * #synchronizedController(RateController)}.
 */
public interface RateController {

  /** Feeds the throttle flag of one reply. */
  void onResponse(boolean throttle);

  /** The delay before the next request: the current interval with jitter, within the clamps. */
  Duration nextDelay();

  /** The current interval without jitter, within {@code [minInterval, maxInterval]}. */
  Duration interval();

  /** The current rate, requests per second: the reciprocal of {@link #interval()}. */
  default double rate() {
    return 1e9 / interval().toNanos();
  }

  /** A view of {@code controller} whose every call holds one lock, for use from several threads. */
  static RateController synchronizedController(RateController controller) {
    return new SynchronizedRateController(controller);
  }
}
