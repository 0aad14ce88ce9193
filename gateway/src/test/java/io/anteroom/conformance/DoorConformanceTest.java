package io.anteroom.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.anteroom.door.proof.Work;
import io.anteroom.gateway.Browser;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One set of black-box HTTP tests of the door, run against every server it has: the Vert.x proxy
 * ({@link ProxyConformanceTest}) and the Servlet filter in a real Tomcat ({@link
 * FilterConformanceTest}). Each server runs the same YAML rooms in front of an origin that answers
 * {@code origin:<path>...}, sets {@code Anteroom-Command: revoke} on {@code /revoke} and says in
 * {@code X-Origin-Saw-Pass} what {@code Anteroom-Pass} header it received. No test depends on time
 * passing.
 */
abstract class DoorConformanceTest {

  static final ObjectMapper JSON = new ObjectMapper();
  static final String TICKET = "__anteroom_shop";

  @TempDir Path dataDir;

  /** A server running {@code roomsYaml} (top-level keys: rooms, trustedProxies). */
  interface Server extends AutoCloseable {
    String url();

    /** Where the server publishes the public keys of the signed pass (a JWKS document). */
    String jwksUrl();

    /** The server's clock (the proxy's runs on virtual time). */
    default java.time.Clock clock() {
      return java.time.Clock.systemUTC();
    }

    default Browser browser() {
      return new Browser(Browser.newClient(), url());
    }
  }

  abstract Server start(Path dataDir, String roomsYaml) throws Exception;

  static boolean reachedOrigin(HttpResponse<String> r) {
    return Browser.reachedOrigin(r);
  }

  @Test
  void usersPastTheLimitAreQueuedAndTheAdmittedOneStaysIn() throws Exception {
    try (var s = start(dataDir, "rooms: [ { id: shop, totalActiveUsers: 1 } ]")) {
      Browser first = s.browser();
      Browser second = s.browser();

      assertThat(reachedOrigin(first.get("/a"))).isTrue();
      var queued = second.get("/b");
      var json = second.get("/b", "Accept", "application/json");

      assertThat(reachedOrigin(queued)).isFalse();
      assertThat(queued.statusCode()).isEqualTo(200);
      assertThat(queued.headers().firstValue("content-type"))
          .hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
      assertThat(queued.headers().firstValue("anteroom-throttle")).isPresent();
      assertThat(queued.headers().firstValue("cache-control")).contains("no-store");
      assertThat(JSON.readTree(json.body()).get("inWaitingRoom").asBoolean()).isTrue();
      assertThat(second.cookies).containsKey(TICKET);
      assertThat(reachedOrigin(first.get("/c"))).as("the admitted user's session").isTrue();
    }
  }

  @Test
  void oddSpellingsOfARoomsPathAreJudgedByThatRoom() throws Exception {
    try (var s = start(dataDir, "rooms: [ { id: shop, path: /shop/, totalActiveUsers: 1 } ]")) {
      assertThat(reachedOrigin(s.browser().get("/shop/full"))).isTrue(); // the one place, taken
      assertThat(reachedOrigin(s.browser().get("/elsewhere"))).as("no room").isTrue();

      for (String odd :
          new String[] {
            "/%73hop/x", "/shop/./x", "/other/../shop/x", "/Shop/../shop/x", "/shop;p=1/x"
          }) {
        var r = s.browser().get(odd);
        assertThat(reachedOrigin(r)).as(odd).isFalse();
      }
    }
  }

  @Test
  void aCopiedAdmittedCookieIsTheSameUserAndARevokedOneIsNoLongerHonoured() throws Exception {
    try (var s = start(dataDir, "rooms: [ { id: shop, totalActiveUsers: 1 } ]")) {
      Browser owner = s.browser();
      assertThat(reachedOrigin(owner.get("/"))).isTrue();
      String ticket = owner.cookies.get(TICKET);
      Browser copy = s.browser();
      copy.cookies.put(TICKET, ticket);

      assertThat(reachedOrigin(copy.get("/"))).as("a copy is the same session").isTrue();
      assertThat(reachedOrigin(s.browser().get("/"))).as("and took no second place").isFalse();

      var revoked = owner.get("/revoke");
      assertThat(reachedOrigin(revoked)).isTrue();
      assertThat(revoked.headers().firstValue("anteroom-command")).isEmpty();
      assertThat(revoked.headers().allValues("set-cookie"))
          .anySatisfy(c -> assertThat(c).startsWith(TICKET + "=;").contains("Max-Age=0"));
      assertThat(owner.cookies).doesNotContainKey(TICKET);

      copy.get("/");
      assertThat(copy.cookies.get(TICKET)).as("the replayed copy starts over").isNotEqualTo(ticket);
    }
  }

  @Test
  void bypassRulesLetTheirTrafficSkipAFullRoom() throws Exception {
    String rooms =
        """
        rooms:
          - id: shop
            totalActiveUsers: 1
            bypass: [ { path: /static/** }, { header: X-Health-Check } ]""";
    try (var s = start(dataDir, rooms)) {
      assertThat(reachedOrigin(s.browser().get("/"))).isTrue();
      Browser late = s.browser();

      var asset = late.get("/static/app.css");
      assertThat(reachedOrigin(asset)).isTrue();
      assertThat(asset.headers().allValues("set-cookie")).isEmpty();
      assertThat(reachedOrigin(late.get("/", "X-Health-Check", "1"))).isTrue();
      assertThat(reachedOrigin(late.get("/"))).isFalse();
    }
  }

  @Test
  void aTrustedProxyNamesTheClientForCidrRules() throws Exception {
    String rooms =
        """
        trustedProxies: [ 127.0.0.1/32 ]
        rooms:
          - id: shop
            totalActiveUsers: 1
            bypass: [ { cidr: 203.0.113.0/24 } ]""";
    try (var s = start(dataDir, rooms)) {
      assertThat(reachedOrigin(s.browser().get("/"))).isTrue();

      assertThat(reachedOrigin(s.browser().get("/", "X-Forwarded-For", "203.0.113.7"))).isTrue();
      assertThat(
              reachedOrigin(s.browser().get("/", "X-Forwarded-For", "203.0.113.7, 198.51.100.2")))
          .as("the first untrusted hop from the right is the client")
          .isFalse();
    }
  }

  @Test
  void aClientThatIsNoTrustedProxyCannotNameItself() throws Exception {
    String rooms =
        """
        rooms:
          - id: shop
            totalActiveUsers: 1
            bypass: [ { cidr: 203.0.113.0/24 } ]""";
    try (var s = start(dataDir, rooms)) {
      assertThat(reachedOrigin(s.browser().get("/"))).isTrue();

      assertThat(reachedOrigin(s.browser().get("/", "X-Forwarded-For", "203.0.113.7"))).isFalse();
    }
  }

  /** The pass the origin received with {@code r}, verified with the server's published keys. */
  static io.anteroom.pass.PassCheck passOf(Server s, HttpResponse<String> r) throws Exception {
    var verifier =
        io.anteroom.pass.PassVerifier.builder()
            .jwks(java.net.URI.create(s.jwksUrl()).toURL())
            .rooms("shop")
            .clock(s.clock())
            .build();
    return verifier.verify(r.headers().firstValue("x-origin-saw-pass").orElse(null));
  }

  @Test
  void aClientsOwnAnteroomPassNeverReachesTheOrigin() throws Exception {
    try (var s = start(dataDir, "rooms: [ { id: shop, totalActiveUsers: 5 } ]")) {
      var r = s.browser().get("/", "Anteroom-Pass", "forged");

      assertThat(reachedOrigin(r)).isTrue();
      assertThat(r.headers().firstValue("x-origin-saw-pass"))
          .as("the door's own pass in its place")
          .isPresent()
          .get()
          .isNotEqualTo("forged");
      assertThat(passOf(s, r)).isInstanceOf(io.anteroom.pass.PassCheck.Valid.class);
    }
  }

  @Test
  void everyAdmittedRequestCarriesASignedPassStableForItsUserThatTheOriginCanVerify()
      throws Exception {
    try (var s = start(dataDir, "rooms: [ { id: shop, totalActiveUsers: 2 } ]")) {
      var alice = s.browser();
      var first = alice.get("/");
      var second = alice.get("/cart");
      var bob = s.browser().get("/");
      var queued = s.browser().get("/");

      var a1 = (io.anteroom.pass.PassCheck.Valid) passOf(s, first);
      var a2 = (io.anteroom.pass.PassCheck.Valid) passOf(s, second);
      var b = (io.anteroom.pass.PassCheck.Valid) passOf(s, bob);
      assertThat(a1.pass().room()).isEqualTo("shop");
      assertThat(a2.pass().passId())
          .as("one pass id per admitted user")
          .isEqualTo(a1.pass().passId());
      assertThat(b.pass().passId()).as("another user, another id").isNotEqualTo(a1.pass().passId());
      assertThat(a1.pass().passId()).as("never the cookie itself").isNotIn(alice.cookies.values());
      assertThat(reachedOrigin(queued)).as("past T: queued, no pass").isFalse();
    }
  }

  private static JsonNode challengeOf(HttpResponse<String> r) throws Exception {
    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode pow = JSON.readTree(r.body()).get("proofOfWork");
    assertThat(pow).isNotNull();
    return pow;
  }

  private static String solve(JsonNode pow) {
    String challenge = pow.get("challenge").asText();
    return challenge + "." + Work.solve(challenge, pow.get("difficulty").asInt());
  }

  @Test
  void newUsersAndRevokedOnesSolveTheProofOfWorkBeforeTheyGetATicket() throws Exception {
    String rooms =
        "rooms: [ { id: shop, totalActiveUsers: 100, proofOfWork: { enabled: true, difficulty: 8 }"
            + " } ]";
    try (var s = start(dataDir, rooms)) {
      Browser app = s.browser();
      JsonNode pow = challengeOf(app.get("/", "Accept", "application/json"));
      assertThat(app.cookies).doesNotContainKey(TICKET);
      assertThat(
              JSON.readTree(app.get("/", "Accept", "application/json").body()).has("proofOfWork"))
          .isTrue();

      var in = app.get("/", "Accept", "application/json", "Anteroom-Proof", solve(pow));
      assertThat(reachedOrigin(in)).isTrue();
      String ticket = app.cookies.get(TICKET);
      assertThat(ticket).isNotNull();
      assertThat(reachedOrigin(app.get("/again"))).as("the ticket does the rest").isTrue();

      assertThat(reachedOrigin(app.get("/revoke"))).isTrue();
      Browser replay = s.browser();
      replay.cookies.put(TICKET, ticket);
      var again = replay.get("/", "Accept", "application/json");
      assertThat(reachedOrigin(again)).isFalse();
      challengeOf(again);
      assertThat(replay.cookies.get(TICKET)).as("no new identity for free").isEqualTo(ticket);
    }
  }

  @Test
  void anInviteOnlyRoomGivesOnePlacePerInvitationAndNoneWithout() throws Exception {
    byte[] key = new byte[32];
    new java.security.SecureRandom().nextBytes(key);
    java.nio.file.Files.createDirectories(dataDir);
    Path keyFile = dataDir.resolve("invite.key");
    java.nio.file.Files.writeString(keyFile, java.util.Base64.getEncoder().encodeToString(key));
    String rooms =
        "rooms: [ { id: shop, totalActiveUsers: 100, invitations: { required: true, keyFile: "
            + keyFile
            + " } } ]";
    try (var s = start(dataDir, rooms)) {
      Browser stranger = s.browser();
      var turnedAway = stranger.get("/", "Accept", "application/json");
      assertThat(turnedAway.statusCode()).isEqualTo(403);
      assertThat(JSON.readTree(turnedAway.body()).get("invitation").get("refused").asText())
          .isEqualTo("missing");
      assertThat(stranger.cookies).doesNotContainKey(TICKET);

      String token =
          io.anteroom.door.proof.Invitations.sign(
              key, "shop", null, null, "guest-1", s.clock().instant().plusSeconds(3600));
      Browser guest = s.browser();
      assertThat(reachedOrigin(guest.get("/?anteroom-invite=" + token))).isTrue();
      assertThat(reachedOrigin(guest.get("/cart"))).as("the ticket does the rest").isTrue();

      Browser copy = s.browser();
      var replayed = copy.get("/", "Accept", "application/json", "Anteroom-Invite", token);
      assertThat(replayed.statusCode()).isEqualTo(403);
      assertThat(JSON.readTree(replayed.body()).get("invitation").get("refused").asText())
          .isEqualTo("replayed");
      assertThat(copy.cookies).doesNotContainKey(TICKET);
    }
  }
}
