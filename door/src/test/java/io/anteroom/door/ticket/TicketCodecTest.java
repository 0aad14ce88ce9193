package io.anteroom.door.ticket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.anteroom.door.config.GatewayConfig.TicketKey;
import io.anteroom.room.RoomConfig;
import io.anteroom.testkit.ManualClock;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
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
  void noNonceIsHandedOutTwiceAcrossTheDrbgDraws() {
    var nonces = new java.util.HashSet<String>();
    for (int i = 0; i < 1000; i++) { // 1000 seals: many draws of 64 nonces from the DRBG
      byte[] sealed = Base64.getUrlDecoder().decode(codec.seal("shop", payload));
      byte[] nonce = java.util.Arrays.copyOfRange(sealed, 6, 18);
      assertThat(nonce).as("seal %d", i).isNotEqualTo(new byte[12]);
      assertThat(nonces.add(Base64.getEncoder().encodeToString(nonce))).as("seal %d", i).isTrue();
      assertThat(codec.open("shop", Base64.getUrlEncoder().withoutPadding().encodeToString(sealed)))
          .hasValue(payload);
    }
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

  // --- format 2: hourly subkeys, generation in the associated data ---

  private static final Instant T0 = Instant.parse("2026-11-22T10:17:00Z");
  private final ManualClock clock = new ManualClock(T0);
  private final TicketCodec timed = new TicketCodec(List.of(K1, K2), clock);
  private final TicketCodec.Scope shop = timed.scope("shop", 7);

  private static byte[] raw(String cookie) {
    return Base64.getUrlDecoder().decode(cookie);
  }

  private static String cookie(byte[] raw) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
  }

  @Test
  void aCookieIsTheDocumentedFormatUnderTheHoursHkdfSubkey() throws Exception {
    byte[] in = raw(timed.seal(shop, payload));
    long hour = T0.toEpochMilli() / 3_600_000L;

    assertThat(in).hasSize(1 + 1 + 4 + 12 + payload.length + 16);
    assertThat(in[0]).as("format").isEqualTo((byte) 2);
    assertThat(in[1]).as("key id of the first key").isEqualTo((byte) 1);
    assertThat(ByteBuffer.wrap(in, 2, 4).getInt()).as("hour").isEqualTo((int) hour);

    // an independent opener of the documented format: HKDF-SHA256 subkey, AAD = header |
    // generation | room id
    byte[] info =
        ByteBuffer.allocate(18 + 1 + 4)
            .put("anteroom ticket v2".getBytes(StandardCharsets.US_ASCII))
            .put((byte) 1)
            .putInt((int) hour)
            .array();
    byte[] subkey =
        Hkdf.expand(
            Hkdf.extract(
                "anteroom ticket subkeys".getBytes(StandardCharsets.US_ASCII), new byte[32]),
            info,
            32);
    Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
    c.init(
        Cipher.DECRYPT_MODE,
        new SecretKeySpec(subkey, "AES"),
        new GCMParameterSpec(128, in, 6, 12));
    c.updateAAD(in, 0, 6);
    c.updateAAD(ByteBuffer.allocate(8).putLong(7).array());
    c.updateAAD("shop".getBytes(StandardCharsets.UTF_8));
    assertThat(c.doFinal(in, 18, in.length - 18)).isEqualTo(payload);
  }

  @Test
  void eachHourSealsUnderItsOwnSubkey() {
    byte[] first = raw(timed.seal(shop, payload));
    clock.advance(Duration.ofHours(1));
    byte[] next = raw(timed.seal(shop, payload));
    assertThat(ByteBuffer.wrap(next, 2, 4).getInt())
        .isEqualTo(ByteBuffer.wrap(first, 2, 4).getInt() + 1);

    byte[] moved = first.clone();
    System.arraycopy(next, 2, moved, 2, 4); // the same ciphertext claimed for the next hour
    assertThat(timed.open(shop, cookie(moved))).as("other hour, other key").isEmpty();
    assertThat(timed.open(shop, cookie(first))).hasValue(payload);
    assertThat(timed.open(shop, cookie(next))).hasValue(payload);
  }

  @Test
  void cookiesOpenFrom48HoursAgoUpToOneHourAhead() {
    String sealed = timed.seal(shop, payload);
    Instant hourStart = Instant.ofEpochMilli(T0.toEpochMilli() / 3_600_000L * 3_600_000L);

    assertThat(openAt(hourStart.plus(Duration.ofHours(48)).plus(Duration.ofMinutes(59)), sealed))
        .as("48 hours later")
        .hasValue(payload);
    assertThat(openAt(hourStart.plus(Duration.ofHours(49)), sealed)).as("49 hours later").isEmpty();
    assertThat(openAt(hourStart.minus(Duration.ofMinutes(1)), sealed))
        .as("a gateway one hour behind")
        .hasValue(payload);
    assertThat(openAt(hourStart.minus(Duration.ofMinutes(61)), sealed))
        .as("two hours behind")
        .isEmpty();
  }

  private java.util.Optional<byte[]> openAt(Instant now, String cookie) {
    var other =
        new TicketCodec(List.of(K1, K2), java.time.Clock.fixed(now, java.time.ZoneOffset.UTC));
    return other.open(other.scope("shop", 7), cookie);
  }

  @Test
  void theWindowIsTwiceTheLongestTicketLifeTheRoomCoreAllows() {
    // a ticket is dead one session duration or one queue timeout after its last seal
    RoomConfig longest =
        RoomConfig.builder("r")
            .totalActiveUsers(1)
            .newUsersPerMinute(1)
            .sessionDurationMinutes(24 * 60)
            .queueTimeout(Duration.ofHours(24))
            .build();
    assertThatThrownBy(
            () ->
                RoomConfig.builder("r")
                    .totalActiveUsers(1)
                    .newUsersPerMinute(1)
                    .sessionDurationMinutes(24 * 60 + 1)
                    .build())
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                RoomConfig.builder("r")
                    .totalActiveUsers(1)
                    .newUsersPerMinute(1)
                    .sessionDurationMinutes(1)
                    .queueTimeout(Duration.ofHours(24).plusSeconds(1))
                    .build())
        .isInstanceOf(IllegalArgumentException.class);
    Duration life = longest.sessionDuration();
    if (longest.queueTimeout().compareTo(life) > 0) {
      life = longest.queueTimeout();
    }
    assertThat(Duration.ofHours(TicketCodec.MAX_AGE_HOURS)).isEqualTo(life.multipliedBy(2));
  }

  @Test
  void hoursOutsideTheWindowDeriveNoKeysAndTheCacheIsBounded() {
    timed.seal(shop, payload);
    long derived = timed.derivedSubkeys();
    byte[] in = raw(timed.seal(shop, payload));
    var random = new Random(42);
    long now = T0.toEpochMilli() / 3_600_000L;
    for (int i = 0; i < 10_000; i++) {
      int hour = random.nextInt();
      if (hour >= now - 48 && hour <= now + 1) {
        continue;
      }
      ByteBuffer.wrap(in, 2, 4).putInt(hour);
      assertThat(timed.open(shop, cookie(in))).isEmpty();
    }
    assertThat(timed.derivedSubkeys()).as("no key for hours outside the window").isEqualTo(derived);

    for (int i = 0; i < 10_000; i++) { // every hour of the window, many times over
      long hour = now - 48 + random.nextInt(50);
      int key = random.nextBoolean() ? 1 : 2;
      ByteBuffer.wrap(in, 2, 4).putInt((int) hour);
      in[1] = (byte) key;
      assertThat(timed.open(shop, cookie(in)).isPresent())
          .as("only the sealed hour and key open")
          .isEqualTo(hour == now && key == 1);
    }
    assertThat(timed.derivedSubkeys()).as("2 keys x 50 hours").isEqualTo(100);
  }

  @Test
  void aCookieOpenedOnOneThreadIsNotDecryptedAgainOnAnother() throws Exception {
    // a browser's requests land on any of a server's threads (a Servlet container has hundreds)
    String sealed = timed.seal(shop, payload);
    var decoder = new Counting();
    String first = timed.open(shop, sealed, 0, sealed.length(), decoder);
    long decrypted = timed.decryptions();
    var other = java.util.concurrent.Executors.newSingleThreadExecutor();
    try {
      String there =
          other.submit(() -> timed.open(shop, sealed, 0, sealed.length(), decoder)).get();
      assertThat(there).as("the value decoded on the first thread").isSameAs(first);
      assertThat(other.submit(() -> timed.open(shop, sealed)).get()).hasValue(payload);
    } finally {
      other.shutdownNow();
    }
    assertThat(timed.decryptions())
        .as("opened from the cache on the other thread")
        .isEqualTo(decrypted);
    assertThat(decoder.calls).isEqualTo(1);
  }

  @Test
  void aCookieOpenedAgainIsNotDecryptedAgain() {
    String sealed = timed.seal(shop, payload);
    assertThat(timed.open(shop, sealed)).hasValue(payload);
    long decrypted = timed.decryptions();
    byte[] again = timed.open(shop, sealed).orElseThrow();
    assertThat(again).isEqualTo(payload);
    assertThat(timed.decryptions()).as("the second open came from the cache").isEqualTo(decrypted);
    again[0] ^= 1; // a caller that changes its copy changes no later answer
    assertThat(timed.open(shop, sealed)).hasValue(payload);
  }

  /** A decoder that counts its calls and returns a new object each time. */
  private static final class Counting implements TicketCodec.Decoder<String> {
    int calls;

    @Override
    public String decode(byte[] bytes) {
      calls++;
      return new String(bytes, StandardCharsets.UTF_8);
    }
  }

  @Test
  void aCookieInsideAHeaderOpensWithoutACopyAndItsDecodedValueIsKept() {
    String sealed = timed.seal(shop, payload);
    String header = "a=1; __anteroom_shop=" + sealed + "; b=2";
    int from = header.indexOf(sealed);
    int to = from + sealed.length();
    var decoder = new Counting();
    long before = timed.decryptions();

    String first = timed.open(shop, header, from, to, decoder);
    String second = timed.open(shop, header, from, to, decoder);
    assertThat(first).isEqualTo(new String(payload, StandardCharsets.UTF_8));
    assertThat(second).as("the same value, kept").isSameAs(first);
    assertThat(decoder.calls).isEqualTo(1);
    assertThat(timed.decryptions()).as("decrypted once").isEqualTo(before + 1);
    assertThat(timed.open(shop, sealed))
        .as("the value alone hits the same entry")
        .hasValue(payload);
    assertThat(timed.decryptions()).isEqualTo(before + 1);

    var other = new Counting();
    assertThat(timed.open(shop, header, from, to, other))
        .as("another decoder decodes for itself")
        .isEqualTo(first);
    assertThat(other.calls).isEqualTo(1);
  }

  @Test
  void aHeaderWhoseCookieDiffersFromAKeptOneAnywhereDoesNotOpen() {
    String sealed = timed.seal(shop, payload);
    var decoder = new Counting();
    assertThat(timed.open(shop, sealed, 0, sealed.length(), decoder)).isNotNull();
    // the slot is chosen by the nonce's characters: a value that shares them but differs in any
    // other character (or is longer or shorter) is a new value, decrypted, and does not open
    for (int at : new int[] {0, 3, 7, sealed.length() / 2, sealed.length() - 2}) {
      char c = sealed.charAt(at);
      String changed = sealed.substring(0, at) + (c == 'A' ? 'B' : 'A') + sealed.substring(at + 1);
      String header = "x=" + changed;
      assertThat(timed.open(shop, header, 2, header.length(), decoder)).as("char %d", at).isNull();
    }
    String header = "x=" + sealed + "A";
    assertThat(timed.open(shop, header, 2, header.length(), decoder)).as("longer").isNull();
    assertThat(timed.open(shop, sealed, 0, sealed.length() - 1, decoder)).as("shorter").isNull();
    assertThat(timed.open(timed.scope("shop", 8), sealed, 0, sealed.length(), decoder))
        .as("another generation")
        .isNull();
    clock.advance(Duration.ofHours(50));
    assertThat(timed.open(shop, sealed, 0, sealed.length(), decoder))
        .as("50 hours later, kept or not")
        .isNull();
  }

  @Test
  void aCachedCookieStillClosesOnceItsHourLeavesTheWindow() {
    String sealed = timed.seal(shop, payload);
    assertThat(timed.open(shop, sealed)).hasValue(payload);
    clock.advance(Duration.ofHours(50));
    assertThat(timed.open(shop, sealed)).as("50 hours later, cached or not").isEmpty();
  }

  @Test
  void aCachedCookieOpensInNoOtherScope() {
    TicketCodec.Scope gen8 = timed.scope("shop", 8);
    String sealed = timed.seal(shop, payload);
    assertThat(timed.open(shop, sealed)).hasValue(payload);
    assertThat(timed.open(gen8, sealed)).as("another generation").isEmpty();
    assertThat(timed.open(timed.scope("shop", 7), sealed))
        .as("an equal scope of a new room runtime decrypts again and opens")
        .hasValue(payload);
  }

  @Test
  void aCookieThatFailsToOpenIsNotCachedAndStillFailsAfterAGoodOne() {
    String sealed = timed.seal(shop, payload);
    byte[] tampered = raw(sealed);
    tampered[tampered.length - 1] ^= 1;
    long before = timed.decryptions();
    assertThat(timed.open(shop, cookie(tampered))).isEmpty();
    assertThat(timed.open(shop, cookie(tampered))).isEmpty();
    assertThat(timed.decryptions()).as("every failing open is decrypted").isEqualTo(before + 2);
    assertThat(timed.open(shop, sealed)).hasValue(payload);
    assertThat(timed.open(shop, cookie(tampered))).isEmpty();
  }

  @Test
  void aCodecWithOtherKeysDoesNotOpenWhatAnotherCodecCached() {
    String sealed = timed.seal(shop, payload);
    assertThat(timed.open(shop, sealed)).hasValue(payload);
    var rotated = new TicketCodec(List.of(K2), clock); // K1 retired
    assertThat(rotated.open(rotated.scope("shop", 7), sealed)).isEmpty();
  }

  @Test
  void aCookieOfAnotherGenerationOrRoomDoesNotOpen() {
    String gen1 = timed.seal(timed.scope("shop", 1), payload);
    assertThat(timed.open(timed.scope("shop", 1), gen1)).hasValue(payload);
    assertThat(timed.open(timed.scope("shop", 2), gen1)).isEmpty();
    assertThat(timed.open(timed.scope("shop", 0), gen1)).isEmpty();
    assertThat(timed.open(timed.scope("shop2", 1), gen1)).isEmpty();
    // room id and generation do not run into each other: the id is the only variable part, last
    assertThat(timed.open(timed.scope("sho", 1), gen1)).isEmpty();
  }

  /** A cookie exactly as gateways sealed it before subkeys (format 1). */
  private static String format1(TicketKey key, String roomId, byte[] payload) throws Exception {
    byte[] nonce = new byte[12];
    new Random(7).nextBytes(nonce);
    Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
    c.init(
        Cipher.ENCRYPT_MODE,
        new SecretKeySpec(key.secret(), "AES"),
        new GCMParameterSpec(128, nonce));
    c.updateAAD(roomId.getBytes(StandardCharsets.UTF_8));
    byte[] sealed = c.doFinal(payload);
    return cookie(
        ByteBuffer.allocate(1 + 12 + sealed.length)
            .put((byte) key.id())
            .put(nonce)
            .put(sealed)
            .array());
  }

  @Test
  void format1CookiesStillOpenInRoomsOfGeneration0Only() throws Exception {
    for (TicketKey k : List.of(K1, K2)) { // key id 2 is also the format byte of format 2
      String old = format1(k, "shop", payload);
      assertThat(timed.open(timed.scope("shop", 0), old)).as("key %d", k.id()).hasValue(payload);
      assertThat(timed.open(timed.scope("shop", 1), old)).as("key %d", k.id()).isEmpty();
      assertThat(timed.open(timed.scope("other", 0), old)).as("key %d", k.id()).isEmpty();
    }
    assertThat(raw(timed.seal(timed.scope("shop", 0), payload))[0])
        .as("new cookies are format 2")
        .isEqualTo((byte) 2);
  }

  @Test
  void duplicateKeyIdsAreRefused() {
    assertThatThrownBy(() -> new TicketCodec(List.of(K1, new TicketKey(1, new byte[16]))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("duplicate key id 1");
  }

  @Test
  void aKeyFileWithADuplicateIdIsRefused(@TempDir Path dir) throws Exception {
    String key = Base64.getEncoder().encodeToString(new byte[32]);
    Files.writeString(dir.resolve(TicketKeys.FILE), "3 " + key + "\n# old\n3 " + key + "\n");
    assertThatThrownBy(() -> TicketKeys.resolve(List.of(), dir))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("line 3: duplicate key id 3");
  }
}
