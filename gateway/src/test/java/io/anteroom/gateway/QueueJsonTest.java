package io.anteroom.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.anteroom.coordinator.CoordinatorServer;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The queue JSON means what the hosted room's JSON means: {@code queueIsFull} is a wait of more
 * than a day, an unknown wait is all zeros and says so, and {@code jsonEnvelope} gives apps the
 * hosted room's {@code {"cfWaitingRoom": {...}}} shape. Black-box, through the public listener.
 */
class QueueJsonTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ACCEPT_JSON = "application/json";

  @TempDir Path dataDir;

  private static JsonNode json(HttpResponse<String> r) throws Exception {
    assertThat(r.headers().firstValue("content-type")).contains(ACCEPT_JSON);
    return JSON.readTree(r.body());
  }

  private static JsonNode poll(Browser b) throws Exception {
    return json(b.get("/", "Accept", ACCEPT_JSON));
  }

  private static void checkIn(List<Browser> users) {
    for (int from = 0; from < users.size(); from += 100) {
      var answers = new ArrayList<CompletableFuture<HttpResponse<String>>>();
      users
          .subList(from, Math.min(users.size(), from + 100))
          .forEach(b -> answers.add(b.getAsync("/")));
      answers.forEach(CompletableFuture::join); // one of them may be let in at a new minute
    }
  }

  /** Reports until the room's state has the queue in it (the objects' alarms carry it along). */
  private static void settle(Harness h) throws Exception {
    for (int round = 0; round < 3; round++) {
      h.report("shop");
      h.scheduler.advance(Duration.ofSeconds(6));
    }
    h.report("shop");
  }

  @Test
  void withTheWaitNotKnownTheWaitFieldsAreZeroAndSaySo() throws Exception {
    try (var h = new Harness(dataDir, "rooms: [ { id: shop, totalActiveUsers: 1 } ]")) {
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue();

      JsonNode j = poll(h.browser()); // nobody admitted in a complete minute yet

      assertThat(j.get("inWaitingRoom").asBoolean()).isTrue();
      assertThat(j.get("waitTimeKnown").asBoolean()).isFalse();
      for (String f :
          List.of(
              "waitTime", "waitTime25Percentile", "waitTime50Percentile", "waitTime75Percentile")) {
        assertThat(j.get(f).isInt()).as(f).isTrue();
        assertThat(j.get(f).asInt()).as(f).isZero();
      }
      assertThat(j.get("waitTimeFormatted").asText()).isEqualTo("Not known yet");
      assertThat(j.get("queueIsFull").asBoolean())
          .as("an unknown wait is not a wait of more than a day")
          .isFalse();
    }
  }

  @Test
  void aFullSiteWithAShortQueueIsNotAFullQueue() throws Exception {
    try (var h = new Harness(dataDir, "rooms: [ { id: shop, totalActiveUsers: 1 } ]")) {
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue(); // the one place
      var waiting = List.of(h.browser(), h.browser(), h.browser());
      checkIn(waiting);
      h.scheduler.advance(Duration.ofSeconds(60)); // a complete minute with one admission
      checkIn(waiting); // a queued user counts while it keeps polling
      settle(h);

      JsonNode j = stillWaiting(waiting);

      assertThat(j.get("waitTimeKnown").asBoolean()).isTrue();
      assertThat(j.get("waitTime").asInt()).isBetween(1, 24 * 60);
      assertThat(j.get("queueIsFull").asBoolean())
          .as("no free slot, but a wait of minutes, not of more than a day")
          .isFalse();
    }
  }

  @Test
  void theJsonTellsAWaitingUserItsPlaceInLineFromTheRoomsCounts() throws Exception {
    try (var h = new Harness(dataDir, "rooms: [ { id: shop, totalActiveUsers: 1 } ]")) {
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue(); // the one place
      var first = List.of(h.browser(), h.browser(), h.browser(), h.browser());
      checkIn(first);
      h.scheduler.advance(Duration.ofSeconds(60)); // the next minute: a newer bucket
      var later = List.of(h.browser(), h.browser());
      checkIn(later);
      checkIn(first);
      settle(h);

      JsonNode j = json(later.get(1).get("/", "Accept", ACCEPT_JSON));

      assertThat(j.get("placeKnown").asBoolean()).isTrue();
      assertThat(j.get("peopleAheadLow").asLong()).as("the older bucket's four").isEqualTo(4);
      assertThat(j.get("peopleAheadHigh").asLong()).as("and its own bucket's two").isEqualTo(6);
      assertThat(j.get("peopleAhead").asLong()).isEqualTo(5);
      assertThat(j.get("peopleAheadApproximate").asBoolean()).isTrue();
      assertThat(j.get("peopleAheadFormatted").asText()).isEqualTo("About 5 people ahead of you");
    }
  }

  @Test
  void aDegradedGatewayShowsNoPlaceInLineOnlyTheWait() throws Exception {
    var scheduler = new io.anteroom.objects.ManualScheduler(Harness.START);
    var runtime = Harness.runtime(scheduler);
    var coordinator =
        CoordinatorServer.serve(
            runtime,
            CoordinatorServer.Options.builder("127.0.0.1", 0)
                .secrets(List.of(io.anteroom.objects.http.SharedSecret.generate("k1")))
                .build());
    // calls without the deployment's secret are refused: every counter call fails, degraded
    var refused =
        io.anteroom.host.ObjectCoordination.remote(
            java.net.URI.create("http://127.0.0.1:" + coordinator.actualPort()),
            Duration.ofSeconds(5));
    try (var h =
        new Harness(
            dataDir,
            "rooms: [ { id: shop, totalActiveUsers: 2, failMode: closed } ]",
            new TestOrigin(),
            scheduler,
            refused,
            "dublin")) {
      var waiting = h.browser();
      assertThat(Browser.reachedOrigin(waiting.get("/"))).isFalse();
      h.report("shop");

      JsonNode j = json(waiting.get("/", "Accept", ACCEPT_JSON));

      assertThat(j.get("placeKnown").asBoolean())
          .as("its counts no longer move with the coordinator's: no place is shown")
          .isFalse();
      assertThat(j.has("waitTimeKnown")).isTrue();
    } finally {
      coordinator.close();
      runtime.close();
    }
  }

  @Test
  void theQueueIsFullWhenTheEstimatedWaitExceedsADay() throws Exception {
    try (var h =
        new Harness(
            dataDir, "rooms: [ { id: shop, totalActiveUsers: 1, sessionDurationMinutes: 15 } ]")) {
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue();
      // one slot, freed every 15 minutes (a session): the median place of the last bucket's user,
      // about 150 users ahead, is reached after about 2250 minutes
      var queued = new ArrayList<Browser>();
      for (int i = 0; i < 600; i++) {
        queued.add(h.browser());
      }
      checkIn(queued);
      h.scheduler.advance(Duration.ofSeconds(60));
      checkIn(queued);
      settle(h);

      JsonNode j = stillWaiting(queued);

      assertThat(j.get("waitTimeKnown").asBoolean()).isTrue();
      assertThat(j.get("waitTime").asInt()).isGreaterThan(24 * 60);
      assertThat(j.get("queueIsFull").asBoolean()).isTrue();
    }
  }

  /** The JSON of the last of {@code users} (in arrival order) that is still queued. */
  private static JsonNode stillWaiting(List<Browser> users) throws Exception {
    for (Browser b : users.reversed()) {
      HttpResponse<String> r = b.get("/", "Accept", ACCEPT_JSON);
      if (!Browser.reachedOrigin(r)) {
        JsonNode j = json(r);
        if (j.get("inWaitingRoom").asBoolean()) {
          return j;
        }
      }
    }
    throw new AssertionError("nobody is queued any more");
  }

  @Test
  void jsonEnvelopeWrapsTheFieldsInCfWaitingRoomFromYamlAndTheAdminApi() throws Exception {
    try (var h =
        new Harness(
            dataDir,
            """
        rooms:
          - { id: shop, totalActiveUsers: 1, jsonEnvelope: true }
          - { id: blog, path: /blog/, totalActiveUsers: 1 }""")) {
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue();
      JsonNode wrapped = poll(h.browser());
      var names = new ArrayList<String>();
      wrapped.fieldNames().forEachRemaining(names::add);
      assertThat(names).containsExactly("cfWaitingRoom");
      JsonNode inner = wrapped.get("cfWaitingRoom");
      assertThat(inner.get("inWaitingRoom").asBoolean()).isTrue();
      assertThat(inner.has("waitTimeFormatted")).isTrue();
      assertThat(inner.has("queueIsFull")).isTrue();
      assertThat(inner.has("throttle")).isTrue();

      // the other room answers bare, until the admin API switches its envelope on
      assertThat(Browser.reachedOrigin(h.browser().get("/blog/"))).isTrue();
      Browser blogUser = h.browser();
      assertThat(json(blogUser.get("/blog/", "Accept", ACCEPT_JSON)).has("inWaitingRoom")).isTrue();
      var put =
          h.admin(
              "PUT",
              "/api/rooms/blog",
              "{\"id\":\"blog\",\"path\":\"/blog/\",\"totalActiveUsers\":1,"
                  + "\"jsonEnvelope\":true}");
      assertThat(put.statusCode()).isEqualTo(200);
      assertThat(JSON.readTree(put.body()).get("jsonEnvelope").asBoolean()).isTrue();
      JsonNode blog = json(blogUser.get("/blog/", "Accept", ACCEPT_JSON));
      assertThat(blog.get("cfWaitingRoom").get("inWaitingRoom").asBoolean()).isTrue();
      assertThat(blog.size()).isEqualTo(1);
    }
  }

  @Test
  void theEnvelopeAlsoWrapsTheRejectAnswerAndThePageStillReadsIt() throws Exception {
    try (var h =
        new Harness(
            dataDir,
            """
        rooms:
          - { id: shop, totalActiveUsers: 1, queueingMethod: reject, jsonEnvelope: true }
          - { id: blog, path: /blog/, totalActiveUsers: 1, jsonEnvelope: true }""")) {
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue();
      HttpResponse<String> r = h.browser().get("/", "Accept", ACCEPT_JSON);
      assertThat(r.statusCode()).isEqualTo(429);
      assertThat(json(r).get("cfWaitingRoom").get("isRejectQueue").asBoolean()).isTrue();

      assertThat(Browser.reachedOrigin(h.browser().get("/blog/"))).isTrue();
      String page = h.browser().get("/blog/").body();
      assertThat(page).contains("You are in line").contains("s.cfWaitingRoom || s");
    }
  }
}
