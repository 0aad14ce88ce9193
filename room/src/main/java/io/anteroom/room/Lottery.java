package io.anteroom.room;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Keyed draws over ticket ids: HMAC-SHA256 of {@code (context, ticket id, round)} under a secret
 * key that clients never see. Every admission point holding the same key draws the same numbers, so
 * gateways agree on a shuffled order or a minute's winners without talking to each other; a client
 * cannot predict its draw (its ticket id is sealed in the cookie and the key is secret) and cannot
 * improve it by asking again (the same ticket and round always draw the same number).
 *
 * <p>Not thread-safe (one {@link Mac}); each {@link RoomWorker} holds its own.
 */
public final class Lottery {
  private final Mac mac;

  /**
   * @param key the secret (at least 16 bytes); every gateway of a deployment must use the same
   */
  public Lottery(byte[] key) {
    if (key == null || key.length < 16) {
      throw new IllegalArgumentException("lottery key: at least 16 bytes are required");
    }
    try {
      mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
    } catch (InvalidKeyException e) {
      throw new IllegalArgumentException("lottery key: " + e.getMessage(), e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available in this JDK", e);
    }
  }

  /** A uniform number in {@code [0, 1)} for one ticket, context and round. */
  public double uniform(String context, long ticketId, long round) {
    mac.update(context.getBytes(StandardCharsets.UTF_8));
    mac.update(ByteBuffer.allocate(17).put((byte) 0).putLong(ticketId).putLong(round).array());
    long bits = ByteBuffer.wrap(mac.doFinal()).getLong();
    return (bits >>> 11) * 0x1.0p-53;
  }

  /** A place in {@code 0 .. places - 1} for one ticket and context, the same on every gateway. */
  public int place(String context, long ticketId, int places) {
    return (int) Math.min(places - 1, (long) (uniform(context, ticketId, 0) * places));
  }
}
