package io.anteroom.room;

/**
 * Where each {@link Draw}'s lottery comes from: the lottery its secret seeds. Every worker of a
 * room, in every process, must use the same (or they disagree on the order). The gateway's
 * implementation derives a secret per draw from the deployment's lottery key (door module, {@code
 * DrawSecrets}); {@link #unkeyed} is for the simulator and callers without a secret.
 */
public interface DrawKeys {

  /** The lottery of {@code draw}. */
  Lottery lottery(Draw draw);

  /**
   * Lotteries keyed by {@code seed} and the draw only (a mix of their hashes): anyone who knows the
   * seed can compute them, so they are for the simulator and tests, never for a room with a crowd.
   */
  static DrawKeys unkeyed(String seed) {
    return draw -> {
      long h = 0xcbf29ce484222325L;
      String identity =
          seed
              + "\n"
              + draw.kind()
              + "\n"
              + draw.roomId()
              + "\n"
              + draw.event()
              + "\n"
              + draw.from();
      for (int i = 0; i < identity.length(); i++) {
        h = (h ^ identity.charAt(i)) * 0x100000001b3L;
      }
      byte[] key = new byte[16];
      long a = mix(h);
      long b = mix(a ^ 0x9E3779B97F4A7C15L);
      for (int i = 0; i < 8; i++) {
        key[i] = (byte) (a >>> (8 * i));
        key[8 + i] = (byte) (b >>> (8 * i));
      }
      return new Lottery(key);
    };
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 33)) * 0xFF51AFD7ED558CCDL;
    z = (z ^ (z >>> 33)) * 0xC4CEB9FE1A85EC53L;
    return z ^ (z >>> 33);
  }
}
