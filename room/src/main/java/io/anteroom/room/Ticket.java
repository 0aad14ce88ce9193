package io.anteroom.room;

import java.time.Duration;
import java.time.Instant;

/**
 * What a user's cookie says (the gateway encrypts it; this is only the data).
 *
 * <p>A ticket is <em>waiting</em> while {@code acceptedAt} is {@code null} and <em>admitted</em>
 * after. An admitted ticket is valid while {@code now - lastCheckInTime < S} ({@code now -
 * acceptedAt < S} when the room disables session renewal); a waiting one keeps its bucket while
 * {@code now - lastCheckInTime < queueTimeout}. {@code refreshSlotKey} is the key under which a
 * waiting user is currently counted (see {@code waiting-room.md}, "Counting without per-user
 * state"), so that its next refresh can move the count instead of adding one; it is 0 for admitted
 * tickets.
 *
 * <p>{@code id} names one user's place: it is drawn at random when a user first gets a ticket, kept
 * while the user waits and when it is admitted, and new again only when the user starts over (a new
 * arrival, an ended session). The gateway remembers ids it admitted or revoked ({@link
 * TicketLedger}), so that copies of one cookie cannot be admitted, revoked or renewed more than
 * once (see {@code docs/security.md}).
 *
 * @param roomId the room this ticket belongs to; a ticket of another room makes the user new
 * @param id the user's random ticket id (never 0 in tickets the room issues)
 * @param bucketId the UTC minute (minutes since the epoch) of the user's first arrival: its place
 *     in the queue
 * @param lastCheckInTime when the user was last seen
 * @param acceptedAt when the user was first admitted; {@code null} while waiting
 * @param refreshSlotKey the waiting ledger key the user is counted under; 0 when not counted as
 *     waiting
 */
public record Ticket(
    String roomId,
    long id,
    long bucketId,
    Instant lastCheckInTime,
    Instant acceptedAt,
    long refreshSlotKey) {

  public Ticket {
    if (roomId == null || lastCheckInTime == null) {
      throw new IllegalArgumentException("ticket: roomId and lastCheckInTime are required");
    }
  }

  /** Whether the user has been admitted. */
  public boolean admitted() {
    return acceptedAt != null;
  }

  /**
   * Whether this admitted ticket was not used at the origin since its admission: its check-in is
   * still its admission (the user was let in by a queue page's status poll, which does not reach
   * the origin). The request that uses it counts the admission's pass as used ({@code passesUsed}
   * in reports) and carries a renewed, sealed ticket, which is no longer unused.
   */
  public boolean unused() {
    return acceptedAt != null && lastCheckInTime.equals(acceptedAt);
  }

  /**
   * This ticket, admitted on a request that reaches the origin, marked as used: its check-in one
   * millisecond after its admission (so {@link #unused()} is false and the pass is counted once);
   * unchanged when that would cross into the next minute (the session's expiry minute, which the
   * room counted, must not move), or when not admitted.
   */
  public Ticket markedUsed() {
    if (!unused()) {
      return this;
    }
    Instant later = lastCheckInTime.plusMillis(1);
    if (Minutes.minuteOf(later) != Minutes.minuteOf(lastCheckInTime)) {
      return this;
    }
    return new Ticket(roomId, id, bucketId, later, acceptedAt, refreshSlotKey);
  }

  /** The start of the user's bucket minute. */
  public Instant bucketStart() {
    return Minutes.startOf(bucketId);
  }

  /**
   * How much of a session a renewal may leave unsealed: a sixtieth of it (one second per minute of
   * {@code S}), the most by which skipping a renewal can shorten a session.
   */
  public static final int UNSEALED_RENEWAL_FRACTION = 60;

  /**
   * Whether the room's renewal {@code renewed} of the admitted ticket {@code sent} may be left
   * unsealed, the user keeping the cookie that brought {@code sent}: both are equal in every field
   * but {@code lastCheckInTime}; both check-in times fall in the same UTC minute; and the renewal
   * is less than {@code session /} {@value #UNSEALED_RENEWAL_FRACTION} after the cookie's check-in.
   *
   * <p>Why this is safe: the room counts a session by the minute of its last check-in (its expiry
   * minute moves at most once a minute) and the user's traffic once per minute, so a renewal within
   * the cookie's minute changes no count. What it does change is when the session ends: S after the
   * cookie's check-in instead of S after this request, so the bound keeps every session at least
   * 59/60 of S after the user's last request (a user active every 20 s in a one-minute session gets
   * a new cookie on every request; in an hour-long session, once a minute). Any other difference
   * (another id, a cleared refresh slot key) needs the renewed ticket sealed. A server that stores
   * tickets in an older layout must also seal (that is its own rule, not the room's).
   */
  public static boolean renewalCanWait(Ticket sent, Ticket renewed, Duration session) {
    if (sent == null
        || renewed == null
        || sent.unused() // its first use: the renewed cookie says so
        || sent.id != renewed.id
        || sent.bucketId != renewed.bucketId
        || sent.refreshSlotKey != renewed.refreshSlotKey
        || !sent.roomId.equals(renewed.roomId)
        || !java.util.Objects.equals(sent.acceptedAt, renewed.acceptedAt)) {
      return false;
    }
    long cookie = sent.lastCheckInTime.toEpochMilli();
    long now = renewed.lastCheckInTime.toEpochMilli();
    return Math.floorDiv(cookie, 60_000L) == Math.floorDiv(now, 60_000L)
        && now >= cookie
        && now - cookie < session.toMillis() / UNSEALED_RENEWAL_FRACTION;
  }

  /** The bucket ({@code bucketId}) of a user first arriving at {@code t}. */
  public static long bucketOf(Instant t) {
    return Minutes.minuteOf(t);
  }
}
