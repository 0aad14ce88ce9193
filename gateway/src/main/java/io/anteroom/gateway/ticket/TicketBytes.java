package io.anteroom.gateway.ticket;

import io.anteroom.room.Ticket;
import java.nio.ByteBuffer;
import java.time.Instant;

/**
 * The plaintext layout of a room {@link Ticket} inside the sealed cookie: {@code version(1) |
 * bucketId(8) | lastCheckInTime ms(8) | acceptedAt ms(8, -1 while waiting) | refreshSlotKey(8)}.
 * The room id is not stored: it is the AES-GCM associated data, so a ticket of another room does
 * not even decrypt.
 */
public final class TicketBytes {

  private static final byte VERSION = 1;
  static final int LENGTH = 1 + 4 * Long.BYTES;

  private TicketBytes() {}

  public static byte[] encode(Ticket t) {
    return ByteBuffer.allocate(LENGTH)
        .put(VERSION)
        .putLong(t.bucketId())
        .putLong(t.lastCheckInTime().toEpochMilli())
        .putLong(t.acceptedAt() == null ? -1 : t.acceptedAt().toEpochMilli())
        .putLong(t.refreshSlotKey())
        .array();
  }

  /** The ticket, or null when the bytes are not a ticket of this layout (then the user is new). */
  public static Ticket decode(String roomId, byte[] bytes) {
    if (bytes == null || bytes.length != LENGTH || bytes[0] != VERSION) {
      return null;
    }
    ByteBuffer b = ByteBuffer.wrap(bytes, 1, LENGTH - 1);
    long bucket = b.getLong();
    long checkIn = b.getLong();
    long accepted = b.getLong();
    long key = b.getLong();
    if (checkIn < 0 || bucket < 0) {
      return null;
    }
    return new Ticket(
        roomId,
        bucket,
        Instant.ofEpochMilli(checkIn),
        accepted < 0 ? null : Instant.ofEpochMilli(accepted),
        key);
  }
}
