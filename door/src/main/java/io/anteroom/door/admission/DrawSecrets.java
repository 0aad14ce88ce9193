package io.anteroom.door.admission;

import io.anteroom.room.Draw;
import io.anteroom.room.DrawAudit;
import io.anteroom.room.DrawKeys;
import io.anteroom.room.Lottery;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The secrets of a deployment's draws ({@link Draw}) under its lottery key: each draw's secret is
 * {@code HMAC-SHA256(lottery key, identity)} ({@link #secret}), its identity the length-prefixed
 * fields {@code "anteroom draw secret v1", kind, room id, event name (or ""), from}; its commitment
 * is {@code SHA-256("anteroom draw commitment v1" 0x00 secret)} in hex ({@link #commitment}); the
 * secret is given out only from {@link Draw#revealAt} on ({@link #revealed}).
 *
 * <p>Why a secret per draw: HMAC is one-way, so a revealed secret gives away neither the lottery
 * key (nor the ticket key it is derived from) nor another draw's secret: the next event, the next
 * hour stay as unpredictable as before.
 *
 * <p>Thread-safe: the lotteries of recent draws are kept (at most {@value #KEPT}), so a request
 * pays one HMAC per draw, not one per request.
 */
public final class DrawSecrets implements DrawKeys {
  static final int KEPT = 256;

  private static final byte[] COMMITMENT_LABEL =
      "anteroom draw commitment v1".getBytes(StandardCharsets.UTF_8);

  private final byte[] key;
  private final Map<Draw, Lottery> lotteries = new ConcurrentHashMap<>();

  /**
   * @param lotteryKey the deployment's lottery key (at least 16 bytes; the same on every gateway)
   */
  public DrawSecrets(byte[] lotteryKey) {
    if (lotteryKey == null || lotteryKey.length < 16) {
      throw new IllegalArgumentException("lottery key: at least 16 bytes are required");
    }
    this.key = lotteryKey.clone();
  }

  /**
   * Secrets keyed by {@code seed} only (its SHA-256), for tests and callers without a secret:
   * anyone who knows the seed can compute them.
   */
  public static DrawSecrets unkeyed(String seed) {
    return new DrawSecrets(sha256(seed.getBytes(StandardCharsets.UTF_8)));
  }

  /** The draw's secret (never to be shown before {@link Draw#revealAt}). */
  public byte[] secret(Draw draw) {
    try {
      var mac = javax.crypto.Mac.getInstance("HmacSHA256");
      mac.init(new javax.crypto.spec.SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(identity(draw));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available in this JDK", e);
    }
  }

  /** The draw's commitment, published from the start. */
  public String commitment(Draw draw) {
    return commitment(secret(draw));
  }

  /** The draw's secret if it may be published at {@code now} (from {@link Draw#revealAt} on). */
  public Optional<byte[]> revealed(Draw draw, Instant now) {
    return draw.revealedAt(now) ? Optional.of(secret(draw)) : Optional.empty();
  }

  @Override
  public Lottery lottery(Draw draw) {
    Lottery kept = lotteries.get(draw);
    if (kept != null) {
      return kept;
    }
    if (lotteries.size() >= KEPT) {
      lotteries.clear();
    }
    Lottery made = Draw.lotteryOf(secret(draw));
    lotteries.putIfAbsent(draw, made);
    return made;
  }

  /** What the secret is derived from: the draw's identity, each field length-prefixed. */
  static byte[] identity(Draw d) {
    var out = new ByteArrayOutputStream();
    for (String field :
        new String[] {
          "anteroom draw secret v1",
          d.kind().label(),
          d.roomId(),
          d.event() == null ? "" : d.event(),
          d.from().toString()
        }) {
      byte[] b = field.getBytes(StandardCharsets.UTF_8);
      out.write(b.length >>> 8);
      out.write(b.length);
      out.writeBytes(b);
    }
    return out.toByteArray();
  }

  /**
   * The commitment to a secret, in lower-case hex: {@code SHA-256("anteroom draw commitment v1"
   * 0x00 secret)}.
   */
  public static String commitment(byte[] secret) {
    byte[] labelled = new byte[COMMITMENT_LABEL.length + 1 + secret.length];
    System.arraycopy(COMMITMENT_LABEL, 0, labelled, 0, COMMITMENT_LABEL.length);
    System.arraycopy(secret, 0, labelled, COMMITMENT_LABEL.length + 1, secret.length);
    return HexFormat.of().formatHex(sha256(labelled));
  }

  /**
   * Whether {@code secret} is the one committed to by {@code commitmentHex} (any case, trimmed).
   */
  public static boolean holds(byte[] secret, String commitmentHex) {
    byte[] given;
    try {
      given = HexFormat.of().parseHex(commitmentHex.strip().toLowerCase(java.util.Locale.ROOT));
    } catch (IllegalArgumentException | NullPointerException e) {
      return false;
    }
    return MessageDigest.isEqual(HexFormat.of().parseHex(commitment(secret)), given);
  }

  /**
   * A revealed draw checked: whether {@code secret} is the committed one, and {@code receipts}
   * recomputed from it ({@link DrawAudit}).
   */
  public static Audit audit(
      Draw draw, byte[] secret, String commitmentHex, List<DrawAudit.Receipt> receipts) {
    return new Audit(
        holds(secret, commitmentHex), DrawAudit.verify(draw, Draw.lotteryOf(secret), receipts));
  }

  /** The result of {@link #audit}. */
  public record Audit(boolean commitmentHolds, DrawAudit.Result receipts) {
    /** The commitment holds and every receipt matches. */
    public boolean verified() {
      return commitmentHolds && receipts.allMatch();
    }
  }

  private static byte[] sha256(byte[] b) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(b);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is not available in this JDK", e);
    }
  }
}
