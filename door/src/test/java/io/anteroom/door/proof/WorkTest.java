package io.anteroom.door.proof;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The work rule: leading zero bits of SHA-256 over challenge and counter. */
class WorkTest {

  @Test
  void leadingZeroBitsAreCountedAcrossBytes() {
    assertThat(Work.leadingZeroBits(HexFormat.of().parseHex("80"))).isZero();
    assertThat(Work.leadingZeroBits(HexFormat.of().parseHex("01ff"))).isEqualTo(7);
    assertThat(Work.leadingZeroBits(HexFormat.of().parseHex("0000003f"))).isEqualTo(26);
    assertThat(Work.leadingZeroBits(new byte[32])).isEqualTo(256);
  }

  @Test
  void theHashIsSha256OfChallengeThenCounterAsAscii() {
    // SHA-256("abc") from FIPS 180-2
    assertThat(HexFormat.of().formatHex(Work.hash("ab", "c")))
        .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  }

  @Test
  void aSolvedCounterSatisfiesAndTheOneBeforeItDoesNot() {
    String challenge = "A".repeat(64);
    long n = Work.solve(challenge, 12);
    assertThat(Work.satisfies(challenge, Long.toString(n), 12)).isTrue();
    assertThat(Work.leadingZeroBits(Work.hash(challenge, Long.toString(n))))
        .isGreaterThanOrEqualTo(12);
    for (long m = 0; m < n; m++) {
      assertThat(Work.satisfies(challenge, Long.toString(m), 12)).isFalse();
    }
  }

  @Test
  void onlyOneToSixteenDecimalDigitsAreCounters() {
    assertThat(Work.wellFormedCounter("0")).isTrue();
    assertThat(Work.wellFormedCounter("1234567890123456")).isTrue();
    assertThat(Work.wellFormedCounter("12345678901234567")).isFalse();
    assertThat(Work.wellFormedCounter("")).isFalse();
    assertThat(Work.wellFormedCounter("+1")).isFalse();
    assertThat(Work.wellFormedCounter("１")).isFalse();
  }
}
