package io.anteroom.pass;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jwt.SignedJWT;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PassIssuerTest {
  static final Instant NOW = Instant.parse("2026-11-29T08:00:00Z");
  static final long ADMITTED = NOW.minusSeconds(90).toEpochMilli();
  static final long SESSION_ENDS = NOW.plus(Duration.ofMinutes(10)).toEpochMilli();

  final PassKeys keys = PassKeys.generate();
  final MutableClock clock = new MutableClock(NOW);
  final PassIssuer issuer = PassIssuer.builder(keys).clock(clock).build();
  final PassVerifier verifier =
      PassVerifier.builder().keys(keys).rooms("shop", "tickets").clock(clock).build();

  @Test
  void aSignedPassVerifiesWithItsRoomEventPassIdAndTimes() {
    String header = issuer.passFor("shop", "launch", 42L, ADMITTED, SESSION_ENDS);

    Pass pass = verifier.requireValid(header);

    assertThat(pass.room()).isEqualTo("shop");
    assertThat(pass.event()).contains("launch");
    assertThat(pass.passId()).isEqualTo(issuer.passId("shop", 42L)).hasSize(22);
    assertThat(pass.admittedAt()).isEqualTo(NOW.minusSeconds(90));
    assertThat(pass.expiresAt()).isEqualTo(NOW.plus(Duration.ofMinutes(5)));
  }

  @Test
  void aRoomWithoutAnEventGivesAPassWithoutOne() throws Exception {
    String header = issuer.passFor("shop", null, 42L, ADMITTED, SESSION_ENDS);

    assertThat(verifier.requireValid(header).event()).isEqualTo(Optional.empty());
    assertThat(SignedJWT.parse(header).getJWTClaimsSet().getClaims()).doesNotContainKey("event");
  }

  @Test
  void theHeaderNamesTheSigningKeyTheAlgorithmAndThePassType() throws Exception {
    var header =
        SignedJWT.parse(issuer.passFor("shop", null, 42L, ADMITTED, SESSION_ENDS)).getHeader();

    assertThat(header.getKeyID()).isEqualTo(keys.currentKeyId());
    assertThat(header.getAlgorithm().getName()).isEqualTo("ES256");
    assertThat(header.getType().getType()).isEqualTo("anteroom-pass+jwt");
  }

  @Test
  void thePassIdIsStableForOneUserAndDiffersBetweenUsersAndRooms() {
    String first =
        verifier.requireValid(issuer.passFor("shop", null, 42L, ADMITTED, SESSION_ENDS)).passId();
    clock.advance(Duration.ofMinutes(3)); // a new pass, the same user
    String later =
        verifier.requireValid(issuer.passFor("shop", null, 42L, ADMITTED, SESSION_ENDS)).passId();
    String otherUser =
        verifier.requireValid(issuer.passFor("shop", null, 43L, ADMITTED, SESSION_ENDS)).passId();
    String otherRoom =
        verifier
            .requireValid(issuer.passFor("tickets", null, 42L, ADMITTED, SESSION_ENDS))
            .passId();

    assertThat(later).isEqualTo(first);
    assertThat(otherUser).isNotEqualTo(first);
    assertThat(otherRoom).isNotEqualTo(first);
  }

  @Test
  void thePassIdIsKeyedSoGatewaysSharingTheKeyFileAgreeAndNoOneElseCanComputeIt(@TempDir Path dir) {
    Path shared = dir.resolve("a");
    PassKeys.openOrCreate(shared);
    var gatewayA = PassIssuer.builder(PassKeys.read(shared.resolve(PassKeys.FILE))).build();
    var gatewayB = PassIssuer.builder(PassKeys.read(shared.resolve(PassKeys.FILE))).build();
    var elsewhere = PassIssuer.builder(PassKeys.openOrCreate(dir.resolve("b"))).build();

    assertThat(gatewayB.passId("shop", 42L)).isEqualTo(gatewayA.passId("shop", 42L));
    assertThat(elsewhere.passId("shop", 42L)).isNotEqualTo(gatewayA.passId("shop", 42L));
  }

  @Test
  void thePassIdSurvivesAKeyRotation(@TempDir Path dir) {
    var before = PassIssuer.builder(PassKeys.openOrCreate(dir)).build();
    var after = PassIssuer.builder(PassKeys.rotate(dir.resolve(PassKeys.FILE))).build();

    assertThat(after.passId("shop", 42L)).isEqualTo(before.passId("shop", 42L));
  }

  @Test
  void aPassExpiresWhenTheSessionEndsIfThatComesBeforeTheTtl() {
    long endsSoon = NOW.plusSeconds(70).plusMillis(900).toEpochMilli();

    Pass pass = verifier.requireValid(issuer.passFor("shop", null, 42L, ADMITTED, endsSoon));

    assertThat(pass.expiresAt()).isEqualTo(NOW.plusSeconds(70)); // rounded down, never beyond
  }

  @Test
  void aUsersNextRequestWithinTheReuseWindowGetsTheSamePass() {
    String first = issuer.passFor("shop", "launch", 42L, ADMITTED, SESSION_ENDS);
    clock.advance(Duration.ofMinutes(2)); // the default reuse

    // ECDSA signatures are randomised: the same characters mean the pass was reused, not re-signed
    assertThat(issuer.passFor("shop", "launch", 42L, ADMITTED, SESSION_ENDS)).isEqualTo(first);
  }

  @Test
  void afterTheReuseWindowAUserGetsANewPassThatExpiresLater() {
    String first = issuer.passFor("shop", null, 42L, ADMITTED, SESSION_ENDS);
    clock.advance(Duration.ofSeconds(121));

    String second = issuer.passFor("shop", null, 42L, ADMITTED, SESSION_ENDS);

    assertThat(second).isNotEqualTo(first);
    assertThat(verifier.requireValid(second).expiresAt())
        .isEqualTo(verifier.requireValid(first).expiresAt().plusSeconds(121));
  }

  @Test
  void aPassIsNotReusedBeyondASessionThatNowEndsSooner() {
    String first = issuer.passFor("shop", null, 42L, ADMITTED, SESSION_ENDS);
    long endsSooner = NOW.plusSeconds(120).toEpochMilli();

    String second = issuer.passFor("shop", null, 42L, ADMITTED, endsSooner);

    assertThat(second).isNotEqualTo(first);
    assertThat(verifier.requireValid(second).expiresAt()).isEqualTo(NOW.plusSeconds(120));
  }

  @Test
  void aRenewalThatMovesTheSessionsEndFurtherThanTheReuseGetsANewPass() {
    long endsSoon = NOW.plusSeconds(60).toEpochMilli();
    String first = issuer.passFor("shop", null, 42L, ADMITTED, endsSoon);

    String renewed = issuer.passFor("shop", null, 42L, ADMITTED, SESSION_ENDS);

    assertThat(renewed).isNotEqualTo(first);
    assertThat(verifier.requireValid(renewed).expiresAt())
        .isEqualTo(NOW.plus(Duration.ofMinutes(5)));
  }

  @Test
  void usersWhoShareACacheSlotEachGetTheirOwnPass() {
    var oneSlot = PassIssuer.builder(keys).clock(clock).cacheSlots(1).build();

    for (int round = 0; round < 3; round++) {
      assertThat(
              verifier
                  .requireValid(oneSlot.passFor("shop", null, 1L, ADMITTED, SESSION_ENDS))
                  .passId())
          .isEqualTo(oneSlot.passId("shop", 1L));
      assertThat(
              verifier
                  .requireValid(oneSlot.passFor("shop", null, 2L, ADMITTED, SESSION_ENDS))
                  .passId())
          .isEqualTo(oneSlot.passId("shop", 2L));
      assertThat(
              verifier
                  .requireValid(oneSlot.passFor("tickets", null, 1L, ADMITTED, SESSION_ENDS))
                  .room())
          .isEqualTo("tickets");
    }
  }

  @Test
  void threadsRacingOnSharedCacheSlotsNeverHandOneUserAnothersPass() throws Exception {
    var crowded = PassIssuer.builder(keys).clock(clock).cacheSlots(4).build();
    var passIdsSeen = new java.util.concurrent.ConcurrentLinkedQueue<String>();
    var wrong = new java.util.concurrent.atomic.AtomicInteger();
    try (var pool = java.util.concurrent.Executors.newFixedThreadPool(4)) {
      var tasks = new java.util.ArrayList<java.util.concurrent.Callable<Void>>();
      for (int t = 0; t < 4; t++) {
        int thread = t;
        tasks.add(
            () -> {
              for (int i = 0; i < 100; i++) {
                long user = (thread * 7L + i) % 16; // 16 users over 4 slots, shared by threads
                String pass = crowded.passFor("shop", null, user, ADMITTED, SESSION_ENDS);
                String passId = verifier.requireValid(pass).passId();
                if (!passId.equals(crowded.passId("shop", user))) {
                  wrong.incrementAndGet();
                }
                passIdsSeen.add(passId);
              }
              return null;
            });
      }
      for (var done : pool.invokeAll(tasks)) {
        done.get();
      }
    }

    assertThat(wrong.get()).isZero();
    assertThat(passIdsSeen).hasSize(400);
    assertThat(new java.util.HashSet<>(passIdsSeen)).hasSize(16);
  }

  @Test
  void aReadmissionOfTheSameTicketIsANewPassWithItsOwnAdmissionTime() {
    String first = issuer.passFor("shop", null, 42L, ADMITTED, SESSION_ENDS);
    long readmitted = NOW.toEpochMilli();

    String second = issuer.passFor("shop", null, 42L, readmitted, SESSION_ENDS);

    assertThat(second).isNotEqualTo(first);
    assertThat(verifier.requireValid(second).admittedAt()).isEqualTo(NOW);
  }

  @Test
  void withoutReuseEveryRequestIsSignedAgain() {
    var everyTime = PassIssuer.builder(keys).clock(clock).reuse(Duration.ZERO).build();

    assertThat(everyTime.passFor("shop", null, 42L, ADMITTED, SESSION_ENDS))
        .isNotEqualTo(everyTime.passFor("shop", null, 42L, ADMITTED, SESSION_ENDS));
  }

  @Test
  void settingsOutOfRangeAreRefusedWithTheRangeAllowed() {
    assertThatThrownBy(() -> PassIssuer.builder(keys).ttl(Duration.ofSeconds(5)))
        .hasMessageContaining("from 10 s to 1 day");
    assertThatThrownBy(
            () ->
                PassIssuer.builder(keys)
                    .ttl(Duration.ofMinutes(1))
                    .reuse(Duration.ofSeconds(30))
                    .build())
        .hasMessageContaining("below half the ttl");
    assertThatThrownBy(() -> PassIssuer.builder(keys).cacheSlots(1000))
        .hasMessageContaining("power of two");
    assertThatThrownBy(() -> issuer.passFor("shop", null, 42L, SESSION_ENDS, ADMITTED))
        .hasMessageContaining("before its admission");
  }

  @Test
  void aPassOfARoomThatKnowsItsUsersAccountsNamesTheAccountAndOthersNone() {
    var named =
        verifier.requireValid(issuer.passFor("shop", null, "alice", 42L, ADMITTED, SESSION_ENDS));
    var anonymous =
        verifier.requireValid(issuer.passFor("shop", null, 42L, ADMITTED, SESSION_ENDS));
    var other =
        verifier.requireValid(issuer.passFor("shop", null, "bob", 42L, ADMITTED, SESSION_ENDS));

    assertThat(named.account()).contains("alice");
    assertThat(anonymous.account()).isEmpty();
    assertThat(other.account()).as("never another account's cached pass").contains("bob");
    assertThat(other.passId()).isEqualTo(named.passId());
  }
}
