package io.anteroom.room;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The draws of a deployment under its lottery key: each {@link Draw}'s secret, commitment and
 * lottery, the same on every gateway holding the key, and the secret given out only once the draw
 * is over ({@link #revealed}).
 *
 * <p>Thread-safe: the lotteries of recent draws are kept (at most {@value #KEPT}), so a request
 * pays one HMAC per draw, not one per request.
 */
public final class Draws {
  static final int KEPT = 256;

  private final byte[] key;
  private final Map<Draw, Lottery> lotteries = new ConcurrentHashMap<>();

  /**
   * @param lotteryKey the deployment's lottery key (at least 16 bytes; the same on every gateway)
   */
  public Draws(byte[] lotteryKey) {
    if (lotteryKey == null || lotteryKey.length < 16) {
      throw new IllegalArgumentException("lottery key: at least 16 bytes are required");
    }
    this.key = lotteryKey.clone();
  }

  /**
   * Draws keyed by {@code seed} only (SHA-256 of it), for the simulator and callers without a
   * secret: anyone who knows the seed can compute them.
   */
  public static Draws unkeyed(String seed) {
    try {
      return new Draws(
          MessageDigest.getInstance("SHA-256").digest(seed.getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is not available in this JDK", e);
    }
  }

  /** The draw's secret (never to be shown before {@link Draw#revealAt}). */
  public byte[] secret(Draw draw) {
    return draw.secret(key);
  }

  /** The draw's commitment, published from the start. */
  public String commitment(Draw draw) {
    return Draw.commitment(secret(draw));
  }

  /** The draw's secret if it may be published at {@code now} (from {@link Draw#revealAt} on). */
  public Optional<byte[]> revealed(Draw draw, Instant now) {
    return draw.revealedAt(now) ? Optional.of(secret(draw)) : Optional.empty();
  }

  /** The lottery the draw's secret seeds. */
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
}
