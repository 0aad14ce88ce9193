package io.anteroom.gateway.ticket;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.gateway.config.GatewayConfig.TicketKey;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TicketCodecTest {

  private static final TicketKey K1 = new TicketKey(1, new byte[32]);
  private static final TicketKey K2 =
      new TicketKey(2, "0123456789abcdef".getBytes(StandardCharsets.US_ASCII));
  private final TicketCodec codec = new TicketCodec(List.of(K1));
  private final byte[] payload = "bucket=27;accepted".getBytes(StandardCharsets.UTF_8);

  @Test
  void aSealedTicketOpensToTheSameBytes() {
    assertThat(codec.open("shop", codec.seal("shop", payload))).hasValue(payload);
  }

  @Test
  void everySealUsesAFreshNonce() {
    assertThat(codec.seal("shop", payload)).isNotEqualTo(codec.seal("shop", payload));
  }

  @Test
  void aCookieOfAnotherRoomDoesNotOpen() {
    assertThat(codec.open("other", codec.seal("shop", payload))).isEmpty();
  }

  @Test
  void truncatedGarbledOrOversizedCookiesDoNotOpen() {
    String sealed = codec.seal("shop", payload);
    assertThat(codec.open("shop", sealed.substring(0, sealed.length() - 3))).isEmpty();
    assertThat(codec.open("shop", sealed.substring(0, 10))).isEmpty();
    assertThat(codec.open("shop", "")).isEmpty();
    assertThat(codec.open("shop", null)).isEmpty();
    assertThat(codec.open("shop", "%%%not-base64%%%")).isEmpty();
    assertThat(codec.open("shop", "A".repeat(10_000))).isEmpty();
  }

  @Property(tries = 300)
  void flippingAnyBitMakesTheCookieUnreadable(@ForAll int position, @ForAll byte mask) {
    byte[] raw = Base64.getUrlDecoder().decode(codec.seal("shop", payload));
    int at = Math.floorMod(position, raw.length);
    byte flip = mask == 0 ? 1 : mask;
    raw[at] ^= flip;
    String tampered = Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
    assertThat(codec.open("shop", tampered)).isEmpty();
  }

  @Test
  void rotationSealsWithTheFirstKeyAndStillOpensOldCookies() {
    String old = codec.seal("shop", payload);
    var rotated = new TicketCodec(List.of(K2, K1));
    assertThat(rotated.open("shop", old)).hasValue(payload);
    String fresh = rotated.seal("shop", payload);
    assertThat(Base64.getUrlDecoder().decode(fresh)[0]).isEqualTo((byte) 2);
    assertThat(codec.open("shop", fresh)).as("a gateway without key 2").isEmpty();
  }

  @Test
  void generatedKeysAreOwnerOnlyAndStableAcrossRestarts(@TempDir Path dir) throws Exception {
    var first = TicketKeys.resolve(List.of(), dir);
    var second = TicketKeys.resolve(List.of(), dir);
    assertThat(first).hasSize(1);
    assertThat(second.get(0).secret()).isEqualTo(first.get(0).secret());
    assertThat(
            PosixFilePermissions.toString(
                Files.getPosixFilePermissions(dir.resolve(TicketKeys.FILE))))
        .isEqualTo("rw-------");
    String sealed = new TicketCodec(first).seal("r", payload);
    assertThat(new TicketCodec(second).open("r", sealed)).hasValue(payload);
  }

  @Test
  void configuredKeysWinOverTheKeyFile(@TempDir Path dir) {
    assertThat(TicketKeys.resolve(List.of(K2), dir)).containsExactly(K2);
    assertThat(dir.resolve(TicketKeys.FILE)).doesNotExist();
  }
}
