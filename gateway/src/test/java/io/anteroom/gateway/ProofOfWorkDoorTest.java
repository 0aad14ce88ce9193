package io.anteroom.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.anteroom.door.proof.Work;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proof-of-work check at the door, black-box through the public listener: a new user gets a
 * challenge instead of a ticket; a solved one lets the user on to the room's usual decision; a
 * forged or replayed answer is refused with a fresh challenge; clients that keep failing may be
 * kept in a queue that never admits.
 */
class ProofOfWorkDoorTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ROOM =
      "rooms: [ { id: shop, totalActiveUsers: 100, proofOfWork: { enabled: true, difficulty: 8 } } ]";
  private static final String TICKET = "__anteroom_shop";

  @TempDir Path dataDir;

  private static JsonNode challengeOf(HttpResponse<String> r) throws Exception {
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-type")).contains("application/json");
    JsonNode j = JSON.readTree(r.body());
    assertThat(j.get("inWaitingRoom").asBoolean()).isTrue();
    return j.get("proofOfWork");
  }

  private static String solve(JsonNode pow) {
    String challenge = pow.get("challenge").asText();
    return challenge + "." + Work.solve(challenge, pow.get("difficulty").asInt());
  }

  @Test
  void aJsonClientGetsAChallengeInsteadOfATicketAndASolvedOneGetsItIn() throws Exception {
    try (var h = new Harness(dataDir, ROOM)) {
      Browser app = h.browser();
      JsonNode pow = challengeOf(app.get("/", "Accept", "application/json"));
      assertThat(app.cookies).doesNotContainKey(TICKET);
      assertThat(pow.get("difficulty").asInt()).isEqualTo(8);
      assertThat(pow.get("algorithm").asText()).isEqualTo("sha256-leading-zero-bits");
      assertThat(pow.get("answerHeader").asText()).isEqualTo("Anteroom-Proof");
      assertThat(pow.has("refused")).isFalse();

      var in = app.get("/", "Accept", "application/json", "Anteroom-Proof", solve(pow));

      assertThat(Browser.reachedOrigin(in)).isTrue();
      assertThat(app.cookies).containsKey(TICKET);
      assertThat(Browser.reachedOrigin(app.get("/again"))).as("the ticket does the rest").isTrue();
    }
  }

  /** Lets {@code app} in through the check; returns its admitted ticket cookie. */
  private static String admitted(Browser app) throws Exception {
    JsonNode pow = challengeOf(app.get("/", "Accept", "application/json"));
    var in = app.get("/", "Accept", "application/json", "Anteroom-Proof", solve(pow));
    assertThat(Browser.reachedOrigin(in)).isTrue();
    return app.cookies.get(TICKET);
  }

  /**
   * A logged-out (revoked) ticket opens but is no longer honoured: the room would give its holder a
   * new ticket id, a new identity, which must cost the check like any newcomer's (issue 38).
   */
  @Test
  void aReplayedRevokedTicketMustSolveAChallengeBeforeItGetsANewIdentity() throws Exception {
    try (var h = new Harness(dataDir, ROOM)) {
      Browser app = h.browser();
      String ticket = admitted(app);
      assertThat(Browser.reachedOrigin(app.get("/revoke"))).as("logged out").isTrue();
      Browser replay = h.browser();
      replay.cookies.put(TICKET, ticket);

      var r = replay.get("/", "Accept", "application/json");

      assertThat(Browser.reachedOrigin(r)).isFalse();
      assertThat(challengeOf(r)).isNotNull();
      assertThat(replay.cookies.get(TICKET))
          .as("no new ticket without the check")
          .isEqualTo(ticket);
    }
  }

  @Test
  void anExpiredSessionMustSolveAChallengeBeforeItGetsANewIdentity() throws Exception {
    try (var h = new Harness(dataDir, ROOM)) {
      Browser app = h.browser();
      String ticket = admitted(app);
      h.scheduler.advance(java.time.Duration.ofMinutes(10)); // sessions last 5 minutes

      var r = app.get("/", "Accept", "application/json");

      assertThat(Browser.reachedOrigin(r)).isFalse();
      assertThat(challengeOf(r)).isNotNull();
      assertThat(app.cookies.get(TICKET)).isEqualTo(ticket);
      JsonNode pow = challengeOf(app.get("/", "Accept", "application/json"));
      var in = app.get("/", "Accept", "application/json", "Anteroom-Proof", solve(pow));
      assertThat(Browser.reachedOrigin(in)).as("solved: in again").isTrue();
      assertThat(app.cookies.get(TICKET)).isNotEqualTo(ticket);
    }
  }

  @Test
  void aLiveSessionIsNeverAskedAgain() throws Exception {
    try (var h = new Harness(dataDir, ROOM)) {
      Browser app = h.browser();
      admitted(app);
      h.scheduler.advance(java.time.Duration.ofMinutes(2));

      assertThat(Browser.reachedOrigin(app.get("/", "Accept", "application/json"))).isTrue();
    }
  }

  @Test
  void anEventTurnsTheCheckOnForItsOwnTimeOnly() throws Exception {
    // the harness starts at 2026-11-22T10:00:05Z; the event's pre-queue opens at 10:01
    String room =
        """
        rooms:
          - id: shop
            totalActiveUsers: 100
            events:
              - name: drop
                prequeueStartTime: 2026-11-22T10:01:00Z
                eventStartTime: 2026-11-22T10:30:00Z
                eventEndTime: 2026-11-22T11:00:00Z
                proofOfWork: { enabled: true, difficulty: 9 }
        """;
    try (var h = new Harness(dataDir, room)) {
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).as("before: no check").isTrue();

      h.scheduler.advance(java.time.Duration.ofMinutes(1));
      Browser early = h.browser();
      JsonNode pow = challengeOf(early.get("/", "Accept", "application/json"));
      assertThat(pow.get("difficulty").asInt()).as("the event's difficulty").isEqualTo(9);
      var answered = early.get("/", "Accept", "application/json", "Anteroom-Proof", solve(pow));
      assertThat(JSON.readTree(answered.body()).has("proofOfWork")).isFalse();
      assertThat(early.cookies).as("a pre-queue ticket after the check").containsKey(TICKET);

      h.scheduler.advance(java.time.Duration.ofMinutes(60));
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).as("after: no check").isTrue();
    }
  }

  @Test
  void aForgedAnswerIsRefusedWithAFreshChallenge() throws Exception {
    try (var h = new Harness(dataDir, ROOM)) {
      Browser bot = h.browser();
      JsonNode pow = challengeOf(bot.get("/", "Accept", "application/json"));
      String challenge = pow.get("challenge").asText();
      // the difficulty byte lowered to 0: any counter would do, if the MAC let it through
      char[] c = challenge.toCharArray();
      c[3] = 'A';
      String forged = new String(c) + ".0";

      JsonNode again =
          challengeOf(bot.get("/", "Accept", "application/json", "Anteroom-Proof", forged));

      assertThat(again.get("refused").asText()).isEqualTo("forged");
      assertThat(again.get("challenge").asText()).isNotEqualTo(challenge);
      assertThat(bot.cookies).doesNotContainKey(TICKET);
    }
  }

  @Test
  void aReplayedAnswerIsRefused() throws Exception {
    try (var h = new Harness(dataDir, ROOM)) {
      Browser first = h.browser();
      String answer = solve(challengeOf(first.get("/", "Accept", "application/json")));
      assertThat(Browser.reachedOrigin(first.get("/", "Anteroom-Proof", answer))).isTrue();

      Browser copy = h.browser(); // another client, same address, the same answer
      JsonNode refused =
          challengeOf(copy.get("/", "Accept", "application/json", "Anteroom-Proof", answer));

      assertThat(refused.get("refused").asText()).isEqualTo("replayed");
      assertThat(copy.cookies).doesNotContainKey(TICKET);
    }
  }

  @Test
  void anAnswerUsedOnOneGatewayIsRefusedOnEveryOther() throws Exception {
    // two gateways of one deployment: the same ticket keys, one coordination (data centers too)
    String shared =
        ROOM + "\nticketKeys: [ { id: 1, secret: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8= } ]";
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
      Browser first = a.browser();
      String answer = solve(challengeOf(first.get("/", "Accept", "application/json")));
      assertThat(Browser.reachedOrigin(first.get("/", "Anteroom-Proof", answer))).isTrue();

      Browser copy = b.browser(); // the same answer at the other gateway, never used there
      JsonNode refused =
          challengeOf(copy.get("/", "Accept", "application/json", "Anteroom-Proof", answer));

      assertThat(refused.get("refused").asText()).isEqualTo("replayed");
      assertThat(copy.cookies).doesNotContainKey(TICKET);
      assertThat(b.origin.requests.get()).isZero();
    }
  }

  @Test
  void theAnswerCookieWorksAndIsClearedOnceUsed() throws Exception {
    try (var h = new Harness(dataDir, ROOM)) {
      Browser page = h.browser();
      String answer = solve(challengeOf(page.get("/", "Accept", "application/json")));
      page.cookies.put("__anteroom-proof_shop", answer);

      assertThat(Browser.reachedOrigin(page.get("/"))).isTrue();
      assertThat(page.cookies).containsKey(TICKET).doesNotContainKey("__anteroom-proof_shop");
    }
  }

  @Test
  void thePageSaysPlainlyThatTheCheckNeedsJavaScriptAndDoesNotRefreshItself() throws Exception {
    try (var h = new Harness(dataDir, ROOM)) {
      var page = h.browser().get("/");
      assertThat(page.statusCode()).isEqualTo(200);
      assertThat(page.headers().firstValue("cache-control")).contains("no-store");
      assertThat(page.body())
          .contains("<noscript>")
          .contains("This check needs JavaScript.")
          .doesNotContain("http-equiv=\"refresh\"")
          .doesNotContain("src=\"http")
          .doesNotContain("href=\"http");
    }
  }

  @Test
  void aClientThatKeepsFailingIsKeptInAQueueThatNeverAdmits() throws Exception {
    String room =
        "rooms: [ { id: shop, totalActiveUsers: 100, proofOfWork: { enabled: true, difficulty: 8,"
            + " onRepeatedFailure: endlessQueue } } ]";
    try (var h = new Harness(dataDir, room)) {
      Browser bot = h.browser();
      String answer = solve(challengeOf(h.browser().get("/", "Accept", "application/json")));
      for (int i = 0; i < 4; i++) {
        challengeOf(bot.get("/", "Accept", "application/json", "Anteroom-Proof", "wrong"));
      }
      var queued = bot.get("/", "Anteroom-Proof", "wrong");
      assertThat(queued.body()).contains("You are in line");
      assertThat(bot.cookies).doesNotContainKey(TICKET);

      Browser same = h.browser(); // a new jar at the same address, with a good answer
      JsonNode still =
          JSON.readTree(
              same.get("/", "Accept", "application/json", "Anteroom-Proof", answer).body());
      assertThat(still.get("inWaitingRoom").asBoolean()).isTrue();
      assertThat(still.has("proofOfWork")).as("no challenge: the endless queue").isFalse();
      assertThat(same.cookies).doesNotContainKey(TICKET);
      h.report("shop");
      assertThat(h.gate("shop").status(Harness.START.toEpochMilli()).estimatedQueuedUsers())
          .as("the room's counts are not affected")
          .isZero();
    }
  }
}
