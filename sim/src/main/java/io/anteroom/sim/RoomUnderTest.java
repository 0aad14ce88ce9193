package io.anteroom.sim;

import io.anteroom.sim.engine.EventLoop;
import java.util.function.Consumer;

/**
 * The seam between the simulated traffic and the room being simulated: the real core, wired with
 * simulated delays. One instance per run; all calls come from the run's event loop.
 *
 * @param <T> the ticket (cookie content) type of the room
 */
interface RoomUnderTest<T> {

  /** Schedules the room's own periodic work (reports, aggregation) on {@code loop}. */
  void start(EventLoop loop);

  /**
   * One request of a user at worker {@code worker} of data center {@code dc}, holding {@code
   * ticket} ({@code null}: a new user). The room answers through {@code reply}, later in virtual
   * time if deciding needs remote calls (counters).
   */
  void request(int dc, int worker, T ticket, Consumer<Reply<T>> reply);

  /** The bucket (minute of first arrival, any monotonic unit) a ticket belongs to. */
  long bucketOf(T ticket);

  /**
   * Why the room just queued the holder of {@code ticket} at this worker, as CSV fields matching
   * {@link #queueExplanationHeader()} (the diagnostic of {@code --explain-queued}); empty when the
   * room cannot say.
   */
  default String explainQueued(int dc, int worker, T ticket) {
    return "";
  }

  /** The CSV header of {@link #explainQueued}'s fields. */
  default String queueExplanationHeader() {
    return "";
  }

  /**
   * The room's answer to a request.
   *
   * @param admitted whether the user passes to the site
   * @param ticket the ticket the user holds from now on
   * @param shownWaitMinutes the estimated wait on the queue page (NaN: unknown, or admitted)
   * @param reason why the room admitted the user, in the room's words (empty when queued)
   * @param place the place in line on the queue page (null: none shown, or admitted)
   */
  record Reply<T>(
      boolean admitted,
      T ticket,
      double shownWaitMinutes,
      String reason,
      io.anteroom.room.PlaceInLine place) {

    /** A reply without a place in line. */
    Reply(boolean admitted, T ticket, double shownWaitMinutes, String reason) {
      this(admitted, ticket, shownWaitMinutes, reason, null);
    }
  }
}
