package io.anteroom.door.queue;

/**
 * How often queued clients should poll, and whether the queue-status operation is overloaded
 * ({@code throttle}). Every queue response reports both; implementations must be thread-safe.
 */
public interface QueuePacing {

  /** Records one answered queue-status request and how long it took. */
  void recordQueueStatus(long nanos);

  /** The interval the page script and JSON {@code refreshIntervalSeconds} announce. */
  int refreshIntervalSeconds();

  /**
   * True when the queue-status operation is over its threshold. {@code nowMillis} (epoch
   * milliseconds: the request's one reading of the clock) only says whether a decision taken
   * earlier is still fresh enough to be given again; an implementation's monitor may keep time of
   * its own.
   */
  boolean throttle(long nowMillis);
}
