package io.anteroom.room;

import java.time.Duration;
import java.time.Instant;

/**
 * One auditable draw of a room: the shuffle of a scheduled event's pre-queue, or one hour of {@code
 * random} queueing. Each draw has a secret of its own, {@code HMAC-SHA256(lottery key, draw)}
 * ({@link #secret}), that seeds its {@link Lottery}; the room publishes the draw's commitment,
 * {@code SHA-256("anteroom draw commitment v1" 0x00 secret)} ({@link #commitment}), before the draw
 * starts and the secret itself once no draw of it is left ({@link #revealAt}): the shuffle's start,
 * the hour's end. Anyone can then recompute every place from the secret and the receipts ({@link
 * DrawAudit}).
 *
 * <p>Why a secret per draw: the revealed secret gives away nothing else. HMAC is one-way, so it
 * reveals neither the deployment's lottery key nor its ticket key, and another draw's secret (of
 * another event, another hour) stays as unpredictable as before.
 *
 * <p>The rules below ({@link #place}, {@link #lot}) are the only ones: the room core decides with
 * them and {@code anteroom verify-draw} checks with them.
 *
 * @param roomId the room
 * @param kind a pre-queue shuffle or an hour of random queueing
 * @param event the event's name (a shuffle), null for random queueing
 * @param from the pre-queue's opening (a shuffle), the hour's start (random queueing)
 * @param revealAt when the secret is published: the event start (a shuffle, when every place is
 *     fixed and no ticket can join the pre-queue any more), the hour's end (random queueing, when
 *     no lot of the secret is drawn any more)
 */
public record Draw(String roomId, Kind kind, String event, Instant from, Instant revealAt) {

  /** What a draw decides. */
  public enum Kind {
    /** The places of an event's pre-queue at its start ({@link EventWindow#shuffle}). */
    SHUFFLE,
    /** The lots of one hour of {@code random} queueing ({@link QueueOrder#RANDOM}). */
    RANDOM;

    /** The name in receipts and in the published list. */
    public String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** The kind named {@code label}, or null. */
    public static Kind of(String label) {
      for (Kind k : values()) {
        if (k.label().equals(label)) {
          return k;
        }
      }
      return null;
    }
  }

  /** How long one secret of random queueing draws lots: an hour, UTC. */
  public static final Duration RANDOM_PERIOD = Duration.ofHours(1);

  public Draw {
    if (roomId == null || kind == null || from == null || revealAt == null) {
      throw new IllegalArgumentException("draw: room, kind, from and revealAt are required");
    }
    if ((kind == Kind.SHUFFLE) != (event != null)) {
      throw new IllegalArgumentException("draw: a shuffle names its event, random queueing none");
    }
    if (!revealAt.isAfter(from) && kind == Kind.RANDOM) {
      throw new IllegalArgumentException("draw: revealAt must come after from");
    }
  }

  /** The shuffle of {@code event}'s pre-queue (which it must have). */
  public static Draw shuffle(String roomId, EventWindow event) {
    if (event.prequeueFrom() == null) {
      throw new IllegalArgumentException("draw: event '" + event.name() + "' has no pre-queue");
    }
    return new Draw(roomId, Kind.SHUFFLE, event.name(), event.prequeueFrom(), event.opensAt());
  }

  /** The hour of random queueing that minute {@code minute} (UTC minutes since the epoch) is in. */
  public static Draw randomOfMinute(String roomId, long minute) {
    long perPeriod = RANDOM_PERIOD.toMinutes();
    Instant from = Minutes.startOf(Math.floorDiv(minute, perPeriod) * perPeriod);
    return new Draw(roomId, Kind.RANDOM, null, from, from.plus(RANDOM_PERIOD));
  }

  /** The hour of random queueing that {@code t} is in. */
  public static Draw randomAt(String roomId, Instant t) {
    return randomOfMinute(roomId, Minutes.minuteOf(t));
  }

  /** The UTC minute (minutes since the epoch) of {@code t}, as lots are drawn per minute. */
  public static long minuteOf(Instant t) {
    return Minutes.minuteOf(t);
  }

  /** Whether the secret may be published at {@code now}: never before {@link #revealAt}. */
  public boolean revealedAt(Instant now) {
    return !now.isBefore(revealAt);
  }

  /**
   * The shuffled place ({@code 0 .. SHUFFLE_PLACES - 1}) of ticket {@code ticketId}: {@link
   * Lottery#place} of the event's name and the ticket id, under this draw's lottery.
   */
  public int place(Lottery lottery, long ticketId) {
    if (kind != Kind.SHUFFLE) {
      throw new IllegalStateException("draw: only a shuffle gives places");
    }
    return lottery.place(event, ticketId, EventWindow.SHUFFLE_PLACES);
  }

  /**
   * The lot in {@code [0, 1)} of ticket {@code ticketId} in minute {@code minute} (of this draw's
   * hour): {@link Lottery#uniform} of the room id, the ticket id and the minute. The ticket may
   * draw a slot in that minute when its lot is below the minute's chance.
   */
  public double lot(Lottery lottery, long ticketId, long minute) {
    if (kind != Kind.RANDOM) {
      throw new IllegalStateException("draw: only random queueing draws lots");
    }
    return lottery.uniform(roomId, ticketId, minute);
  }

  /** Whether minute {@code minute} (UTC minutes since the epoch) is one of this draw's. */
  public boolean hasMinute(long minute) {
    return !Minutes.startOf(minute).isBefore(from) && Minutes.startOf(minute).isBefore(revealAt);
  }

  /** The lottery a secret seeds (its first 16 bytes are the SipHash key). */
  public static Lottery lotteryOf(byte[] secret) {
    return new Lottery(secret);
  }
}
