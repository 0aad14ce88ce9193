package io.anteroom.room;

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

  /** The start of the user's bucket minute. */
  public Instant bucketStart() {
    return Minutes.startOf(bucketId);
  }

  /** The bucket ({@code bucketId}) of a user first arriving at {@code t}. */
  public static long bucketOf(Instant t) {
    return Minutes.minuteOf(t);
  }
}
