package io.anteroom.door.admission;

import io.anteroom.door.config.QueueingMethod;
import io.anteroom.room.Ticket;
import java.util.concurrent.CompletionStage;

/**
 * One room's admission on the request path: everything the door asks of the room core for one
 * request, with the ticket as the room core's {@link Ticket} (the door opens the cookie once and
 * seals the answer's ticket once). All formulas live behind this interface, in the {@code room}
 * module. Room control (reports, overrides, status, history) is {@link RoomControl}.
 *
 * <p>Threading: called from request threads (event loops, servlet threads) concurrently. {@link
 * #decide} must not block; for an admitted session it completes at once, otherwise it may complete
 * later on any thread.
 */
public interface RoomGate {

  /**
   * Decides for one request: {@code ticket} is the opened cookie, or null for a new user. An
   * admitted user with a live session is answered with an already completed stage (the hot path: no
   * remote call); others may wait for a counter object. A user the room core queues gets the room's
   * {@code queueingMethod} ({@link Outcome#queued}). Never fails for bad input; a failure of the
   * coordination is handled inside by the room's {@code failMode}.
   */
  CompletionStage<Verdict> decide(Ticket ticket, long nowMillis);

  /**
   * Whether {@link #decide} would give a request with {@code ticket} a new identity (a new ticket
   * id): no ticket, a session that is over or was ended, a copy of a waiting ticket let in before.
   * Counts nothing. The door makes such a request pay its checks (proof of work) like a newcomer.
   */
  boolean startsOver(Ticket ticket, long nowMillis);

  /**
   * Gives back the admission {@code admitted} that {@link #decide} just gave the waiting ticket
   * {@code waiting} ({@link io.anteroom.room.RoomWorker#giveBack}): its slot is free again. With
   * {@code keepWaiting}, the verdict that queues the user again with its ticket; otherwise null.
   */
  default Verdict giveBack(Ticket admitted, Ticket waiting, boolean keepWaiting, long nowMillis) {
    return null;
  }

  /** The origin answered {@code Anteroom-Command: revoke}: the session of this ticket ends. */
  void revoke(Ticket ticket, long nowMillis);

  /**
   * An admitted user's first request after its admission is passed to the origin: counted for the
   * room's reports ({@code passesUsed}). The door calls it once per admission ({@link
   * Ticket#unused()}); a gate without reports counts nothing.
   */
  default void passUsed(long nowMillis) {}

  /**
   * Claims a proof-of-work challenge for the whole deployment: true the first time its nonce is
   * claimed. A gate without shared coordination has only the door's own memory of used challenges,
   * which the caller has already checked, and answers true.
   */
  default CompletionStage<Boolean> claimChallenge(String nonce, long expiresAtMillis) {
    return java.util.concurrent.CompletableFuture.completedFuture(true);
  }

  /**
   * An account's one place in the room for the whole deployment ({@link
   * io.anteroom.room.AccountPlaces#place}). A gate without shared coordination fails the call: the
   * door's own memory of places decides.
   */
  default CompletionStage<io.anteroom.room.AccountPlaces.Reply> place(
      String account, io.anteroom.room.AccountPlaces.Place offer, long replacesId) {
    return java.util.concurrent.CompletableFuture.failedFuture(
        new UnsupportedOperationException("no shared coordination"));
  }

  /**
   * The room's auditable draws (the pre-queue shuffle, random queueing's lots): their secrets,
   * commitments and lotteries, the same on every gateway of the deployment; null for a gate that
   * draws nothing.
   */
  default DrawSecrets draws() {
    return null;
  }

  /**
   * The room state decisions are made with now (null: a gate without one). The queue page's push
   * ({@link io.anteroom.door.queue.HeldPolls}) reads it.
   */
  default io.anteroom.room.RoomState lastState() {
    return null;
  }

  /**
   * Calls {@code listener} with every newer room state the gate applies, on the thread that applies
   * it (it must not block). A gate without states never calls it.
   */
  default void onNewState(java.util.function.Consumer<io.anteroom.room.RoomState> listener) {}

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
  record Verdict(Outcome outcome, Ticket ticket, QueueView queue) {}

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
   * @param place the user's approximate place in line (null: not known)
   */
  record QueueView(
      boolean waitTimeKnown,
      int waitTimeMinutes,
      int waitTime25Percentile,
      int waitTime50Percentile,
      int waitTime75Percentile,
      long lastUpdatedMillis,
      io.anteroom.room.PlaceInLine place) {

    /** A view without a place in line. */
    public QueueView(
        boolean waitTimeKnown,
        int waitTimeMinutes,
        int waitTime25Percentile,
        int waitTime50Percentile,
        int waitTime75Percentile,
        long lastUpdatedMillis) {
      this(
          waitTimeKnown,
          waitTimeMinutes,
          waitTime25Percentile,
          waitTime50Percentile,
          waitTime75Percentile,
          lastUpdatedMillis,
          null);
    }

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
