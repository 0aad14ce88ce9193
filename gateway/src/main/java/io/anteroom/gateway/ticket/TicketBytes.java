package io.anteroom.gateway.ticket;

import io.anteroom.room.Ticket;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Arrays;

/**
 * The plaintext layout of a room {@link Ticket} inside the sealed cookie: {@code version(1) = 2 |
 * id(8) | bucketId(8) | lastCheckInTime ms(8) | acceptedAt ms(8, -1 while waiting) |
 * refreshSlotKey(8)}. The room id is not stored: it is the AES-GCM associated data, so a ticket of
 * another room does not even decrypt.
 *
 * <p>Version 1 (the same without {@code id}, written before tickets had ids) is still read, so an
 * upgrade keeps everyone's place and session: such a ticket gets an id derived from its content (an
 * admitted one from its bucket and admission time, which renewals keep), and is rewritten as
 * version 2 on its next request.
 */
public final class TicketBytes {

  private static final byte VERSION = 2;
  static final int LENGTH = 1 + 5 * Long.BYTES;
  private static final byte VERSION_1 = 1;
  private static final int LENGTH_1 = 1 + 4 * Long.BYTES;

  /** Where {@code lastCheckInTime} starts in a version 2 ticket: after version, id and bucket. */
  private static final int CHECK_IN = 1 + 2 * Long.BYTES;

  /** The room's minute: UTC minutes since the epoch, floor ({@code room} module's Minutes). */
  private static final long MILLIS_PER_MINUTE = 60_000;

  private TicketBytes() {}

  public static byte[] encode(Ticket t) {
    return ByteBuffer.allocate(LENGTH)
        .put(VERSION)
        .putLong(t.id())
        .putLong(t.bucketId())
        .putLong(t.lastCheckInTime().toEpochMilli())
        .putLong(t.acceptedAt() == null ? -1 : t.acceptedAt().toEpochMilli())
        .putLong(t.refreshSlotKey())
        .array();
  }

  /** The ticket, or null when the bytes are not a ticket of this layout (then the user is new). */
  public static Ticket decode(String roomId, byte[] bytes) {
    if (bytes == null || bytes.length < 1) {
      return null;
    }
    boolean v1 = bytes[0] == VERSION_1 && bytes.length == LENGTH_1;
    if (!v1 && (bytes[0] != VERSION || bytes.length != LENGTH)) {
      return null;
    }
    ByteBuffer b = ByteBuffer.wrap(bytes, 1, bytes.length - 1);
    long id = v1 ? 0 : b.getLong();
    long bucket = b.getLong();
    long checkIn = b.getLong();
    long accepted = b.getLong();
    long key = b.getLong();
    if (checkIn < 0 || bucket < 0 || (!v1 && id == 0)) {
      return null;
    }
    if (v1) {
      id = accepted < 0 ? mix(mix(bucket, checkIn), key) : mix(bucket, accepted);
    }
    return new Ticket(
        roomId,
        id,
        bucket,
        Instant.ofEpochMilli(checkIn),
        accepted < 0 ? null : Instant.ofEpochMilli(accepted),
        key);
  }

  /**
   * How much of a session a renewal may leave unsealed: a sixtieth of it (one second per minute of
   * {@code S}), the most by which skipping a renewal can shorten a session.
   */
  public static final int UNSEALED_RENEWAL_FRACTION = 60;

  /**
   * Whether the room's renewal {@code renewed} of an admitted ticket may be left unsealed, the user
   * keeping the cookie that brought {@code sent}: both are of the current layout, equal in every
   * field but {@code lastCheckInTime}; both check-in times fall in the same UTC minute; and the
   * renewal is less than {@code sessionMillis /} {@value #UNSEALED_RENEWAL_FRACTION} after the
   * cookie's check-in.
   *
   * <p>Why this is safe: the room counts a session by the minute of its last check-in (its expiry
   * minute moves at most once a minute) and the user's traffic once per minute, so a renewal within
   * the cookie's minute changes no count. What it does change is when the session ends: S after the
   * cookie's check-in instead of S after this request, so the bound keeps every session at least
   * 59/60 of S after the user's last request (a user active every 20 s in a one-minute session gets
   * a new cookie on every request; in an hour-long session, once a minute). Any other difference
   * (another id, a cleared refresh slot key, a version 1 ticket to upgrade) needs the renewed
   * ticket sealed. This check is two array comparisons, where sealing costs a nonce, AES-GCM and
   * base64 on every request of a page's burst of requests.
   */
  public static boolean renewalCanWait(byte[] sent, byte[] renewed, long sessionMillis) {
    if (sent == null
        || renewed == null
        || sent.length != LENGTH
        || renewed.length != LENGTH
        || sent[0] != VERSION
        || renewed[0] != VERSION
        || !Arrays.equals(sent, 0, CHECK_IN, renewed, 0, CHECK_IN)
        || !Arrays.equals(
            sent, CHECK_IN + Long.BYTES, LENGTH, renewed, CHECK_IN + Long.BYTES, LENGTH)) {
      return false;
    }
    long cookie = checkInMillis(sent);
    long now = checkInMillis(renewed);
    return Math.floorDiv(cookie, MILLIS_PER_MINUTE) == Math.floorDiv(now, MILLIS_PER_MINUTE)
        && now >= cookie
        && now - cookie < sessionMillis / UNSEALED_RENEWAL_FRACTION;
  }

  private static long checkInMillis(byte[] ticket) {
    return ByteBuffer.wrap(ticket, CHECK_IN, Long.BYTES).getLong();
  }

  /** A 64-bit mix of two values (SplitMix64's finalizer over their combination), never 0. */
  private static long mix(long a, long b) {
    long z = a * 0x9E3779B97F4A7C15L + b;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    z ^= z >>> 31;
    return z == 0 ? 1 : z;
  }
}
