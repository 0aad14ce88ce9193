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
 * counter: with limit 0 early in a minute, when a decision first asks every counter what it carries
 * of the previous minute ({@link Draw#asksForLateNumbers}), and for a number when a whole-bucket
 * user's own counters refused it; the caller sends it like any other draw, to the counter it names.
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
     * Whether a whole-bucket user of this decision needs a number: the late numbers its questions
     * found ({@link LateNumbers}) leave the pool without the whole buckets' slots.
     */
    final boolean carriedEarlier;

    /**
     * For a draw that only asks a counter what it carries of the previous minute: the decision's
     * questions so far; {@code null} for a draw for a number.
     */
    final LateNumbers late;

    /**
     * For a whole-bucket user's draw: the pool {@code G} it draws against, whose split gives each
     * counter's limit, also another data center's ({@link RoomWorker#onCounterReply}); -1 for other
     * draws.
     */
    final long wholeBucketPool;

    /**
     * What a decision learns before it draws a number early in a minute ({@link
     * RoomWorker#onCounterReply}): the minute's pool as the decision began ({@code pool}), the
     * slots set aside there for whole buckets ({@code wholeBucketsWaiting}), the counters still to
     * ask (data centers, and the Anywhere counter as {@link CounterKey#ANYWHERE}) and the late
     * numbers those asked so far carry, {@code carried}. Once every counter answered, the late
     * numbers come off the pool's {@code R} before it is split ({@link
     * MinutePool#availableWithout}).
     */
    record LateNumbers(
        MinutePool pool, long wholeBucketsWaiting, java.util.List<String> left, long carried) {}

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
          null,
          -1);
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
        long wholeBucketPool) {
      this.wholeBucketPool = wholeBucketPool;
      this.late = late;
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
     * For a question ({@link #asksForLateNumbers}): the counter answers its numbers of the previous
     * minute consumed at or after this instant ({@code asOf - W} of the state behind the pool), the
     * admissions that state may not count yet. {@code null} on a draw for a number: its limit
     * counts the minute's numbers only (the decision took the late ones off the pool).
     */
    public Instant carriedSince() {
      return carriedSince;
    }

    /**
     * Whether this draw only asks a counter what it carries of the previous minute (limit 0: it
     * grants nothing and consumes nothing), before the decision draws a number.
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
