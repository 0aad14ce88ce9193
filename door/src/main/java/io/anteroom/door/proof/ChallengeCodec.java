package io.anteroom.door.proof;

import io.anteroom.door.config.GatewayConfig.TicketKey;
import io.anteroom.door.ticket.Hkdf;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Issues and opens proof-of-work challenges: 48 bytes, written as exactly 64 base64url characters
 * (one SHA-256 block, see {@link Work}):
 *
 * <pre>
 * 0x01 | keyId (1) | difficulty (1) | expiresAt (5, epoch seconds, big-endian) | nonce (12 random)
 *      | MAC (28: HMAC-SHA256 truncated)
 * </pre>
 *
 * The MAC covers the first 20 bytes, then the room's generation (8 bytes), the binding's length (2
 * bytes) and the binding (UTF-8, the client's address), then the room id (UTF-8, last, so the
 * encoding is unambiguous): a challenge answered from another address, for another room or another
 * generation of the room fails like a forged one. The MAC key is not a new secret but a subkey of
 * the ticket key with the same id: {@code HKDF-SHA256(ikm = secret, salt = "anteroom challenge
 * subkeys", info = "anteroom proof-of-work v1" | keyId)}, so a deployment's gateways, which share
 * ticket keys, share challenge keys, and no challenge MAC is ever an AES key.
 *
 * <p>Opening checks only the form and the MAC; expiry, the work and single use are {@link
 * DoorCheck}'s. Immutable and safe for concurrent use ({@link Mac} per thread).
 */
public final class ChallengeCodec {

  static final byte VERSION = 1;
  static final int BYTES = 48;
  static final int CHARS = 64;
  static final int NONCE_BYTES = io.anteroom.room.UsedChallenges.NONCE_BYTES;
  static final int SIGNED_BYTES = 20;
  static final int MAC_BYTES = BYTES - SIGNED_BYTES;

  private static final byte[] SALT =
      "anteroom challenge subkeys".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] INFO =
      "anteroom proof-of-work v1".getBytes(StandardCharsets.US_ASCII);

  private final SecretKeySpec[] byId = new SecretKeySpec[256];
  private final int sealingId;
  private final ThreadLocal<Mac[]> macs = ThreadLocal.withInitial(() -> new Mac[256]);

  /** A challenge as issued: its text and what it says. */
  public record Challenge(String text, int difficulty, long expiresAtSeconds, byte[] nonce) {}

  /**
   * @param keys the ticket keys (first one signs new challenges, any one opens)
   */
  public ChallengeCodec(List<TicketKey> keys) {
    if (keys.isEmpty()) {
      throw new IllegalArgumentException("ticketKeys: at least one key is needed");
    }
    for (TicketKey k : keys) {
      byte[] info = ByteBuffer.allocate(INFO.length + 1).put(INFO).put((byte) k.id()).array();
      byId[k.id()] =
          new SecretKeySpec(Hkdf.expand(Hkdf.extract(SALT, k.secret()), info, 32), "HmacSHA256");
    }
    this.sealingId = keys.getFirst().id();
  }

  /** A challenge for {@code binding} in room {@code roomId} of {@code generation}. */
  public Challenge issue(
      String roomId,
      long generation,
      String binding,
      int difficulty,
      long expiresAtSeconds,
      byte[] nonce) {
    if (nonce.length != NONCE_BYTES) {
      throw new IllegalArgumentException("nonce: " + NONCE_BYTES + " bytes expected");
    }
    byte[] b = new byte[BYTES];
    ByteBuffer buf = ByteBuffer.wrap(b);
    buf.put(VERSION).put((byte) sealingId).put((byte) difficulty);
    putSeconds(buf, expiresAtSeconds);
    buf.put(nonce);
    byte[] mac = mac(sealingId, b, roomId, generation, binding);
    System.arraycopy(mac, 0, b, SIGNED_BYTES, MAC_BYTES);
    return new Challenge(
        Base64.getUrlEncoder().withoutPadding().encodeToString(b),
        difficulty,
        expiresAtSeconds,
        nonce.clone());
  }

  /**
   * The challenge {@code text} says, if it is well formed and its MAC holds for this room,
   * generation and binding; empty otherwise (whatever the client sent).
   */
  public Optional<Challenge> open(String roomId, long generation, String binding, String text) {
    if (text == null || text.length() != CHARS) {
      return Optional.empty();
    }
    byte[] b;
    try {
      b = Base64.getUrlDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
    if (b.length != BYTES || b[0] != VERSION) {
      return Optional.empty();
    }
    int keyId = b[1] & 0xff;
    if (byId[keyId] == null) {
      return Optional.empty();
    }
    byte[] mac = mac(keyId, b, roomId, generation, binding);
    if (!MessageDigest.isEqual(
        java.util.Arrays.copyOf(mac, MAC_BYTES),
        java.util.Arrays.copyOfRange(b, SIGNED_BYTES, BYTES))) {
      return Optional.empty();
    }
    ByteBuffer buf = ByteBuffer.wrap(b, 3, 5 + NONCE_BYTES);
    long expires = 0;
    for (int i = 0; i < 5; i++) {
      expires = (expires << 8) | (buf.get() & 0xff);
    }
    byte[] nonce = new byte[NONCE_BYTES];
    buf.get(nonce);
    return Optional.of(new Challenge(text, b[2] & 0xff, expires, nonce));
  }

  private static void putSeconds(ByteBuffer buf, long seconds) {
    if (seconds < 0 || seconds >= 1L << 40) {
      throw new IllegalArgumentException("expiresAt out of range: " + seconds);
    }
    for (int shift = 32; shift >= 0; shift -= 8) {
      buf.put((byte) (seconds >>> shift));
    }
  }

  private byte[] mac(int keyId, byte[] challenge, String roomId, long generation, String binding) {
    Mac mac = macs.get()[keyId];
    try {
      if (mac == null) {
        mac = Mac.getInstance("HmacSHA256");
        mac.init(byId[keyId]);
        macs.get()[keyId] = mac;
      }
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JDK lacks HmacSHA256", e);
    }
    byte[] bind = binding.getBytes(StandardCharsets.UTF_8);
    mac.update(challenge, 0, SIGNED_BYTES);
    mac.update(ByteBuffer.allocate(10).putLong(generation).putShort((short) bind.length).array());
    mac.update(bind);
    mac.update(roomId.getBytes(StandardCharsets.UTF_8));
    return mac.doFinal();
  }
}
