package io.anteroom.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.anteroom.door.proof.Work;
import io.anteroom.gateway.Browser;
import io.anteroom.gateway.SiteVerifyStandIn;
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

  @Test
  void blockRulesRefuseTheirRequestsWith403AndNeverAPlace() throws Exception {
    String rooms =
        """
        rooms:
          - id: shop
            totalActiveUsers: 5
            rules:
              - { action: block, method: POST, path: /cart/** }
              - { action: block, query: { name: promo, glob: "bot*" } }
              - { action: block, path: /drop/**, header: { name: Accept-Language, not: true } }
              - { action: block, cookie: { name: tier, value: banned } }
              - { action: block, userAgent: "*scalperbot*" }""";
    try (var s = start(dataDir, rooms)) {
      Browser b = s.browser();
      var post = b.send("POST", "/cart/add");
      assertThat(post.statusCode()).isEqualTo(403);
      assertThat(post.body()).contains("not allowed");
      assertThat(post.headers().allValues("set-cookie")).isEmpty();
      assertThat(b.cookies).doesNotContainKey(TICKET);
      var json = b.send("POST", "/cart/add", "Accept", "application/json");
      assertThat(JSON.readTree(json.body()).get("error").asText()).isEqualTo("blocked");
      assertThat(b.send("DELETE", "/cart/add").statusCode()).as("another method").isNotEqualTo(403);

      assertThat(s.browser().get("/?x=1&promo=bot%2D7").statusCode())
          .as("any value of a repeated, percent-encoded parameter")
          .isEqualTo(403);
      assertThat(reachedOrigin(s.browser().get("/?promo=spring"))).isTrue();

      assertThat(s.browser().get("/drop/1").statusCode()).as("negated: no header").isEqualTo(403);
      assertThat(reachedOrigin(s.browser().get("/drop/1", "Accept-Language", "de"))).isTrue();
      assertThat(s.browser().get("/%64rop/1").statusCode())
          .as("the normalised path is judged")
          .isEqualTo(403);

      Browser banned = s.browser();
      banned.cookies.put("tier", "banned");
      assertThat(banned.get("/").statusCode()).isEqualTo(403);
      assertThat(s.browser().get("/", "User-Agent", "ScalperBot/1.0").statusCode()).isEqualTo(403);
    }
  }

  @Test
  void theFirstMatchingRuleDecidesSoAQueueRuleIsAnExceptionToALaterBypass() throws Exception {
    String rooms =
        """
        rooms:
          - id: shop
            totalActiveUsers: 1
            rules: [ { action: queue, path: /static/private/** } ]
            bypass: [ { path: /static/** } ]""";
    try (var s = start(dataDir, rooms)) {
      assertThat(reachedOrigin(s.browser().get("/"))).isTrue();

      assertThat(reachedOrigin(s.browser().get("/static/app.css"))).isTrue();
      var queued = s.browser().get("/static/private/invoice.pdf");
      assertThat(reachedOrigin(queued)).as("queued in the full room").isFalse();
      assertThat(queued.statusCode()).isEqualTo(200);
    }
  }

  @Test
  void aChallengeRuleMakesItsTrafficSolveTheProofOfWorkInARoomThatHasItOff() throws Exception {
    String rooms =
        """
        rooms:
          - id: shop
            totalActiveUsers: 5
            proofOfWork: { difficulty: 4 }
            rules: [ { action: challenge, userAgent: "*curl*" } ]""";
    try (var s = start(dataDir, rooms)) {
      assertThat(reachedOrigin(s.browser().get("/", "User-Agent", "Firefox")))
          .as("others are not asked")
          .isTrue();

      Browser bot = s.browser();
      var challenged = bot.get("/", "User-Agent", "curl/8.5", "Accept", "application/json");
      assertThat(reachedOrigin(challenged)).isFalse();
      JsonNode pow = JSON.readTree(challenged.body()).get("proofOfWork");
      assertThat(pow).as(challenged.body()).isNotNull();
      assertThat(bot.cookies).doesNotContainKey(TICKET);

      String challenge = pow.get("challenge").asText();
      String answer = challenge + "." + Work.solve(challenge, pow.get("difficulty").asInt());
      assertThat(reachedOrigin(bot.get("/", "User-Agent", "curl/8.5", "Anteroom-Proof", answer)))
          .isTrue();
      assertThat(reachedOrigin(bot.get("/", "User-Agent", "curl/8.5")))
          .as("a returning user is not asked again")
          .isTrue();
    }
  }

  @Test
  void aSignedBypassLetsTheOperatorsMonitorThroughAndNothingForgedOrOld() throws Exception {
    Path key = dataDir.resolve("monitor.key");
    String secret = "0123456789abcdef0123456789abcdef0123456789abcdef";
    java.nio.file.Files.writeString(key, secret + "\n");
    String rooms =
        """
        rooms:
          - id: shop
            totalActiveUsers: 1
            rules: [ { action: bypass, signed: { keyFile: %s, maxAgeSeconds: 60 } } ]"""
            .formatted(key);
    try (var s = start(dataDir, rooms)) {
      assertThat(reachedOrigin(s.browser().get("/"))).isTrue(); // the one place, taken
      byte[] k = secret.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      long now = s.clock().instant().getEpochSecond();
      String good = io.anteroom.door.route.SignedBypass.token(k, "shop", now, "GET", "/health");

      var monitor = s.browser().get("/health", "Anteroom-Bypass", good);
      assertThat(reachedOrigin(monitor)).isTrue();
      assertThat(reachedOrigin(s.browser().get("/health", "Anteroom-Bypass", good)))
          .as("the same token again within its window")
          .isTrue();

      assertThat(reachedOrigin(s.browser().get("/health", "Anteroom-Bypass", "forged"))).isFalse();
      assertThat(reachedOrigin(s.browser().get("/health"))).isFalse();
      assertThat(reachedOrigin(s.browser().get("/checkout", "Anteroom-Bypass", good)))
          .as("a token is for its path")
          .isFalse();
      String old =
          io.anteroom.door.route.SignedBypass.token(k, "shop", now - 600, "GET", "/health");
      assertThat(reachedOrigin(s.browser().get("/health", "Anteroom-Bypass", old)))
          .as("replayed after its window")
          .isFalse();
      String otherKey =
          io.anteroom.door.route.SignedBypass.token(
              "another key of enough length, 32+ chars".getBytes(), "shop", now, "GET", "/health");
      assertThat(reachedOrigin(s.browser().get("/health", "Anteroom-Bypass", otherKey))).isFalse();
    }
  }

  @Test
  void newIdentitiesPerAddressPrefixAreLimitedWith429AndRetryAfter() throws Exception {
    String rooms =
        """
        trustedProxies: [ 127.0.0.1/32 ]
        rooms:
          - id: shop
            totalActiveUsers: 1
            addressLimit: { newIdentitiesPerMinute: 2, ipv4PrefixLength: 24 }""";
    try (var s = start(dataDir, rooms)) {
      Browser admitted = s.browser();
      assertThat(reachedOrigin(admitted.get("/", "X-Forwarded-For", "203.0.113.7"))).isTrue();
      Browser queued = s.browser();
      assertThat(queued.get("/", "X-Forwarded-For", "203.0.113.8").statusCode()).isEqualTo(200);
      assertThat(queued.cookies).containsKey(TICKET);

      Browser third = s.browser();
      var limited = third.get("/", "X-Forwarded-For", "203.0.113.200");
      assertThat(limited.statusCode())
          .as("the third new identity of 203.0.113.0/24")
          .isEqualTo(429);
      assertThat(limited.headers().firstValue("retry-after"))
          .hasValueSatisfying(r -> assertThat(Integer.parseInt(r)).isBetween(1, 30));
      assertThat(limited.body()).contains("Too many new visitors");
      assertThat(third.cookies).doesNotContainKey(TICKET);
      var json = third.get("/", "X-Forwarded-For", "203.0.113.200", "Accept", "application/json");
      assertThat(json.statusCode()).isEqualTo(429);
      assertThat(JSON.readTree(json.body()).get("error").asText()).isEqualTo("tooManyNewVisitors");

      assertThat(reachedOrigin(admitted.get("/", "X-Forwarded-For", "203.0.113.7")))
          .as("a returning user is never counted")
          .isTrue();
      assertThat(queued.get("/", "X-Forwarded-For", "203.0.113.8").statusCode())
          .as("nor is a waiting one")
          .isEqualTo(200);
      assertThat(s.browser().get("/", "X-Forwarded-For", "198.51.100.1").statusCode())
          .as("another prefix has its own budget")
          .isEqualTo(200);
    }
  }

  String humanRoom(SiteVerifyStandIn provider, String extra) throws Exception {
    Path secret = dataDir.resolve("human.secret");
    java.nio.file.Files.writeString(secret, "s3cret\n");
    return """
        rooms:
          - id: shop
            totalActiveUsers: 5
            humanCheck: { enabled: true, provider: hcaptcha, siteKey: site-1, secretFile: %s,
                          verifyUrl: "%s", scriptUrl: "%s"%s }"""
        .formatted(secret, provider.verifyUrl(), provider.scriptUrl(), extra);
  }

  @Test
  void aHumanCheckVerifiesTheWidgetsTokenWithTheProviderBeforeANewIdentity() throws Exception {
    try (var provider = new SiteVerifyStandIn("s3cret");
        var s = start(dataDir, humanRoom(provider, ""))) {
      Browser b = s.browser();
      var page = b.get("/");
      assertThat(reachedOrigin(page)).isFalse();
      assertThat(page.body())
          .contains("class=\"h-captcha\" data-sitekey=\"site-1\"")
          .contains("<script src=\"" + provider.scriptUrl() + "\"");
      assertThat(b.cookies).doesNotContainKey(TICKET);
      JsonNode human =
          JSON.readTree(b.get("/", "Accept", "application/json").body()).get("humanCheck");
      assertThat(human.get("provider").asText()).isEqualTo("hcaptcha");
      assertThat(human.get("siteKey").asText()).isEqualTo("site-1");
      assertThat(provider.calls).as("nothing to verify yet").isEmpty();

      var bad = b.get("/", "Anteroom-Human", "forged", "Accept", "application/json");
      assertThat(JSON.readTree(bad.body()).get("humanCheck").get("refused").asText())
          .isEqualTo("failed");
      assertThat(b.cookies).doesNotContainKey(TICKET);

      assertThat(reachedOrigin(b.get("/", "Anteroom-Human", "good-1"))).isTrue();
      assertThat(b.cookies).containsKey(TICKET);
      assertThat(provider.calls.getLast())
          .containsEntry("secret", "s3cret")
          .containsEntry("response", "good-1")
          .containsEntry("remoteip", "127.0.0.1");
      assertThat(reachedOrigin(b.get("/"))).as("a returning user is not asked again").isTrue();

      Browser copy = s.browser();
      assertThat(reachedOrigin(copy.get("/", "Anteroom-Human", "good-1")))
          .as("a used token, replayed: the provider refuses it")
          .isFalse();

      Browser viaCookie = s.browser();
      viaCookie.cookies.put("__anteroom-human_shop", "good-2");
      var in = viaCookie.get("/");
      assertThat(reachedOrigin(in)).isTrue();
      assertThat(viaCookie.cookies)
          .as("the used token is cleared")
          .doesNotContainKey("__anteroom-human_shop");
    }
  }

  @Test
  void aRefusedHumanCheckCanLeadToTheEndlessQueueForTheAddress() throws Exception {
    try (var provider = new SiteVerifyStandIn("s3cret");
        var s = start(dataDir, humanRoom(provider, ", onFailure: endlessQueue"))) {
      Browser bot = s.browser();
      var refused = bot.get("/", "Anteroom-Human", "forged", "Accept", "application/json");
      JsonNode json = JSON.readTree(refused.body());
      assertThat(json.get("inWaitingRoom").asBoolean()).isTrue();
      assertThat(json.has("humanCheck")).as("the endless queue, not the widget").isFalse();

      var later = s.browser().get("/", "Anteroom-Human", "good-3");
      assertThat(reachedOrigin(later)).as("the address stays in the endless queue").isFalse();
      assertThat(provider.calls).hasSize(1);
    }
  }

  @Test
  void whileTheProviderIsDownTheRoomDoesWhatOnUnavailableSays() throws Exception {
    try (var provider = new SiteVerifyStandIn("s3cret")) {
      provider.down = true;
      try (var s = start(dataDir, humanRoom(provider, ""))) {
        var closed = s.browser().get("/", "Anteroom-Human", "good-4", "Accept", "application/json");
        assertThat(JSON.readTree(closed.body()).get("humanCheck").get("refused").asText())
            .as("closed by default: nobody new gets in unchecked")
            .isEqualTo("unavailable");
      }
      java.nio.file.Files.deleteIfExists(dataDir.resolve("anteroom.yaml"));
      try (var s = start(dataDir, humanRoom(provider, ", onUnavailable: open"))) {
        assertThat(reachedOrigin(s.browser().get("/", "Anteroom-Human", "good-5")))
            .as("open: let through while the provider is down")
            .isTrue();
      }
    }
  }

  @Test
  void theProofOfWorkGetsHarderForAnAddressThatMintsManyIdentities() throws Exception {
    String rooms =
        """
        trustedProxies: [ 127.0.0.1/32 ]
        rooms:
          - id: shop
            totalActiveUsers: 50
            proofOfWork: { enabled: true, difficulty: 4, maxExtraBits: 3, extraBitAfter: 2 }""";
    try (var s = start(dataDir, rooms)) {
      var difficulties = new java.util.ArrayList<Integer>();
      for (int i = 0; i < 5; i++) {
        Browser bot = s.browser();
        JsonNode pow =
            JSON.readTree(
                    bot.get("/", "X-Forwarded-For", "203.0.113.7", "Accept", "application/json")
                        .body())
                .get("proofOfWork");
        int bits = pow.get("difficulty").asInt();
        difficulties.add(bits);
        String challenge = pow.get("challenge").asText();
        String answer = challenge + "." + Work.solve(challenge, bits);
        assertThat(
                reachedOrigin(
                    bot.get("/", "X-Forwarded-For", "203.0.113.7", "Anteroom-Proof", answer)))
            .isTrue();
      }
      assertThat(difficulties).containsExactly(4, 4, 5, 5, 6);
      JsonNode other =
          JSON.readTree(
                  s.browser()
                      .get("/", "X-Forwarded-For", "198.51.100.1", "Accept", "application/json")
                      .body())
              .get("proofOfWork");
      assertThat(other.get("difficulty").asInt()).as("another address").isEqualTo(4);
    }
  }

  /** The pass the origin received with {@code r}, verified with the server's published keys. */
  /**
   * The pass the origin saw with {@code r}, which must be valid (else: why not, and the answer).
   */
  static io.anteroom.pass.PassCheck.Valid validPassOf(Server s, HttpResponse<String> r)
      throws Exception {
    io.anteroom.pass.PassCheck check = passOf(s, r);
    assertThat(check)
        .as("the origin's pass for %s: %s %s", r.uri(), r.statusCode(), r.headers().map())
        .isInstanceOf(io.anteroom.pass.PassCheck.Valid.class);
    return (io.anteroom.pass.PassCheck.Valid) check;
  }

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

      var a1 = validPassOf(s, first);
      var a2 = validPassOf(s, second);
      var b = validPassOf(s, bob);
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

  private Path identityKey(byte[] key) throws Exception {
    new java.security.SecureRandom().nextBytes(key);
    java.nio.file.Files.createDirectories(dataDir);
    Path file = dataDir.resolve("identity.key");
    java.nio.file.Files.writeString(file, java.util.Base64.getEncoder().encodeToString(key));
    return file;
  }

  private static String refusedAccount(HttpResponse<String> r) throws Exception {
    assertThat(r.statusCode()).isEqualTo(403);
    assertThat(reachedOrigin(r)).isFalse();
    return JSON.readTree(r.body()).get("account").get("refused").asText();
  }

  @Test
  void everyBrowserOfOneAccountSharesItsOnePlaceAndTheSessionAndThePassNamesIt() throws Exception {
    byte[] key = new byte[32];
    Path keyFile = identityKey(key);
    String rooms =
        "rooms: [ { id: shop, totalActiveUsers: 1, account: { required: true, hs256SecretFile: "
            + keyFile
            + " } } ]";
    try (var s = start(dataDir, rooms)) {
      java.time.Instant later = s.clock().instant().plusSeconds(3600);
      String alice = io.anteroom.door.proof.Accounts.sign(key, "alice", later, null);
      String bob = io.anteroom.door.proof.Accounts.sign(key, "bob", later, null);

      Browser anonymous = s.browser();
      assertThat(refusedAccount(anonymous.get("/", "Accept", "application/json")))
          .isEqualTo("missing");
      assertThat(anonymous.cookies).doesNotContainKey(TICKET);

      Browser laptop = s.browser();
      var in = laptop.get("/", "Anteroom-Account", alice);
      assertThat(reachedOrigin(in)).as("alice takes the one place").isTrue();
      var laptopPass = validPassOf(s, in).pass();
      assertThat(laptopPass.account()).contains("alice");

      Browser phone = s.browser(); // alice again, in a browser that never saw the room
      var alsoIn = phone.get("/", "Anteroom-Account", alice);
      assertThat(reachedOrigin(alsoIn)).as("alice's second browser: the same session").isTrue();
      assertThat(validPassOf(s, alsoIn).pass().passId()).isEqualTo(laptopPass.passId());
      assertThat(phone.cookies).containsKey(TICKET);

      Browser bobs = s.browser();
      assertThat(reachedOrigin(bobs.get("/", "Anteroom-Account", bob)))
          .as("bob: the room is full, alice took one place only")
          .isFalse();

      Browser bought = s.browser(); // alice's cookies, sold to bob
      bought.cookies.putAll(laptop.cookies);
      var resold = bought.get("/", "Anteroom-Account", bob);
      assertThat(reachedOrigin(resold)).as("the identity wins: bob's own place").isFalse();

      String expired =
          io.anteroom.door.proof.Accounts.sign(
              key, "alice", s.clock().instant().minusSeconds(3600), null);
      Browser stale = s.browser();
      stale.cookies.putAll(laptop.cookies);
      assertThat(
              refusedAccount(
                  stale.get("/", "Accept", "application/json", "Anteroom-Account", expired)))
          .isEqualTo("expired");
      assertThat(
              refusedAccount(
                  stale.get(
                      "/",
                      "Accept",
                      "application/json",
                      "Anteroom-Account",
                      io.anteroom.door.proof.Accounts.sign(new byte[32], "alice", later, null))))
          .isEqualTo("forged");
    }
  }

  @Test
  void aDrawsCommitmentIsPublicBeforeItsSecretAndEveryQueuedUserGetsAReceipt() throws Exception {
    String rooms =
        """
        rooms:
          - id: shop
            path: /shop/
            events:
              - name: launch
                prequeueStartTime: 2020-01-01T00:00:00Z
                eventStartTime: 2099-01-01T00:00:00Z
                eventEndTime: 2099-01-02T00:00:00Z
                shuffleAtEventStart: true
          - id: lots
            path: /lots/
            totalActiveUsers: 1
            queueingMethod: random
        """;
    try (var s = start(dataDir, rooms)) {
      var list = s.browser().get("/.well-known/anteroom/draws.json");
      assertThat(list.statusCode()).isEqualTo(200);
      assertThat(reachedOrigin(list)).isFalse();
      assertThat(list.headers().firstValue("cache-control")).contains("no-store");
      java.util.Map<String, JsonNode> draws = new java.util.HashMap<>();
      for (JsonNode d : JSON.readTree(list.body()).get("draws")) {
        draws.put(d.get("room").asText() + " " + d.get("from").asText(), d);
      }
      // the shuffle before its draw: committed, not revealed
      JsonNode launch = draws.get("shop 2020-01-01T00:00:00Z");
      assertThat(launch.get("commitment").asText()).matches("[0-9a-f]{64}");
      assertThat(launch.get("secret").isNull()).isTrue();

      // a pre-queued user's receipt: its ticket and the commitment, no place before the draw
      JsonNode pre = JSON.readTree(s.browser().get("/shop/", "Accept", "application/json").body());
      assertThat(pre.get("isPrequeue").asBoolean()).isTrue();
      assertThat(pre.get("drawReceipt").get("ticket").asText()).matches("[0-9]+");
      assertThat(pre.get("drawReceipt").get("commitment")).isEqualTo(launch.get("commitment"));
      assertThat(pre.get("drawReceipt").has("place")).isFalse();

      // random queueing: the waiting user's lot of the minute, under its hour's commitment; the
      // hours already over are revealed, and each secret hashes to its commitment
      assertThat(reachedOrigin(s.browser().get("/lots/"))).isTrue();
      Browser waiting = s.browser();
      assertThat(reachedOrigin(waiting.get("/lots/"))).isFalse();
      JsonNode receipt =
          JSON.readTree(waiting.get("/lots/", "Accept", "application/json").body())
              .get("drawReceipt");
      assertThat(receipt.get("kind").asText()).isEqualTo("random");
      assertThat(receipt.get("lot").asDouble()).isBetween(0.0, 1.0);
      JsonNode list2 = JSON.readTree(s.browser().get("/.well-known/anteroom/draws.json").body());
      JsonNode hour = null;
      int revealed = 0;
      for (JsonNode d : list2.get("draws")) {
        if (d.get("room").asText().equals("lots")) {
          if (d.get("from").asText().equals(receipt.get("from").asText())) {
            hour = d;
          }
          if (!d.get("secret").isNull()) {
            revealed++;
            assertThat(
                    io.anteroom.door.admission.DrawSecrets.commitment(
                        java.util.HexFormat.of().parseHex(d.get("secret").asText())))
                .isEqualTo(d.get("commitment").asText());
            assertThat(java.time.Instant.parse(d.get("revealAt").asText()))
                .isBeforeOrEqualTo(s.clock().instant());
          }
        }
      }
      assertThat(hour.get("commitment")).isEqualTo(receipt.get("commitment"));
      assertThat(hour.get("secret").isNull()).isTrue();
      assertThat(revealed).isGreaterThanOrEqualTo(24);
    }
  }
}
