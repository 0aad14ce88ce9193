package io.anteroom.door.ticket;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.door.RoomRuntime;
import io.anteroom.door.admission.RoomGate.Outcome;
import io.anteroom.door.admission.RoomGate.Verdict;
import io.anteroom.door.config.GatewayConfig.TicketKey;
import io.anteroom.gateway.Harness;
import io.anteroom.gateway.TestOrigin;
import io.anteroom.objects.ManualScheduler;
import io.anteroom.room.Ticket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mutated, replayed and forged cookie values against a full room, through the path every request
 * takes: the {@code Cookie} header of a request, {@link TicketCookie#open(List)} (scan, base64url,
 * AES-GCM under the hour's subkey, room and generation as associated data, {@code
 * TicketBytes.decode}), then the room's real gate ({@code CoordinatedRoomGate.decide}: the room
 * core's decision), without sockets. The room holds one admitted user and admits nobody new, so any
 * admission would be a forgery or a replay that beat the cookie.
 *
 * <p>The mutations are drawn from a fixed seed; the cookies they start from are sealed afresh each
 * run (random nonces), so a failure prints the value that was admitted.
 */
class MutatedCookiesTest {

  /** Fixed, printed: a failure is reproduced by running again. */
  static final long SEED = 0x5EED_C0C1EL;

  private static final TicketKey KEY = new TicketKey(1, bytes(32, 1));
  private static final TicketKey OTHER_KEY = new TicketKey(9, bytes(32, 2));
  private static final long GENERATION = 3;
  private static final char[] BASE64URL =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".toCharArray();

  @TempDir Path dataDir;

  @Test
  void tenThousandMutatedCookiesAdmitNobodyIntoAFullRoom() throws Exception {
    run(10_000);
  }

  @Test
  @Tag("slow")
  void aMillionMutatedCookiesAdmitNobodyIntoAFullRoom() throws Exception {
    run(1_000_000);
  }

  private void run(int cases) throws Exception {
    System.out.printf("MutatedCookiesTest: %d cases, seed %d%n", cases, SEED);
    var scheduler = new ManualScheduler(Harness.START);
    // evenSplit decides new users locally (counters would ask the counter object each time): the
    // same ticket checks, a million cases in minutes
    String yaml =
        """
        ticketKeys: [ { id: 1, secret: %s } ]
        rooms:
          - { id: shop, path: /shop/, totalActiveUsers: 1, newUsersPerMinute: 1, strategy: evenSplit, generation: %d }
          - { id: other, path: /other/, totalActiveUsers: 1000 }
        """
            .formatted(Base64.getEncoder().encodeToString(KEY.secret()), GENERATION);
    try (var h = new Harness(dataDir, yaml, new TestOrigin(), scheduler, null, "dc1", 1)) {
      RoomRuntime shop = h.room("shop");
      // a user admitted now and left: expired once the session (5 minutes) is over
      Verdict gone = decide(shop, null, scheduler);
      assertThat(gone.outcome()).isEqualTo(Outcome.ADMIT);
      String expired = value(shop, gone.ticket());
      String otherRoom = value(h.room("other"), decide(h.room("other"), null, scheduler).ticket());
      scheduler.advance(Duration.ofMinutes(10));
      h.report("shop");

      Verdict admitted = decide(shop, null, scheduler);
      assertThat(admitted.outcome()).as("the one place").isEqualTo(Outcome.ADMIT);
      String live = value(shop, admitted.ticket());
      Verdict waiting = decide(shop, null, scheduler);
      assertThat(waiting.outcome()).as("the room is full").isEqualTo(Outcome.QUEUE);
      String queued = value(shop, waiting.ticket());

      // the path admits what it should: the live ticket is a session, the expired one is not
      var request = new FakeRequest();
      assertThat(decide(shop, request.open(shop, live), scheduler).outcome())
          .isEqualTo(Outcome.ADMIT_SESSION);
      assertThat(decide(shop, request.open(shop, expired), scheduler).outcome())
          .isEqualTo(Outcome.QUEUE);

      Clock now = scheduler.clock();
      // a live admitted ticket's plaintext, sealed wrongly below
      byte[] ticket = TicketBytes.encode(admitted.ticket());
      var codec = new TicketCodec(List.of(KEY), now);
      List<String> sources =
          new ArrayList<>(
              List.of(
                  live,
                  queued,
                  expired,
                  otherRoom,
                  codec.seal(codec.scope("other", GENERATION), ticket),
                  codec.seal(codec.scope("shop", GENERATION - 1), ticket),
                  codec.seal(codec.scope("shop", GENERATION + 1), ticket),
                  codec.seal(codec.scope("shop", 0), ticket),
                  codec.seal(codec.scope("shop", Long.MAX_VALUE), ticket),
                  new TicketCodec(List.of(OTHER_KEY), now)
                      .seal(codec.scope("shop", GENERATION), ticket),
                  sealedAt(now, Duration.ofHours(-49), ticket),
                  sealedAt(now, Duration.ofHours(2), ticket),
                  format1(KEY, "shop", ticket),
                  format1(OTHER_KEY, "shop", ticket)));
      byte[] liveBytes = Base64.getUrlDecoder().decode(live);

      var random = new Random(SEED);
      long started = System.nanoTime();
      Map<Outcome, Integer> outcomes = new EnumMap<>(Outcome.class);
      int sameAsLive = 0;
      for (int i = 0; i < cases; i++) {
        String value = mutate(random, sources);
        if (Arrays.equals(decodeOrNull(value), liveBytes)) {
          sameAsLive++; // the live cookie itself (e.g. a base64 spelling of the same bytes)
          continue;
        }
        Outcome outcome;
        try {
          outcome = decide(shop, request.open(shop, value), scheduler).outcome();
        } catch (Throwable t) {
          throw new AssertionError("case " + i + " (seed " + SEED + "): " + value, t);
        }
        outcomes.merge(outcome, 1, Integer::sum);
        assertThat(outcome)
            .as("case %d (seed %d): %s", i, SEED, value)
            .isNotIn(Outcome.ADMIT, Outcome.ADMIT_SESSION, Outcome.PASS_THROUGH);
      }
      System.out.printf(
          "MutatedCookiesTest: %s, %d spellings of the live cookie skipped, %d ms%n",
          outcomes, sameAsLive, (System.nanoTime() - started) / 1_000_000);
      assertThat(outcomes.getOrDefault(Outcome.QUEUE, 0) + sameAsLive).isEqualTo(cases);
      assertThat(sameAsLive).isLessThan(cases / 100 + 10);
    }
  }

  private static Verdict decide(RoomRuntime room, Ticket ticket, ManualScheduler scheduler)
      throws Exception {
    return room.gate()
        .decide(ticket, scheduler.clock().millis())
        .toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
  }

  /** The value the gateway's {@code Set-Cookie} carries for {@code ticket}. */
  private static String value(RoomRuntime room, Ticket ticket) {
    String set = room.cookie().set(ticket);
    return set.substring(set.indexOf('=') + 1, set.indexOf(';'));
  }

  private static String sealedAt(Clock now, Duration shift, byte[] ticket) {
    var codec = new TicketCodec(List.of(KEY), Clock.offset(now, shift));
    return codec.seal(codec.scope("shop", GENERATION), ticket);
  }

  /** A cookie as gateways sealed it before hourly subkeys (format 1). */
  private static String format1(TicketKey key, String roomId, byte[] payload) throws Exception {
    byte[] nonce = bytes(12, 3);
    Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
    c.init(
        Cipher.ENCRYPT_MODE,
        new SecretKeySpec(key.secret(), "AES"),
        new GCMParameterSpec(128, nonce));
    c.updateAAD(roomId.getBytes(StandardCharsets.UTF_8));
    byte[] sealed = c.doFinal(payload);
    return encode(
        ByteBuffer.allocate(1 + 12 + sealed.length)
            .put((byte) key.id())
            .put(nonce)
            .put(sealed)
            .array());
  }

  private static String mutate(Random random, List<String> sources) {
    String a = sources.get(random.nextInt(sources.size()));
    String b = sources.get(random.nextInt(sources.size()));
    byte[] raw = Base64.getUrlDecoder().decode(a);
    return switch (random.nextInt(12)) {
      case 0 -> { // flip 1 to 3 bits of the sealed bytes
        for (int n = 1 + random.nextInt(3); n > 0; n--) {
          raw[random.nextInt(raw.length)] ^= (byte) (1 << random.nextInt(8));
        }
        yield encode(raw);
      }
      case 1 -> { // one character replaced
        char[] c = a.toCharArray();
        c[random.nextInt(c.length)] = BASE64URL[random.nextInt(BASE64URL.length)];
        yield new String(c);
      }
      case 2 -> a.substring(0, random.nextInt(a.length())); // truncated
      case 3 -> a + randomBase64(random, 1 + random.nextInt(24)); // extended
      case 4 -> { // two cookies spliced, as text
        int cut = random.nextInt(Math.min(a.length(), b.length()) + 1);
        yield a.substring(0, cut) + b.substring(Math.min(cut, b.length()));
      }
      case 5 -> { // two cookies spliced, as bytes (headers and nonces of one, ciphertext of other)
        byte[] other = Base64.getUrlDecoder().decode(b);
        int cut = random.nextInt(Math.min(raw.length, other.length) + 1);
        byte[] out = Arrays.copyOf(raw, Math.max(cut, other.length));
        System.arraycopy(other, cut, out, cut, other.length - cut);
        yield encode(out);
      }
      case 6 -> sources.get(1 + random.nextInt(sources.size() - 1)); // replayed as it is (not live)
      case 7 -> { // a header field changed: format, key id or hour
        int at = random.nextInt(Math.min(6, raw.length));
        raw[at] = (byte) random.nextInt(256);
        yield encode(raw);
      }
      case 8 -> { // random bytes, well-formed base64url
        byte[] junk = new byte[random.nextInt(100)];
        random.nextBytes(junk);
        yield encode(junk);
      }
      case 9 -> { // not base64url at all
        char[] c = new char[random.nextInt(80)];
        for (int i = 0; i < c.length; i++) {
          c[i] = (char) (0x20 + random.nextInt(0x5f));
        }
        yield new String(c);
      }
      case 10 -> // oversized
          a + randomBase64(random, TicketCodec.MAX_COOKIE_CHARS + random.nextInt(4_000));
      default -> queuedClone(random, sources); // the one queued cookie, cloned
    };
  }

  private static String queuedClone(Random random, List<String> sources) {
    return random.nextBoolean() ? sources.get(1) : "\"" + sources.get(1) + "\"";
  }

  private static String randomBase64(Random random, int n) {
    char[] c = new char[n];
    for (int i = 0; i < n; i++) {
      c[i] = BASE64URL[random.nextInt(BASE64URL.length)];
    }
    return new String(c);
  }

  private static byte[] decodeOrNull(String value) {
    try {
      return Base64.getUrlDecoder().decode(value);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static String encode(byte[] raw) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
  }

  private static byte[] bytes(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  /**
   * A request that carries one {@code Cookie} header: what {@link TicketCookie#open(List)} reads.
   */
  private static final class FakeRequest {

    /** Opens {@code value} as the room's cookie among others of the site (null: a new user). */
    Ticket open(RoomRuntime room, String value) {
      String header = "theme=dark; " + room.cookie().name() + "=" + value + "; _ga=GA1.2.3";
      TicketCookie.Opened opened = room.cookie().open(List.of(header));
      return opened == null ? null : opened.ticket();
    }
  }
}
