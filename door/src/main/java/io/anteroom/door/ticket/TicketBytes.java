package io.anteroom.door.ticket;

import io.anteroom.room.Ticket;
import java.nio.ByteBuffer;
import java.time.Instant;

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
   * Whether {@code bytes} are of the current layout (version 2). A ticket read from an older layout
   * is sealed again on its next request, whatever the room's renewal rule says.
   */
  public static boolean currentLayout(byte[] bytes) {
    return bytes != null && bytes.length == LENGTH && bytes[0] == VERSION;
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
