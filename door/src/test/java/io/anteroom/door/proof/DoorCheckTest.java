package io.anteroom.door.proof;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.door.config.GatewayConfig.OnRepeatedFailure;
import io.anteroom.door.config.GatewayConfig.ProofOfWork;
import io.anteroom.door.config.GatewayConfig.TicketKey;
import io.anteroom.door.proof.DoorCheck.Challenge;
import io.anteroom.door.proof.DoorCheck.EndlessQueue;
import io.anteroom.door.proof.DoorCheck.Pass;
import io.anteroom.door.proof.DoorCheck.Refusal;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The proof-of-work decision at the door, on given time and seeded nonces. */
class DoorCheckTest {

  private static final byte[] SECRET = new byte[32];
  private static final ChallengeCodec CODEC = new ChallengeCodec(List.of(new TicketKey(1, SECRET)));
  private static final long T0 = 1_795_000_000_000L;
  private static final String CLIENT = "203.0.113.7";
  private static final int BITS = 8;
  private static final ProofOfWork POW =
      new ProofOfWork(true, BITS, 60, OnRepeatedFailure.ENDLESS_QUEUE);

  private final Random seeded = new Random(42);
  private final Consumer<byte[]> nonces = seeded::nextBytes;
  private final DoorCheck door = new DoorCheck("shop", 0, POW, CODEC, nonces);

  private Challenge challenge(DoorCheck d, String client, long now) {
    return (Challenge) d.decide(null, client, now);
  }

  private static String solved(Challenge c) {
    String text = c.challenge().text();
    return text + "." + Work.solve(text, c.challenge().difficulty());
  }

  /** A counter that does not meet the difficulty (there is one among the first few). */
  private static String unsolved(Challenge c) {
    String text = c.challenge().text();
    for (long n = 0; ; n++) {
      if (!Work.satisfies(text, Long.toString(n), c.challenge().difficulty())) {
        return text + "." + n;
      }
    }
  }

  @Test
  void theDifficultyRisesForAPrefixThatMintsOrFailsAndFallsAfterTheWindow() {
    var rising =
        new DoorCheck(
            "shop",
            0,
            new ProofOfWork(true, BITS, 60, OnRepeatedFailure.NONE, 2, 2),
            CODEC,
            nonces);
    var difficulties = new java.util.ArrayList<Integer>();
    for (int i = 0; i < 5; i++) {
      Challenge c = challenge(rising, CLIENT, T0);
      difficulties.add(c.challenge().difficulty());
      assertThat(rising.decide(solved(c), CLIENT, T0)).isInstanceOf(DoorCheck.Pass.class);
    }
    assertThat(difficulties)
        .as("one extra bit from 2 new identities, one more at 4, at most 2")
        .containsExactly(BITS, BITS, BITS + 1, BITS + 1, BITS + 2);
    assertThat(rising.difficulty(CLIENT, T0 + 9 * 60_000)).isEqualTo(BITS + 2);
    assertThat(rising.difficulty("203.0.113.8", T0)).as("another /32").isEqualTo(BITS);
    assertThat(rising.difficulty("2001:db8:0:1::5", T0)).isEqualTo(BITS);
    assertThat(rising.difficulty(CLIENT, T0 + PrefixActivity.WINDOW_MILLIS))
        .as("a new window")
        .isEqualTo(BITS);

    var failing =
        new DoorCheck(
            "shop",
            0,
            new ProofOfWork(true, BITS, 60, OnRepeatedFailure.NONE, 2, 2),
            CODEC,
            nonces);
    String v6 = "2001:db8:0:1::5";
    failing.decide(unsolved(challenge(failing, v6, T0)), v6, T0);
    failing.decide(unsolved(challenge(failing, "2001:db8:0:1::6", T0)), "2001:db8:0:1::6", T0);
    assertThat(failing.difficulty("2001:db8:0:1::7", T0))
        .as("refused answers count, for the whole /64")
        .isEqualTo(BITS + 1);
    assertThat(new DoorCheck("shop", 0, POW, CODEC, nonces).difficulty(CLIENT, T0))
        .as("off by default")
        .isEqualTo(BITS);
  }

  @Test
  void aNewUserWithoutAnAnswerGetsAChallengeOfTheRoomsDifficulty() {
    Challenge c = challenge(door, CLIENT, T0);
    assertThat(c.refused()).isNull();
    assertThat(c.challenge().difficulty()).isEqualTo(BITS);
    assertThat(c.challenge().text()).hasSize(64);
    assertThat(c.challenge().expiresAtSeconds()).isEqualTo(T0 / 1000 + 60);
  }

  @Test
  void aSolvedChallengePasses() {
    String answer = solved(challenge(door, CLIENT, T0));
    assertThat(door.decide(answer, CLIENT, T0 + 2_000)).isInstanceOf(Pass.class);
  }

  @Test
  void aReplayedAnswerIsRefusedWithAFreshChallenge() {
    String answer = solved(challenge(door, CLIENT, T0));
    assertThat(door.decide(answer, CLIENT, T0 + 1_000)).isInstanceOf(Pass.class);
    var again = (Challenge) door.decide(answer, CLIENT, T0 + 2_000);
    assertThat(again.refused()).isEqualTo(Refusal.REPLAYED);
    assertThat(again.challenge().text()).isNotEqualTo(answer.substring(0, 64));
  }

  @Test
  void anAnswerWithTooFewZeroBitsIsRefused() {
    var refused = (Challenge) door.decide(unsolved(challenge(door, CLIENT, T0)), CLIENT, T0);
    assertThat(refused.refused()).isEqualTo(Refusal.INSUFFICIENT_WORK);
  }

  @Test
  void anExpiredAnswerIsRefused() {
    Challenge c = challenge(door, CLIENT, T0);
    long expiry = c.challenge().expiresAtSeconds() * 1000;
    assertThat(door.decide(solved(c), CLIENT, expiry - 1)).isInstanceOf(Pass.class);
    Challenge late = challenge(door, CLIENT, T0);
    var refused = (Challenge) door.decide(solved(late), CLIENT, expiry);
    assertThat(refused.refused()).isEqualTo(Refusal.EXPIRED);
  }

  @Test
  void aForgedChallengeIsRefusedEvenWithTheWorkDone() {
    String text = challenge(door, CLIENT, T0).challenge().text();
    // a client lowers the difficulty byte (base64 character 3 carries it) and solves that
    char[] chars = text.toCharArray();
    chars[3] = chars[3] == 'A' ? 'B' : 'A';
    String forged = new String(chars);
    String answer = forged + "." + Work.solve(forged, 1);
    assertThat(((Challenge) door.decide(answer, CLIENT, T0)).refused()).isEqualTo(Refusal.FORGED);
  }

  @Test
  void aChallengeSignedWithAnotherKeyIsForged() {
    byte[] other = new byte[32];
    Arrays.fill(other, (byte) 7);
    var elsewhere =
        new DoorCheck("shop", 0, POW, new ChallengeCodec(List.of(new TicketKey(1, other))), nonces);
    String answer = solved(challenge(elsewhere, CLIENT, T0));
    assertThat(((Challenge) door.decide(answer, CLIENT, T0)).refused()).isEqualTo(Refusal.FORGED);
  }

  @Test
  void anAnswerFromAnotherAddressIsRefused() {
    String answer = solved(challenge(door, CLIENT, T0));
    var refused = (Challenge) door.decide(answer, "198.51.100.1", T0);
    assertThat(refused.refused()).isEqualTo(Refusal.FORGED);
    assertThat(door.decide(answer, CLIENT, T0))
        .as("still good where it was issued")
        .isInstanceOf(Pass.class);
  }

  @Test
  void anAnswerForAnotherRoomOrGenerationIsRefused() {
    var otherRoom = new DoorCheck("tickets", 0, POW, CODEC, nonces);
    var otherGeneration = door.withSettings("shop", 1, POW);
    String answer = solved(challenge(door, CLIENT, T0));
    assertThat(((Challenge) otherRoom.decide(answer, CLIENT, T0)).refused())
        .isEqualTo(Refusal.FORGED);
    assertThat(((Challenge) otherGeneration.decide(answer, CLIENT, T0)).refused())
        .isEqualTo(Refusal.FORGED);
  }

  @Test
  void malformedAnswersAreRefusedWhateverTheClientSends() {
    var door =
        new DoorCheck(
            "shop", 0, new ProofOfWork(true, BITS, 60, OnRepeatedFailure.NONE), CODEC, nonces);
    String text = challenge(door, CLIENT, T0).challenge().text();
    for (String bad :
        List.of(
            "",
            ".",
            "x.1",
            text,
            text + ".",
            text + ".-1",
            text + ".1e3",
            text + ".12345678901234567",
            text.substring(1) + ".1")) {
      assertThat(((Challenge) door.decide(bad, CLIENT, T0)).refused())
          .as(bad)
          .isEqualTo(Refusal.MALFORMED);
    }
    String notBase64 = "!" + text.substring(1) + ".1";
    assertThat(((Challenge) door.decide(notBase64, CLIENT, T0)).refused())
        .isEqualTo(Refusal.FORGED);
  }

  @Test
  void repeatedFailuresLeadToTheEndlessQueueForThatAddressOnly() {
    for (int i = 1; i < RepeatedFailures.THRESHOLD; i++) {
      assertThat(door.decide("garbage", CLIENT, T0 + i)).isInstanceOf(Challenge.class);
    }
    assertThat(door.decide("garbage", CLIENT, T0 + 10)).isInstanceOf(EndlessQueue.class);
    var elsewhere = new DoorCheck("shop", 0, POW, CODEC, nonces); // same key, own memories
    String answer = solved(challenge(elsewhere, CLIENT, T0 + 20));
    assertThat(door.decide(answer, CLIENT, T0 + 30))
        .as("even a good answer does not get in while marked")
        .isInstanceOf(EndlessQueue.class);
    assertThat(door.decide(null, "198.51.100.1", T0 + 30)).isInstanceOf(Challenge.class);
    long later = T0 + 10 + RepeatedFailures.WINDOW_MILLIS;
    assertThat(door.decide(null, CLIENT, later)).isInstanceOf(Challenge.class);
  }

  @Test
  void withoutTheEndlessQueueRepeatedFailuresOnlyGetChallenges() {
    var lenient =
        new DoorCheck(
            "shop", 0, new ProofOfWork(true, BITS, 60, OnRepeatedFailure.NONE), CODEC, nonces);
    for (int i = 0; i < 3 * RepeatedFailures.THRESHOLD; i++) {
      assertThat(lenient.decide("garbage", CLIENT, T0 + i)).isInstanceOf(Challenge.class);
    }
    String answer = solved(challenge(lenient, CLIENT, T0 + 100));
    assertThat(lenient.decide(answer, CLIENT, T0 + 200)).isInstanceOf(Pass.class);
  }

  @Test
  void expiredAnswersDoNotCountAsFailures() {
    for (int i = 0; i < 2 * RepeatedFailures.THRESHOLD; i++) {
      Challenge c = challenge(door, CLIENT, T0);
      assertThat(door.decide(solved(c), CLIENT, T0 + 61_000)).isInstanceOf(Challenge.class);
    }
    String answer = solved(challenge(door, CLIENT, T0 + 61_000));
    assertThat(door.decide(answer, CLIENT, T0 + 62_000)).isInstanceOf(Pass.class);
  }

  @Test
  void aChallengeOfAnEarlierDifficultyStillPassesUntilItExpires() {
    Challenge easy = challenge(door, CLIENT, T0);
    var harder =
        door.withSettings("shop", 0, new ProofOfWork(true, 12, 60, OnRepeatedFailure.NONE));
    assertThat(challenge(harder, CLIENT, T0).challenge().difficulty()).isEqualTo(12);
    assertThat(harder.decide(solved(easy), CLIENT, T0 + 1_000)).isInstanceOf(Pass.class);
  }

  @Test
  void theRenewedCheckKeepsItsMemoryOfUsedChallenges() {
    String answer = solved(challenge(door, CLIENT, T0));
    assertThat(door.decide(answer, CLIENT, T0)).isInstanceOf(Pass.class);
    var changed = door.withSettings("shop", 0, POW);
    assertThat(((Challenge) changed.decide(answer, CLIENT, T0)).refused())
        .isEqualTo(Refusal.REPLAYED);
  }
}
