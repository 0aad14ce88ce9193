package io.anteroom.door.ticket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** RFC 5869 appendix A, test cases 1 to 3 (HKDF with SHA-256). */
class HkdfTest {

  private static byte[] hex(String s) {
    return HexFormat.of().parseHex(s);
  }

  private static byte[] range(int from, int to) {
    byte[] b = new byte[to - from];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) (from + i);
    }
    return b;
  }

  @Test
  void testCase1Basic() {
    byte[] prk = Hkdf.extract(hex("000102030405060708090a0b0c"), hex("0b".repeat(22)));
    assertThat(prk)
        .isEqualTo(hex("077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5"));
    assertThat(Hkdf.expand(prk, hex("f0f1f2f3f4f5f6f7f8f9"), 42))
        .isEqualTo(
            hex(
                "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf"
                    + "34007208d5b887185865"));
  }

  @Test
  void testCase2LongerInputsAndOutput() {
    byte[] prk = Hkdf.extract(range(0x60, 0xb0), range(0x00, 0x50));
    assertThat(prk)
        .isEqualTo(hex("06a6b88c5853361a06104c9ceb35b45cef760014904671014a193f40c15fc244"));
    assertThat(Hkdf.expand(prk, range(0xb0, 0x100), 82))
        .isEqualTo(
            hex(
                "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c"
                    + "59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71"
                    + "cc30c58179ec3e87c14c01d5c1f3434f1d87"));
  }

  @Test
  void testCase3EmptySaltAndInfo() {
    byte[] prk = Hkdf.extract(new byte[0], hex("0b".repeat(22)));
    assertThat(prk)
        .isEqualTo(hex("19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04"));
    assertThat(Hkdf.expand(prk, new byte[0], 42))
        .isEqualTo(
            hex(
                "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d"
                    + "9d201395faa4b61a96c8"));
  }

  @Test
  void outputLengthsBeyondTheRfcLimitAreRefused() {
    byte[] prk = new byte[32];
    assertThat(Hkdf.expand(prk, new byte[0], 255 * 32)).hasSize(255 * 32);
    assertThatThrownBy(() -> Hkdf.expand(prk, new byte[0], 255 * 32 + 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Hkdf.expand(prk, new byte[0], 0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
