package io.anteroom.room;

import java.time.Instant;

/**
 * The outcome of {@link RoomWorker#decide} for one request: admit, queue, or draw a number from a
 * counter first.
 *
 * <p>{@link Draw} keeps the decision pure when the counters strategy needs a counter object's
 * answer: the caller calls {@code take(draw, now)} on the counter named by {@code draw.counter()}
 * (in-DC ~5 ms, Anywhere ~65 ms in production; a delayed event in the simulator) and hands the
 * {@link Grant} to {@link RoomWorker#onCounterReply}, which returns the next {@code Decision}
 * (possibly another {@code Draw}, on the Anywhere counter). A draw may name another data center's
 * counter, with limit 0: early in a minute, a decision first asks the other data centers' counters
 * what they carry of the previous minute ({@link Draw#asksForLateNumbers}); the caller sends it
 * like any other draw, to the counter it names.
 */
public sealed interface Decision {

  /** The ticket to hand back to the user (as a cookie); for {@link Draw} the one it holds now. */
  Ticket ticket();

  /**
   * Let the user through.
   *
   * @param ticket the renewed or new admitted ticket
   * @param reason why
   */
  record Admit(Ticket ticket, AdmitReason reason) implements Decision {}

  /**
   * Show the queue.
   *
   * @param ticket the waiting ticket (bucket and refresh key updated); {@code null} when the user
   *     keeps the cookie it has (a tab racing its own admission: its cookie jar already holds the
   *     admitted ticket, which a new waiting ticket must not replace)
   * @param estimate the estimated wait
   */
  record Queue(Ticket ticket, WaitEstimate estimate) implements Decision {}

  /** Ask a counter for a number, then call {@link RoomWorker#onCounterReply}. */
  final class Draw implements Decision {
    final CounterKey counter;
    final long limit;
    final Ticket prior;
    final long bucketId;
    final boolean wholeBucket;
    final long anywhereLimit;

    /** When the decision that led to this draw began (the first draw's time, for a second). */
    final Instant decidedAt;

    /** See {@link #carriedSince()}; {@code null} when nothing is carried. */
    final Instant carriedSince;

    /**
     * Whether a whole-bucket user of this decision needs a number: an earlier counter of this
     * decision counted carried numbers against it or, when {@link #lateKnown}, the counters carried
     * more than the new users' part of the pool holds.
     */
    final boolean carriedEarlier;

    /**
     * Whether this decision asked every counter for its late numbers first ({@link LateNumbers}):
     * its limits then account for them, and the numbers a counter answers as carried no longer
     * decide whether a whole-bucket user needs a number ({@link #carriedEarlier} does).
     */
    final boolean lateKnown;

    /**
     * Of {@link #limit}, what this decision held back for the other counters' late numbers beyond
     * their shares ({@link LateNumbers}): not numbers of this counter, so not beyond its share.
     */
    final long heldBack;

    /**
     * For a draw that only asks another data center's counter for its late numbers: the draw to
     * make once every other data center answered; {@code null} for a draw for a number.
     */
    final LateNumbers late;

    /**
     * What a decision learns from the room's counters before it draws a number ({@link
     * RoomWorker#onCounterReply}): the draw it plans (its data center's limit, whether it asks its
     * data center's counter at all, the Anywhere limit), the counters still to ask (every data
     * center's and the Anywhere counter, {@link CounterKey#ANYWHERE}) with their shares of the
     * pool, and what those asked so far carried; {@code newUsersPool} is {@code G'(t)}, the part of
     * the pool left to new users and the partial bucket, in which the late numbers must fit for a
     * whole-bucket user to enter without a number.
     */
    record LateNumbers(
        long dataCenterLimit,
        boolean asksDataCenter,
        long anywhereLimit,
        long newUsersPool,
        java.util.List<Share> left,
        java.util.List<Carried> answered) {}

    /**
     * A counter to ask (a data center, or {@link CounterKey#ANYWHERE}) and its share of the
     * minute's pool, as this decision's state splits it.
     */
    record Share(String dataCenter, long slots) {}

    /** What a counter of {@link Share} carried of the previous minute. */
    record Carried(Share share, long numbers) {}

    Draw(
        CounterKey counter,
        long limit,
        Ticket prior,
        long bucketId,
        boolean wholeBucket,
        long anywhereLimit,
        Instant decidedAt,
        Instant carriedSince,
        boolean carriedEarlier) {
      this(
          counter,
          limit,
          prior,
          bucketId,
          wholeBucket,
          anywhereLimit,
          decidedAt,
          carriedSince,
          carriedEarlier,
          null);
    }

    Draw(
        CounterKey counter,
        long limit,
        Ticket prior,
        long bucketId,
        boolean wholeBucket,
        long anywhereLimit,
        Instant decidedAt,
        Instant carriedSince,
        boolean carriedEarlier,
        LateNumbers late) {
      this(
          counter,
          limit,
          prior,
          bucketId,
          wholeBucket,
          anywhereLimit,
          decidedAt,
          carriedSince,
          carriedEarlier,
          late,
          0,
          false);
    }

    Draw(
        CounterKey counter,
        long limit,
        Ticket prior,
        long bucketId,
        boolean wholeBucket,
        long anywhereLimit,
        Instant decidedAt,
        Instant carriedSince,
        boolean carriedEarlier,
        LateNumbers late,
        long heldBack,
        boolean lateKnown) {
      this.late = late;
      this.heldBack = heldBack;
      this.lateKnown = lateKnown;
      this.counter = counter;
      this.limit = limit;
      this.prior = prior;
      this.bucketId = bucketId;
      this.wholeBucket = wholeBucket;
      this.anywhereLimit = anywhereLimit;
      this.decidedAt = decidedAt;
      this.carriedSince = carriedSince;
      this.carriedEarlier = carriedEarlier;
    }

    /**
     * The counter counts against {@link #limit} its numbers of the previous minute consumed at or
     * after this instant ({@code asOf - W} of the state behind the pool): the admissions that state
     * may not count yet. {@code null} (published rules, strategies without counters): none.
     */
    public Instant carriedSince() {
      return carriedSince;
    }

    /**
     * Whether this draw only asks another data center's counter what it carries of the previous
     * minute (limit 0: it grants nothing and consumes nothing), before the decision draws a number.
     */
    public boolean asksForLateNumbers() {
      return late != null;
    }

    /** The counter (and minute) to draw from. */
    public CounterKey counter() {
      return counter;
    }

    /** The limit to pass to {@code take}. */
    public long limit() {
      return limit;
    }

    /** The ticket the user came with ({@code null} for a new user). */
    @Override
    public Ticket ticket() {
      return prior;
    }

    @Override
    public String toString() {
      return "Draw[" + counter + ", limit=" + limit + "]";
    }
  }

  /** Why a user was admitted. */
  enum AdmitReason {
    /** A valid admitted ticket, renewed. */
    SESSION,
    /** The user's whole bucket has slots. */
    WHOLE_BUCKET,
    /** A slot of the worker's own count (even split, utilization-scaled). */
    WORKER_SLOT,
    /** A number below the data center counter's limit. */
    DATA_CENTER_SLOT,
    /** A number below the Anywhere counter's limit. */
    ANYWHERE_SLOT
  }
}
