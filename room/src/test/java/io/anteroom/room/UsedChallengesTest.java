package io.anteroom.room;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.anteroom.room.UsedChallenges.Use;
import org.junit.jupiter.api.Test;

/** The single-use memory: bounded, and never forgetting an unexpired nonce early. */
class UsedChallengesTest {

  private static byte[] nonce(int i) {
    byte[] n = new byte[12];
    n[11] = (byte) i;
    n[10] = (byte) (i >> 8);
    return n;
  }

  @Test
  void everyByteOfTheNonceCountsAndAWrongSizeIsRefusedWithAClearMessage() {
    var used = new UsedChallenges(20);
    for (int i = 0; i < UsedChallenges.NONCE_BYTES; i++) {
      byte[] n = new byte[UsedChallenges.NONCE_BYTES];
      n[i] = (byte) 0x80;
      assertThat(used.use(n, 1_000, 0)).as("byte " + i).isEqualTo(Use.FIRST);
    }
    assertThatThrownBy(() -> used.use(new byte[11], 1_000, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("nonce: 12 bytes expected, found 11");
  }

  @Test
  void aNonceIsAcceptedOnceUntilItExpires() {
    var used = new UsedChallenges(10);
    assertThat(used.use(nonce(1), 1_000, 0)).isEqualTo(Use.FIRST);
    assertThat(used.use(nonce(1), 1_000, 999)).isEqualTo(Use.REPLAYED);
    assertThat(used.use(nonce(2), 1_000, 999)).isEqualTo(Use.FIRST);
  }

  @Test
  void whenFullOfUnexpiredNoncesNewOnesAreRefusedNotOldOnesForgotten() {
    var used = new UsedChallenges(3);
    for (int i = 0; i < 3; i++) {
      assertThat(used.use(nonce(i), 1_000 + i, 0)).isEqualTo(Use.FIRST);
    }
    assertThat(used.use(nonce(9), 2_000, 10)).isEqualTo(Use.FULL);
    assertThat(used.use(nonce(0), 1_000, 10)).isEqualTo(Use.REPLAYED);
    assertThat(used.size()).isEqualTo(3);
  }

  @Test
  void expiredNoncesAreForgottenAndMakeRoom() {
    var used = new UsedChallenges(2);
    used.use(nonce(1), 1_000, 0);
    used.use(nonce(2), 5_000, 0);
    assertThat(used.use(nonce(3), 6_000, 1_001)).isEqualTo(Use.FIRST);
    assertThat(used.size()).isEqualTo(2);
    assertThat(used.use(nonce(2), 5_000, 1_002)).isEqualTo(Use.REPLAYED);
  }
}
