package io.anteroom.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.PlainHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import io.anteroom.door.proof.Invitations;
import io.anteroom.door.proof.Work;
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
 * Invitations, black-box through the public listener: an invite-only room (or event) gives a place
 * in line only to a request with a valid signed invitation, once in the whole deployment; every
 * other request gets a clear 403 page or JSON code, no ticket, and the room's counts stay as they
 * were.
 */
class InvitationDoorTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TICKET = "__anteroom_shop";
  private static final Instant LATER = Harness.START.plus(Duration.ofDays(1));

  @TempDir Path dataDir;
  private byte[] key;
  private Path keyFile;

  @BeforeEach
  void key() throws Exception {
    key = new byte[32];
    new java.security.SecureRandom().nextBytes(key);
    keyFile = dataDir.resolve("invite.key");
    Files.writeString(keyFile, Base64.getEncoder().encodeToString(key) + "\n");
  }

  private String room(String more) {
    return "rooms: [ { id: shop, totalActiveUsers: 100, invitations: { required: true, keyFile: "
        + keyFile
        + " }"
        + more
        + " } ]";
  }

  private String invitation(String id) {
    return Invitations.sign(key, "shop", null, null, id, LATER);
  }

  private static JsonNode refused(HttpResponse<String> r) throws Exception {
    assertThat(r.statusCode()).isEqualTo(403);
    assertThat(r.headers().firstValue("content-type")).contains("application/json");
    assertThat(r.headers().firstValue("cache-control")).contains("no-store");
    assertThat(Browser.reachedOrigin(r)).isFalse();
    JsonNode j = JSON.readTree(r.body());
    assertThat(j.get("inWaitingRoom").asBoolean()).isFalse();
    JsonNode invitation = j.get("invitation");
    assertThat(invitation.get("required").asBoolean()).isTrue();
    assertThat(invitation.get("queryParameter").asText()).isEqualTo("anteroom-invite");
    assertThat(invitation.get("header").asText()).isEqualTo("Anteroom-Invite");
    return invitation;
  }

  private static String code(HttpResponse<String> r) throws Exception {
    return refused(r).get("refused").asText();
  }

  @Test
  void withoutAnInvitationAVisitGetsAClearPageAndJsonCodeButNoPlaceInLine() throws Exception {
    try (var h = new Harness(dataDir, room(""))) {
      Browser app = h.browser();
      assertThat(code(app.get("/", "Accept", "application/json"))).isEqualTo("missing");

      var page = app.get("/");
      assertThat(page.statusCode()).isEqualTo(403);
      assertThat(page.headers().firstValue("content-type"))
          .hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
      assertThat(page.body())
          .contains("By invitation only")
          .contains("open the link from your invitation")
          .contains("data-refused=\"missing\"");
      assertThat(app.cookies).doesNotContainKey(TICKET);
      assertThat(h.origin.requests.get()).isZero();
      h.report("shop");
      assertThat(h.gate("shop").status(Harness.START.toEpochMilli()).estimatedQueuedUsers())
          .as("nobody was counted")
          .isZero();
    }
  }

  @Test
  void theInvitationLinkGivesAPlaceAndTheTicketDoesTheRest() throws Exception {
    try (var h = new Harness(dataDir, room(""))) {
      Browser guest = h.browser();

      var in = guest.get("/?anteroom-invite=" + invitation("guest-1") + "&x=1");

      assertThat(Browser.reachedOrigin(in)).isTrue();
      assertThat(guest.cookies).containsKey(TICKET);
      assertThat(Browser.reachedOrigin(guest.get("/cart"))).as("the ticket does the rest").isTrue();
    }
  }

  @Test
  void anAppSendsItsInvitationInAHeader() throws Exception {
    try (var h = new Harness(dataDir, room(""))) {
      Browser app = h.browser();
      var in = app.get("/", "Accept", "application/json", "Anteroom-Invite", invitation("app-1"));
      assertThat(Browser.reachedOrigin(in)).isTrue();
      assertThat(app.cookies).containsKey(TICKET);
    }
  }

  @Test
  void oneInvitationGivesOnePlace() throws Exception {
    try (var h = new Harness(dataDir, room(""))) {
      String token = invitation("guest-1");
      assertThat(Browser.reachedOrigin(h.browser().get("/?anteroom-invite=" + token))).isTrue();

      Browser copy = h.browser(); // the link forwarded to a friend, or a scalper's second bot
      var r = copy.get("/?anteroom-invite=" + token, "Accept", "application/json");

      assertThat(code(r)).isEqualTo("replayed");
      assertThat(copy.cookies).doesNotContainKey(TICKET);
      assertThat(copy.get("/?anteroom-invite=" + token).body())
          .contains("This invitation has already been used");
    }
  }

  @Test
  void anInvitationUsedOnOneGatewayIsRefusedOnEveryOther() throws Exception {
    String shared =
        room("")
            + "\nticketKeys: [ { id: 1, secret: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8= } ]";
    var scheduler = new io.anteroom.objects.ManualScheduler(Harness.START);
    try (var coordination =
            Harness.objects(scheduler, io.anteroom.coordinator.RoomObjects.REPORT_MAX_QPS);
        var a =
            new Harness(
                dataDir.resolve("a"), shared, new TestOrigin(), scheduler, coordination, "dublin");
        var b =
            new Harness(
                dataDir.resolve("b"),
                shared,
                new TestOrigin(),
                scheduler,
                coordination,
                "nairobi")) {
      String token = invitation("guest-1");
      assertThat(Browser.reachedOrigin(a.browser().get("/?anteroom-invite=" + token))).isTrue();

      Browser copy = b.browser(); // never used at this gateway
      var r = copy.get("/?anteroom-invite=" + token, "Accept", "application/json");

      assertThat(code(r)).isEqualTo("replayed");
      assertThat(copy.cookies).doesNotContainKey(TICKET);
      assertThat(b.origin.requests.get()).isZero();
    }
  }

  @Test
  void badInvitationsAreRefusedEachWithItsReasonAndNothingIsSpent() throws Exception {
    try (var h = new Harness(dataDir, room(""))) {
      byte[] otherKey = new byte[32];
      String good = invitation("guest-1");
      var claims =
          new JWTClaimsSet.Builder()
              .audience("shop")
              .jwtID("guest-2")
              .expirationTime(Date.from(LATER))
              .build();
      String unsigned = new PlainJWT(new PlainHeader(), claims).serialize();
      var hs512 = new SignedJWT(new JWSHeader(JWSAlgorithm.HS512), claims);
      hs512.sign(new MACSigner(java.util.Arrays.copyOf(key, 64)));
      char[] tampered = good.toCharArray();
      int mid = good.lastIndexOf('.') + 5; // a character of the MAC changed: it no longer holds
      tampered[mid] = tampered[mid] == 'A' ? 'B' : 'A';

      String[][] cases = {
        {"not-a-token", "malformed"},
        {unsigned, "forged"},
        {hs512.serialize(), "forged"},
        {new String(tampered), "forged"},
        {Invitations.sign(otherKey, "shop", null, null, "g", LATER), "forged"},
        {Invitations.sign(key, "shop", null, null, "g", Harness.START.minusSeconds(1)), "expired"},
        {Invitations.sign(key, "other", null, null, "g", LATER), "otherRoom"},
        {Invitations.sign(key, "shop", "drop", null, "g", LATER), "otherEvent"},
        {Invitations.sign(key, "shop", null, null, "", LATER), "malformed"},
      };
      for (String[] c : cases) {
        Browser bot = h.browser();
        var r = bot.get("/", "Accept", "application/json", "Anteroom-Invite", c[0]);
        assertThat(code(r)).as(c[1] + " " + c[0]).isEqualTo(c[1]);
        assertThat(bot.cookies).doesNotContainKey(TICKET);
      }
      assertThat(Browser.reachedOrigin(h.browser().get("/?anteroom-invite=" + good)))
          .as("nothing the bad tokens did spent the good one")
          .isTrue();
      assertThat(h.origin.requests.get()).isEqualTo(1);
    }
  }

  @Test
  void aLiveSessionIsNeverAskedAgainButANewIdentityNeedsANewInvitation() throws Exception {
    try (var h = new Harness(dataDir, room(""))) {
      Browser guest = h.browser();
      String token = invitation("guest-1");
      assertThat(Browser.reachedOrigin(guest.get("/?anteroom-invite=" + token))).isTrue();
      h.scheduler.advance(Duration.ofMinutes(2));
      assertThat(Browser.reachedOrigin(guest.get("/"))).as("session").isTrue();

      assertThat(Browser.reachedOrigin(guest.get("/revoke"))).as("logged out").isTrue();
      var again = guest.get("/?anteroom-invite=" + token, "Accept", "application/json");

      assertThat(code(again)).as("a logout is no second place").isEqualTo("replayed");
      assertThat(Browser.reachedOrigin(guest.get("/?anteroom-invite=" + invitation("guest-1b"))))
          .isTrue();
    }
  }

  @Test
  void aProofOfWorkChallengeOnTheWayDoesNotSpendTheInvitation() throws Exception {
    try (var h = new Harness(dataDir, room(", proofOfWork: { enabled: true, difficulty: 8 }"))) {
      Browser guest = h.browser();
      String token = invitation("guest-1");
      var challenged = guest.get("/", "Accept", "application/json", "Anteroom-Invite", token);
      assertThat(challenged.statusCode()).isEqualTo(200);
      JsonNode pow = JSON.readTree(challenged.body()).get("proofOfWork");
      String answer =
          pow.get("challenge").asText()
              + "."
              + Work.solve(pow.get("challenge").asText(), pow.get("difficulty").asInt());

      var in = guest.get("/", "Anteroom-Invite", token, "Anteroom-Proof", answer);

      assertThat(Browser.reachedOrigin(in)).isTrue();
      assertThat(guest.cookies).containsKey(TICKET);
    }
  }

  @Test
  void anInviteOnlyEventAsksForInvitationsForItsOwnTimeOnly() throws Exception {
    // the harness starts at 2026-11-22T10:00:05Z; the event's pre-queue opens at 10:01
    String rooms =
        """
        rooms:
          - id: shop
            totalActiveUsers: 100
            invitations: { keyFile: %s }
            events:
              - name: drop
                prequeueStartTime: 2026-11-22T10:01:00Z
                eventStartTime: 2026-11-22T10:30:00Z
                eventEndTime: 2026-11-22T11:00:00Z
                invitations: { required: true }
        """
            .formatted(keyFile);
    try (var h = new Harness(dataDir, rooms)) {
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).as("before: open to all").isTrue();

      h.scheduler.advance(Duration.ofMinutes(1));
      assertThat(code(h.browser().get("/", "Accept", "application/json"))).isEqualTo("missing");
      Browser guest = h.browser();
      var prequeue =
          guest.get(
              "/",
              "Accept",
              "application/json",
              "Anteroom-Invite",
              Invitations.sign(key, "shop", "drop", null, "guest-1", LATER));
      assertThat(prequeue.statusCode()).isEqualTo(200);
      assertThat(JSON.readTree(prequeue.body()).get("isPrequeue").asBoolean()).isTrue();
      assertThat(guest.cookies).as("a place in the pre-queue").containsKey(TICKET);

      h.scheduler.advance(Duration.ofMinutes(60));
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).as("after: open again").isTrue();
    }
  }
}
