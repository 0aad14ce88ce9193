package io.anteroom.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.anteroom.door.proof.Accounts;
import io.anteroom.door.proof.Invitations;
import io.anteroom.pass.PassCheck;
import io.anteroom.pass.PassVerifier;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One place per account, black-box through the public listener on virtual time: every browser of an
 * account shares the account's one place (waiting or admitted) on every gateway of the deployment;
 * an expired identity is refused with its reason and loses nothing; an invitation sent to an
 * account is that account's only; OIDC ID tokens verified against the provider's JWKS.
 */
class AccountDoorTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TICKET = "__anteroom_shop";
  private static final Instant LATER = Harness.START.plus(Duration.ofDays(1));
  private static final String KEYS =
      "\nticketKeys: [ { id: 1, secret: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8= } ]";

  @TempDir Path dataDir;
  private byte[] key;
  private Path keyFile;

  @BeforeEach
  void key() throws Exception {
    key = new byte[32];
    new java.security.SecureRandom().nextBytes(key);
    keyFile = dataDir.resolve("identity.key");
    Files.writeString(keyFile, Base64.getEncoder().encodeToString(key) + "\n");
  }

  private String room(int totalActiveUsers, String more) {
    return "rooms: [ { id: shop, totalActiveUsers: "
        + totalActiveUsers
        + ", account: { required: true, hs256SecretFile: "
        + keyFile
        + " }"
        + more
        + " } ]";
  }

  private String identity(String account) {
    return Accounts.sign(key, account, LATER, null);
  }

  private static PassCheck.Valid pass(Harness h, HttpResponse<String> r) throws Exception {
    var check =
        PassVerifier.builder()
            .jwks(java.net.URI.create(h.adminUrl() + "/.well-known/jwks.json").toURL())
            .rooms("shop")
            .clock(h.scheduler.clock())
            .build()
            .verify(r.headers().firstValue("x-origin-saw-pass").orElse(null));
    assertThat(check).isInstanceOf(PassCheck.Valid.class);
    return (PassCheck.Valid) check;
  }

  private static JsonNode refusal(HttpResponse<String> r, String member) throws Exception {
    assertThat(r.statusCode()).isEqualTo(403);
    assertThat(Browser.reachedOrigin(r)).isFalse();
    assertThat(r.headers().firstValue("cache-control")).contains("no-store");
    return JSON.readTree(r.body()).get(member);
  }

  private long queued(Harness h) throws Exception {
    h.report("shop");
    return h.gate("shop").status(h.scheduler.clock().millis()).estimatedQueuedUsers();
  }

  @Test
  void aWaitingAccountsSecondBrowserGetsTheSamePlaceNotASecondOne() throws Exception {
    try (var h = new Harness(dataDir, room(1, ""))) {
      assertThat(Browser.reachedOrigin(h.browser().get("/", "Anteroom-Account", identity("carol"))))
          .isTrue();
      Browser laptop = h.browser();
      Browser phone = h.browser();

      assertThat(Browser.reachedOrigin(laptop.get("/", "Anteroom-Account", identity("alice"))))
          .isFalse();
      assertThat(Browser.reachedOrigin(phone.get("/", "Anteroom-Account", identity("alice"))))
          .isFalse();
      assertThat(phone.cookies).containsKey(TICKET).containsKey(TICKET + ".account");
      assertThat(queued(h)).as("one account, one place in line").isEqualTo(1);

      for (int i = 0; i < 3; i++) {
        phone.get("/", "Anteroom-Account", identity("alice"));
        laptop.get("/", "Anteroom-Account", identity("alice"));
      }
      assertThat(queued(h)).as("refreshes of both browsers: still one").isEqualTo(1);

      assertThat(Browser.reachedOrigin(h.browser().get("/", "Anteroom-Account", identity("dave"))))
          .isFalse();
      assertThat(queued(h)).as("another account, its own place").isEqualTo(2);
    }
  }

  @Test
  void whenTheAccountsPlaceIsLetInItsOtherBrowserSharesTheSession() throws Exception {
    try (var h = new Harness(dataDir, room(1, ""))) {
      Browser carol = h.browser();
      assertThat(Browser.reachedOrigin(carol.get("/", "Anteroom-Account", identity("carol"))))
          .isTrue();
      Browser laptop = h.browser();
      Browser phone = h.browser();
      assertThat(Browser.reachedOrigin(laptop.get("/", "Anteroom-Account", identity("alice"))))
          .isFalse();
      assertThat(Browser.reachedOrigin(phone.get("/", "Anteroom-Account", identity("alice"))))
          .isFalse();

      carol.get("/revoke", "Anteroom-Account", identity("carol")); // the one place is free again
      h.scheduler.advance(Duration.ofMinutes(1));
      h.report("shop");
      var in = laptop.get("/", "Anteroom-Account", identity("alice"));
      assertThat(Browser.reachedOrigin(in)).as("alice's place is let in").isTrue();

      var alsoIn = phone.get("/", "Anteroom-Account", identity("alice"));
      assertThat(Browser.reachedOrigin(alsoIn))
          .as("the phone's waiting copy: the account's session, not a new place")
          .isTrue();
      assertThat(pass(h, alsoIn).pass().passId()).isEqualTo(pass(h, in).pass().passId());
    }
  }

  @Test
  void aBrowserThatComesAfterASessionLengthSharesTheSessionTheFirstKeptAlive() throws Exception {
    try (var h = new Harness(dataDir, room(1, ", sessionDurationMinutes: 5"))) {
      Browser laptop = h.browser();
      var in = laptop.get("/", "Anteroom-Account", identity("alice"));
      assertThat(Browser.reachedOrigin(in)).isTrue();
      for (int minute = 1; minute <= 8; minute++) { // the laptop browses past S = 5 minutes
        h.scheduler.advance(Duration.ofMinutes(1));
        in = laptop.get("/", "Anteroom-Account", identity("alice"));
        assertThat(Browser.reachedOrigin(in))
            .as("minute %d: the laptop's session runs", minute)
            .isTrue();
      }
      h.report("shop");

      Browser phone = h.browser();
      var alsoIn = phone.get("/", "Anteroom-Account", identity("alice"));

      assertThat(Browser.reachedOrigin(alsoIn))
          .as("the account's running session, not a new place in a full room")
          .isTrue();
      assertThat(pass(h, alsoIn).pass().passId()).isEqualTo(pass(h, in).pass().passId());
    }
  }

  /** The ticket in {@code browser}'s cookie, opened with the deployment's ticket keys. */
  private static io.anteroom.room.Ticket ticketOf(
      Browser browser, io.anteroom.objects.ManualScheduler scheduler) {
    var cookie =
        new io.anteroom.door.ticket.TicketCookie(
            "shop",
            "",
            false,
            io.anteroom.door.config.CookieSameSite.LAX,
            new io.anteroom.door.ticket.TicketCodec(
                java.util.List.of(
                    new io.anteroom.door.config.GatewayConfig.TicketKey(
                        1,
                        Base64.getDecoder()
                            .decode("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="))),
                scheduler.clock()));
    return cookie.openValue(browser.cookies.get(TICKET)).ticket();
  }

  @Test
  void anAccountsPlaceIsTheSameOnEveryGatewayOfTheDeployment() throws Exception {
    var scheduler = new io.anteroom.objects.ManualScheduler(Harness.START);
    try (var coordination =
            Harness.objects(scheduler, io.anteroom.coordinator.RoomObjects.REPORT_MAX_QPS);
        var a =
            new Harness(
                dataDir.resolve("a"),
                room(1, "") + KEYS,
                new TestOrigin(),
                scheduler,
                coordination,
                "dublin");
        var b =
            new Harness(
                dataDir.resolve("b"),
                room(1, "") + KEYS,
                new TestOrigin(),
                scheduler,
                coordination,
                "nairobi")) {
      Browser laptop = a.browser();
      assertThat(Browser.reachedOrigin(laptop.get("/", "Anteroom-Account", identity("alice"))))
          .isTrue();

      Browser phone = b.browser();
      var inNairobi = phone.get("/", "Anteroom-Account", identity("alice"));

      assertThat(Browser.reachedOrigin(inNairobi)).as("the same session").isTrue();
      var cookie =
          new io.anteroom.door.ticket.TicketCookie(
              "shop",
              "",
              false,
              io.anteroom.door.config.CookieSameSite.LAX,
              new io.anteroom.door.ticket.TicketCodec(
                  java.util.List.of(
                      new io.anteroom.door.config.GatewayConfig.TicketKey(
                          1,
                          Base64.getDecoder()
                              .decode("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="))),
                  scheduler.clock()));
      var onLaptop = cookie.openValue(laptop.cookies.get(TICKET)).ticket();
      var onPhone = cookie.openValue(phone.cookies.get(TICKET)).ticket();
      assertThat(onPhone.id()).as("one ticket id: one place").isEqualTo(onLaptop.id());
      assertThat(onPhone.admitted()).isTrue();
      assertThat(pass(b, inNairobi).pass().account()).contains("alice");
    }
  }

  /**
   * Two gateways, one coordination: alice's laptop waits on dublin, her phone (the same place) on
   * nairobi. Dublin lets the place in; nairobi, whose state has not heard of it yet, would let the
   * phone's waiting copy in too: the same pass id, but a second session counted. It checks with the
   * coordinator before such an admission, gives its admission back and answers with the session.
   */
  @Test
  void aWaitingPlaceLetInOnOneGatewayIsNotLetInAgainOnAnother() throws Exception {
    var scheduler = new io.anteroom.objects.ManualScheduler(Harness.START);
    try (var coordination =
            Harness.objects(scheduler, io.anteroom.coordinator.RoomObjects.REPORT_MAX_QPS);
        var a =
            new Harness(
                dataDir.resolve("a"),
                room(2, "") + KEYS,
                new TestOrigin(),
                scheduler,
                coordination,
                "dublin");
        var b =
            new Harness(
                dataDir.resolve("b"),
                room(2, "") + KEYS,
                new TestOrigin(),
                scheduler,
                coordination,
                "nairobi")) {
      Browser carol = a.browser();
      assertThat(Browser.reachedOrigin(carol.get("/", "Anteroom-Account", identity("carol"))))
          .isTrue();
      assertThat(Browser.reachedOrigin(a.browser().get("/", "Anteroom-Account", identity("dave"))))
          .isTrue();
      Browser laptop = a.browser();
      Browser phone = b.browser();
      assertThat(Browser.reachedOrigin(laptop.get("/", "Anteroom-Account", identity("alice"))))
          .isFalse();
      assertThat(Browser.reachedOrigin(phone.get("/", "Anteroom-Account", identity("alice"))))
          .as("the same place, waiting, on nairobi")
          .isFalse();

      carol.get("/revoke", "Anteroom-Account", identity("carol")); // one place is free again
      scheduler.advance(Duration.ofMinutes(1));
      a.report("shop");
      b.report("shop");
      var in = laptop.get("/", "Anteroom-Account", identity("alice"));
      assertThat(Browser.reachedOrigin(in)).as("alice's place is let in on dublin").isTrue();

      var onNairobi = phone.get("/", "Anteroom-Account", identity("alice"));

      assertThat(Browser.reachedOrigin(onNairobi)).as("the account's session").isTrue();
      var onLaptop = ticketOf(laptop, scheduler);
      var onPhone = ticketOf(phone, scheduler);
      assertThat(onPhone.id()).isEqualTo(onLaptop.id());
      assertThat(onPhone.acceptedAt()).as("dublin's admission").isEqualTo(onLaptop.acceptedAt());
      assertThat(pass(b, onNairobi).pass().admittedAt()).isEqualTo(pass(a, in).pass().admittedAt());
      scheduler.advance(Duration.ofMinutes(1)); // the next minute: the state counts every report
      for (int round = 0; round < 4; round++) { // both data centers' reports reach each state
        a.report("shop");
        b.report("shop");
        scheduler.advance(Duration.ofSeconds(5));
      }
      assertThat(b.gate("shop").status(scheduler.clock().millis()).estimatedTotalActiveUsers())
          .as("dave's session and alice's one session")
          .isEqualTo(2);
    }
  }

  @Test
  void anExpiredIdentityIsRefusedWithItsReasonAndTheAccountKeepsItsPlace() throws Exception {
    try (var h = new Harness(dataDir, room(5, ""))) {
      Browser laptop = h.browser();
      String shortLived = Accounts.sign(key, "alice", Harness.START.plusSeconds(120), null);
      var in = laptop.get("/", "Anteroom-Account", shortLived);
      assertThat(Browser.reachedOrigin(in)).isTrue();
      String ticket = laptop.cookies.get(TICKET);

      h.scheduler.advance(Duration.ofMinutes(3));
      var expired = laptop.get("/", "Accept", "application/json", "Anteroom-Account", shortLived);

      JsonNode account = refusal(expired, "account");
      assertThat(account.get("refused").asText()).isEqualTo("expired");
      assertThat(account.get("header").asText()).isEqualTo("Anteroom-Account");
      assertThat(laptop.cookies.get(TICKET)).as("nothing lost").isEqualTo(ticket);
      assertThat(laptop.get("/", "Anteroom-Account", shortLived).body())
          .contains("Please sign in again");

      var signedInAgain = laptop.get("/", "Anteroom-Account", identity("alice"));
      assertThat(Browser.reachedOrigin(signedInAgain)).isTrue();
      assertThat(pass(h, signedInAgain).pass().passId()).isEqualTo(pass(h, in).pass().passId());
    }
  }

  @Test
  void anInvitationSentToAnAccountGivesAPlaceToThatAccountOnly() throws Exception {
    byte[] inviteKey = new byte[32];
    new java.security.SecureRandom().nextBytes(inviteKey);
    Path inviteFile = dataDir.resolve("invite.key");
    Files.writeString(inviteFile, Base64.getEncoder().encodeToString(inviteKey));
    String rooms = room(5, ", invitations: { required: true, keyFile: " + inviteFile + " }");
    try (var h = new Harness(dataDir, rooms)) {
      String forAlice = Invitations.sign(inviteKey, "shop", null, "alice", "inv-1", LATER);

      var bob =
          h.browser()
              .get(
                  "/?anteroom-invite=" + forAlice,
                  "Accept",
                  "application/json",
                  "Anteroom-Account",
                  identity("bob"));
      assertThat(refusal(bob, "invitation").get("refused").asText()).isEqualTo("otherAccount");

      Browser alice = h.browser();
      var in = alice.get("/?anteroom-invite=" + forAlice, "Anteroom-Account", identity("alice"));
      assertThat(Browser.reachedOrigin(in)).as("not spent by bob's try").isTrue();
      assertThat(Browser.reachedOrigin(h.browser().get("/", "Anteroom-Account", identity("alice"))))
          .as("alice's second browser needs no second invitation")
          .isTrue();
    }
  }

  @Test
  void anIdTokenOfTheIdentityProviderNamesTheAccount() throws Exception {
    RSAKey signing = new RSAKeyGenerator(2048).keyID("k1").generate();
    Path jwks = dataDir.resolve("jwks.json");
    Files.writeString(jwks, new JWKSet(signing.toPublicJWK()).toString());
    String rooms =
        "rooms: [ { id: shop, totalActiveUsers: 5, account: { required: true, header:"
            + " Authorization, oidc: { issuer: 'https://id.example.com', audience: shop-app,"
            + " jwksFile: "
            + jwks
            + " } } } ]";
    try (var h = new Harness(dataDir, rooms)) {
      var header = new JWSHeader.Builder(JWSAlgorithm.RS256).keyID("k1").build();
      java.util.function.Function<String, String> idToken =
          aud -> {
            var jwt =
                new SignedJWT(
                    header,
                    new JWTClaimsSet.Builder()
                        .issuer("https://id.example.com")
                        .audience(aud)
                        .subject("user-4711")
                        .issueTime(Date.from(Harness.START))
                        .expirationTime(Date.from(Harness.START.plusSeconds(3600)))
                        .build());
            try {
              jwt.sign(new RSASSASigner(signing));
            } catch (com.nimbusds.jose.JOSEException e) {
              throw new IllegalStateException(e);
            }
            return jwt.serialize();
          };

      var in = h.browser().get("/", "Authorization", "Bearer " + idToken.apply("shop-app"));
      assertThat(Browser.reachedOrigin(in)).isTrue();
      assertThat(pass(h, in).pass().account()).contains("user-4711");

      var other =
          h.browser()
              .get(
                  "/",
                  "Accept",
                  "application/json",
                  "Authorization",
                  "Bearer " + idToken.apply("other-app"));
      assertThat(refusal(other, "account").get("refused").asText()).isEqualTo("otherAudience");
    }
  }
}
