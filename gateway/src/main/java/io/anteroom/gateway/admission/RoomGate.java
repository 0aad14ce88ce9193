package io.anteroom.gateway.admission;

import io.anteroom.gateway.config.GatewayConfig.RoomSettings;
import io.anteroom.gateway.config.QueueingMethod;
import java.util.concurrent.CompletionStage;

/**
 * The gateway's view of one room's admission logic: everything the HTTP edge asks of the room core,
 * with tickets as opaque plaintext bytes (the edge seals and opens them; the room core owns their
 * content). All formulas live behind this interface, in the {@code room} module.
 *
 * <p>Threading: called from Vert.x event loops concurrently. {@link #decide} must not block; for an
 * admitted session it completes at once, otherwise it may complete later on any thread.
 */
public interface RoomGate extends AutoCloseable {

  /**
   * Decides for one request: {@code ticket} is the opened cookie, or null for a new user. An
   * admitted user with a live session is answered with an already completed stage (the hot path: no
   * remote call); others may wait for a counter object. A user the room core queues gets the room's
   * {@code queueingMethod} ({@link Outcome#queued}). Never fails for bad input; a failure of the
   * coordination is handled inside by the room's {@code failMode}.
   */
  CompletionStage<Verdict> decide(byte[] ticket, long nowMillis);

  /** The origin answered {@code Anteroom-Command: revoke}: the session of this ticket ends. */
  void revoke(byte[] ticket, long nowMillis);

  /** The room's current state for the admin API, status page and metrics. */
  RoomStatus status(long nowMillis);

  /**
   * The room's history rows of minutes {@code [fromMinute, toMinute)} (minutes since the epoch),
   * merged over every gateway and data center; fails when the room's coordination cannot answer.
   */
  default CompletionStage<java.util.List<io.anteroom.room.history.HistoryRow>> history(
      long fromMinute, long toMinute) {
    return java.util.concurrent.CompletableFuture.failedFuture(
        new UnsupportedOperationException("this room keeps no history"));
  }

  /**
   * Claims a proof-of-work challenge for the whole deployment: true the first time its nonce is
   * claimed. A gate without shared coordination has only the gateway's own memory of used
   * challenges, which the caller has already checked, and answers true.
   */
  default CompletionStage<Boolean> claimChallenge(String nonce, long expiresAtMillis) {
    return java.util.concurrent.CompletableFuture.completedFuture(true);
  }

  /** Applies changed settings (admin API) without losing the room's counts. */
  void reconfigure(RoomSettings settings);

  /**
   * Sets the new users per minute in force (origin protection), at most the configured value; takes
   * effect from the next minute's pool.
   */
  void limitNewUsersPerMinute(int effective);

  /**
   * Called about four times a second with the current time: background work such as sending reports
   * when due. Must not block.
   */
  default void tick(long nowMillis) {}

  /**
   * Registers who applies the room's live overrides: called with every newer version the gate
   * learns (at once with the newest one already known). Gates without a coordinator never call it.
   */
  default void onOverrides(java.util.function.Consumer<io.anteroom.room.RoomOverrides> listener) {}

  /**
   * Changes the room's live overrides for the whole deployment; completes once the change is
   * durable (and handed to the {@link #onOverrides} listener), fails when it could not be made
   * (nothing changed then).
   */
  default CompletionStage<io.anteroom.room.RoomOverrides> override(
      java.util.Map<String, String> changes) {
    return java.util.concurrent.CompletableFuture.failedFuture(
        new UnsupportedOperationException("this room has no coordinator to keep overrides"));
  }

  @Override
  void close();

  /** What to do with one request. */
  enum Outcome {
    /** A returning user whose session is live (renewed ticket). */
    ADMIT_SESSION,
    /** A user let in now. */
    ADMIT,
    /** Over the limit, but the room lets everyone through (queueingMethod passthrough). */
    PASS_THROUGH,
    /** Show the queue. */
    QUEUE,
    /** Refuse (queueingMethod reject). */
    REJECT;

    /**
     * What a user the room core queued gets under the room's {@code queueingMethod}: the one place
     * that maps it, for the gate's decisions and for the edge's answer when a decision failed.
     */
    public static Outcome queued(QueueingMethod method) {
      return switch (method) {
        case FIFO, RANDOM -> QUEUE;
        case PASSTHROUGH -> PASS_THROUGH;
        case REJECT -> REJECT;
      };
    }
  }

  /**
   * A decision: the outcome, the ticket to set, and for queued users what the queue page shows. A
   * null ticket leaves the user's cookie as it is (a tab racing its own admission must not lose the
   * admitted cookie its jar got meanwhile); a rejection never sets a cookie, for the same reason.
   */
  record Verdict(Outcome outcome, byte[] ticket, QueueView queue) {}

  /**
   * What a queued user is told (the JSON fields of the queue response).
   *
   * <p>While the wait is not known ({@code waitTimeKnown} false: nobody was admitted in the last 3
   * minutes, or no decision could be made) the wait and its percentiles are all 0, whatever was
   * given.
   *
   * @param waitTimeKnown false while no admissions have been seen yet
   * @param waitTimeMinutes estimated wait of this user's bucket, rounded up
   * @param lastUpdatedMillis when the room state this is based on was computed
   */
  record QueueView(
      boolean waitTimeKnown,
      int waitTimeMinutes,
      int waitTime25Percentile,
      int waitTime50Percentile,
      int waitTime75Percentile,
      long lastUpdatedMillis) {

    /** The wait above which the queue counts as full (as in the hosted room's JSON): 24 hours. */
    public static final int FULL_AFTER_MINUTES = 24 * 60;

    public QueueView {
      if (!waitTimeKnown) {
        waitTimeMinutes = 0;
        waitTime25Percentile = 0;
        waitTime50Percentile = 0;
        waitTime75Percentile = 0;
      }
    }

    /** A view without a wait estimate, as of {@code lastUpdatedMillis}. */
    public static QueueView unknown(long lastUpdatedMillis) {
      return new QueueView(false, 0, 0, 0, 0, lastUpdatedMillis);
    }

    /**
     * The queue is full: the estimated wait is known and longer than {@link #FULL_AFTER_MINUTES} (a
     * user joining now would wait more than a day). Not merely "the site has no free slot": a room
     * with one waiting user is not full.
     */
    public boolean queueIsFull() {
      return waitTimeKnown && waitTimeMinutes > FULL_AFTER_MINUTES;
    }
  }

  /**
   * A room's state for operators.
   *
   * @param status {@code not_queueing}, {@code queueing} or {@code suspended}
   * @param degraded the coordinator is unreachable; decisions use the last known state per {@code
   *     failMode}
   * @param effectiveNewUsersPerMinute the admission rate in force (lower than configured while
   *     origin protection is holding it back)
   * @param configFingerprint the fingerprint of this gateway's room settings (null: none)
   * @param agreement whether the room's gateways agree on its config, as the coordinator last said
   * @param overridesVersion the version of the live overrides in force here (-1: none heard yet)
   */
  record RoomStatus(
      String status,
      long estimatedQueuedUsers,
      long estimatedTotalActiveUsers,
      int maxEstimatedTimeMinutes,
      boolean degraded,
      int effectiveNewUsersPerMinute,
      long lastUpdatedMillis,
      String configFingerprint,
      io.anteroom.room.ConfigAgreement.Verdict agreement,
      long overridesVersion) {}
}
