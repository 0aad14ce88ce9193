package io.anteroom.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WaitingRoomEndToEndTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dataDir;

  @Test
  void withRoomForTwentyExactlyTwentyOfAHundredSimultaneousNewUsersReachTheOrigin()
      throws Exception {
    try (var h = new Harness(dataDir, "rooms: [ { id: shop, totalActiveUsers: 20 } ]")) {
      var users = new ArrayList<Browser>();
      var responses = new ArrayList<CompletableFuture<HttpResponse<String>>>();
      for (int i = 0; i < 100; i++) {
        users.add(h.browser());
      }
      for (Browser b : users) {
        responses.add(b.getAsync("/products"));
      }
      long admitted =
          responses.stream().map(CompletableFuture::join).filter(Browser::reachedOrigin).count();
      long queued =
          responses.stream()
              .map(CompletableFuture::join)
              .filter(r -> r.body().contains("You are in line"))
              .count();
      assertThat(admitted).isEqualTo(20);
      assertThat(queued).isEqualTo(80);
      assertThat(h.origin.requests.get()).isEqualTo(20);
      assertThat(users).allSatisfy(u -> assertThat(u.cookies).containsKey("__anteroom_shop"));

      // the twenty keep their sessions; the eighty stay queued while the site is full
      h.report("shop");
      for (Browser b : users) {
        HttpResponse<String> again = b.get("/products");
        assertThat(Browser.reachedOrigin(again))
            .isEqualTo(responses.get(users.indexOf(b)).join().body().startsWith("origin:"));
      }
      assertThat(h.origin.requests.get()).isEqualTo(40);
    }
  }

  @Test
  void queuedUsersGetInInBucketOrderAsSessionsEnd() throws Exception {
    try (var h =
        new Harness(
            dataDir,
            """
        rooms: [ { id: shop, totalActiveUsers: 1, sessionDurationMinutes: 1 } ]""")) {
      Browser first = h.browser();
      Browser early = h.browser();
      Browser late = h.browser();
      assertThat(Browser.reachedOrigin(first.get("/"))).isTrue(); // 10:00:05, then leaves
      assertThat(Browser.reachedOrigin(early.get("/"))).isFalse(); // bucket 10:00
      String earlyIn = null;
      String lateIn = null;
      // queued pages refresh every 20 s; the gateway reports before each round
      for (int step = 1; step <= 12; step++) {
        h.scheduler.advance(Duration.ofSeconds(20));
        h.report("shop");
        String at = h.scheduler.clock().instant().toString();
        if (step >= 3 && lateIn == null && Browser.reachedOrigin(late.get("/"))) {
          lateIn = at; // bucket 10:01
        }
        if (earlyIn == null && Browser.reachedOrigin(early.get("/"))) {
          earlyIn = at;
        } else if (earlyIn != null) {
          assertThat(Browser.reachedOrigin(early.get("/"))).as("early keeps its session").isTrue();
        }
      }
      assertThat(earlyIn).as("the oldest bucket enters once the first session is over").isNotNull();
      assertThat(lateIn)
          .as("a later bucket does not pass an earlier one while the site is full")
          .isNull();
      assertThat(h.origin.requests.get()).isGreaterThan(2);
    }
  }

  @Test
  void tamperedTruncatedAndForeignCookiesMakeTheUserNewNeverAdmitted() throws Exception {
    try (var h =
        new Harness(
            dataDir,
            """
        rooms:
          - { id: shop, totalActiveUsers: 1 }
          - { id: blog, path: /blog/, totalActiveUsers: 5 }""")) {
      Browser insider = h.browser();
      assertThat(Browser.reachedOrigin(insider.get("/"))).isTrue();
      String good = insider.cookies.get("__anteroom_shop");

      for (String bad :
          List.of(
              good.substring(0, good.length() - 4),
              good.substring(0, 20) + (good.charAt(20) == 'A' ? 'B' : 'A') + good.substring(21),
              "garbage",
              "",
              "%00%ff")) {
        Browser forger = h.browser();
        forger.cookies.put("__anteroom_shop", bad);
        HttpResponse<String> r = forger.get("/");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(Browser.reachedOrigin(r)).as("cookie %s", bad).isFalse();
      }
      // a valid cookie of the blog room presented to the shop room
      Browser blogUser = h.browser();
      assertThat(Browser.reachedOrigin(blogUser.get("/blog/post"))).isTrue();
      Browser crossRoom = h.browser();
      crossRoom.cookies.put("__anteroom_shop", blogUser.cookies.get("__anteroom_blog"));
      assertThat(Browser.reachedOrigin(crossRoom.get("/"))).isFalse();
      assertThat(Browser.reachedOrigin(insider.get("/"))).isTrue();
    }
  }

  @Test
  void theQueueJsonHasExactlyTheDocumentedFields() throws Exception {
    try (var h = new Harness(dataDir, "rooms: [ { id: shop, totalActiveUsers: 1 } ]")) {
      h.browser().get("/");
      HttpResponse<String> r = h.browser().get("/", "Accept", "application/json");
      assertThat(r.headers().firstValue("content-type")).contains("application/json");
      assertThat(r.headers().firstValue("anteroom-throttle")).contains("0");
      JsonNode j = JSON.readTree(r.body());
      var names = new ArrayList<String>();
      j.fieldNames().forEachRemaining(names::add);
      assertThat(names)
          .containsExactly(
              "inWaitingRoom",
              "waitTimeKnown",
              "waitTime",
              "waitTime25Percentile",
              "waitTime50Percentile",
              "waitTime75Percentile",
              "waitTimeFormatted",
              "queueIsFull",
              "queueAll",
              "lastUpdated",
              "refreshIntervalSeconds",
              "queueingMethod",
              "isFIFOQueue",
              "isRandomQueue",
              "isPassthroughQueue",
              "isRejectQueue",
              "throttle",
              "placeKnown",
              "peopleAhead",
              "peopleAheadLow",
              "peopleAheadHigh",
              "peopleAheadApproximate",
              "peopleAheadFormatted");
      assertThat(j.get("inWaitingRoom").asBoolean()).isTrue();
      assertThat(j.get("refreshIntervalSeconds").asInt())
          .as("20 s with up to 10 %% jitter")
          .isBetween(20, 22);
      assertThat(j.get("queueingMethod").asText()).isEqualTo("fifo");
      assertThat(j.get("isFIFOQueue").asBoolean()).isTrue();
      assertThat(j.get("throttle").asBoolean()).isFalse();
    }
  }

  @Test
  void theQueuePageIsSelfContainedAndRefreshesItself() throws Exception {
    try (var h = new Harness(dataDir, "rooms: [ { id: shop, totalActiveUsers: 1 } ]")) {
      h.browser().get("/");
      HttpResponse<String> r = h.browser().get("/");
      assertThat(r.headers().firstValue("content-type"))
          .hasValueSatisfying(v -> assertThat(v).startsWith("text/html"));
      assertThat(r.headers().firstValue("cache-control")).contains("no-store");
      assertThat(r.body())
          .contains(
              "<html lang=\"en\" dir=\"ltr\">",
              "name=\"viewport\"",
              "role=\"status\"",
              "aria-live=\"polite\"",
              "Estimated wait",
              "Last updated",
              "var delay = 2")
          .doesNotContain("src=\"http", "href=\"http");
    }
  }

  @Test
  void rejectAnswers429WithRetryAfterInsteadOfQueueing() throws Exception {
    try (var h =
        new Harness(
            dataDir,
            """
        rooms: [ { id: shop, totalActiveUsers: 1, queueingMethod: reject } ]""")) {
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue();
      HttpResponse<String> r = h.browser().get("/");
      assertThat(r.statusCode()).isEqualTo(429);
      assertThat(Integer.parseInt(r.headers().firstValue("retry-after").orElseThrow()))
          .isBetween(20, 22);
      assertThat(r.headers().firstValue("anteroom-throttle")).contains("0");
    }
  }

  @Test
  void aRejectedRequestSetsNoCookieSoAParallelTabOfTheUserKeepsItsAdmission() throws Exception {
    try (var h =
        new Harness(
            dataDir,
            """
        rooms: [ { id: shop, totalActiveUsers: 1, queueingMethod: reject } ]""")) {
      // one page load sends two requests at once, neither with a cookie yet: the first takes the
      // last slot, the second is refused; the browser handles the refusal after the admission
      Browser firstTab = h.browser();
      Browser secondTab = h.browser();
      assertThat(Browser.reachedOrigin(firstTab.get("/"))).isTrue();
      HttpResponse<String> refused = secondTab.get("/");
      assertThat(refused.statusCode()).isEqualTo(429);
      assertThat(refused.headers().allValues("set-cookie"))
          .as("a refusal that cleared the cookie would end the admission the jar got meanwhile")
          .isEmpty();
      assertThat(Browser.reachedOrigin(firstTab.get("/"))).isTrue();
    }
  }

  @Test
  void bypassedTrafficSkipsTheRoomAndIsNotCounted() throws Exception {
    try (var h =
        new Harness(
            dataDir,
            """
        rooms:
          - id: shop
            totalActiveUsers: 1
            bypass: [ { path: /static/** }, { header: X-Health-Check } ]""")) {
      for (int i = 0; i < 5; i++) {
        var r = h.browser().get("/static/app.css");
        assertThat(Browser.reachedOrigin(r)).isTrue();
        assertThat(r.headers().allValues("set-cookie")).isEmpty();
      }
      assertThat(Browser.reachedOrigin(h.browser().get("/", "X-Health-Check", "1"))).isTrue();
      assertThat(Browser.reachedOrigin(h.browser().get("/")))
          .as("the one slot is still free")
          .isTrue();
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isFalse();
    }
  }

  @Test
  void theOriginCanEndASessionWithTheRevokeHeader() throws Exception {
    try (var h = new Harness(dataDir, "rooms: [ { id: shop, totalActiveUsers: 5 } ]")) {
      Browser user = h.browser();
      assertThat(Browser.reachedOrigin(user.get("/"))).isTrue();
      assertThat(user.cookies).containsKey("__anteroom_shop");
      HttpResponse<String> r = user.get("/revoke");
      assertThat(r.headers().firstValue("anteroom-command")).isEmpty();
      assertThat(r.headers().allValues("set-cookie"))
          .anySatisfy(c -> assertThat(c).startsWith("__anteroom_shop=;").contains("Max-Age=0"));
      assertThat(user.cookies).doesNotContainKey("__anteroom_shop");
    }
  }

  @Test
  void revokedSessionsFreeTheirPlacesBeforeTheyWouldHaveExpired() throws Exception {
    try (var h =
        new Harness(
            dataDir,
            """
        rooms: [ { id: shop, totalActiveUsers: 3, newUsersPerMinute: 10,
                   sessionDurationMinutes: 30 } ]""")) {
      var insiders = List.of(h.browser(), h.browser(), h.browser());
      for (Browser b : insiders) {
        assertThat(Browser.reachedOrigin(b.get("/"))).isTrue();
      }
      Browser next = h.browser();
      h.report("shop");
      assertThat(Browser.reachedOrigin(next.get("/"))).as("the site is full").isFalse();
      insiders.get(0).get("/revoke");
      insiders.get(1).get("/revoke");
      h.report("shop");
      // the next minute's pool sees the freed places
      h.scheduler.advance(Duration.ofSeconds(60));
      h.report("shop");
      assertThat(Browser.reachedOrigin(next.get("/")))
          .as("in long before the revoked sessions' 30 minutes are over")
          .isTrue();
    }
  }

  @Test
  void anAdmittedUserKeepsItsSessionAndTheCookieIsRenewedOnEveryRequest() throws Exception {
    try (var h =
        new Harness(
            dataDir,
            """
        rooms: [ { id: shop, totalActiveUsers: 1, sessionDurationMinutes: 2, cookieSecure: true,
                   cookieSameSite: Strict } ]""")) {
      Browser user = h.browser();
      assertThat(Browser.reachedOrigin(user.get("/"))).isTrue();
      for (int i = 0; i < 5; i++) {
        h.scheduler.advance(Duration.ofSeconds(90)); // each gap shorter than the session
        String before = user.cookies.get("__anteroom_shop");
        HttpResponse<String> r = user.get("/page" + i);
        assertThat(Browser.reachedOrigin(r)).isTrue();
        assertThat(r.headers().firstValue("set-cookie"))
            .hasValueSatisfying(
                c ->
                    assertThat(c)
                        .containsIgnoringCase("HttpOnly")
                        .contains("Secure", "SameSite=Strict", "Path=/"));
        assertThat(user.cookies.get("__anteroom_shop")).isNotEqualTo(before);
      }
    }
  }

  @Test
  void anAdmittedCookieIsResealedOnlyWhenItsMinuteIsOverOrASixtiethOfTheSessionHasPassed()
      throws Exception {
    try (var h =
        new Harness(
            dataDir,
            """
        rooms: [ { id: shop, totalActiveUsers: 1, sessionDurationMinutes: 60 } ]""")) {
      Browser user = h.browser(); // the clock is at 10:00:05
      assertThat(Browser.reachedOrigin(user.get("/"))).isTrue();
      String admitted = user.cookies.get("__anteroom_shop");
      for (int i = 0; i < 3; i++) { // 10:00:20, :35, :50: the cookie's minute, within 60 s
        h.scheduler.advance(Duration.ofSeconds(15));
        HttpResponse<String> r = user.get("/same-minute" + i);
        assertThat(Browser.reachedOrigin(r)).isTrue();
        assertThat(r.headers().firstValue("set-cookie")).as("request %d", i).isEmpty();
        // still an admitted user's page: kept out of shared caches
        assertThat(r.headers().firstValue("cache-control")).hasValue("private");
      }
      assertThat(user.cookies.get("__anteroom_shop")).isEqualTo(admitted);
      h.scheduler.advance(Duration.ofSeconds(14)); // 10:01:04: a new minute
      HttpResponse<String> renewed = user.get("/next-minute");
      assertThat(Browser.reachedOrigin(renewed)).isTrue();
      assertThat(renewed.headers().firstValue("set-cookie")).isPresent();
      assertThat(user.cookies.get("__anteroom_shop")).isNotEqualTo(admitted);
      var meters = h.gateway.rooms().get("shop").orElseThrow().meters();
      assertThat(meters.admittedNew().getCount()).isEqualTo(1);
      assertThat(meters.admittedReturning().getCount()).isEqualTo(4);
    }
  }

  @Test
  void aUserSeenEvery20SecondsKeepsAOneMinuteSession() throws Exception {
    try (var h =
        new Harness(
            dataDir,
            """
        rooms: [ { id: shop, totalActiveUsers: 1, sessionDurationMinutes: 1 } ]""")) {
      Browser user = h.browser(); // 10:00:05
      assertThat(Browser.reachedOrigin(user.get("/"))).isTrue();
      for (int i = 0; i < 9; i++) { // 10:00:25 ... 10:03:05: every check-in renews the cookie
        h.scheduler.advance(Duration.ofSeconds(20));
        HttpResponse<String> r = user.get("/page" + i);
        assertThat(Browser.reachedOrigin(r)).as("request %d", i).isTrue();
        assertThat(r.headers().firstValue("set-cookie")).as("request %d", i).isPresent();
      }
      var meters = h.gateway.rooms().get("shop").orElseThrow().meters();
      assertThat(meters.admittedNew().getCount()).isEqualTo(1);
    }
  }

  @Test
  void passthroughRoomsLetEveryoneThroughButStillHandOutTickets() throws Exception {
    try (var h =
        new Harness(
            dataDir,
            """
        rooms: [ { id: shop, totalActiveUsers: 1, queueingMethod: passthrough } ]""")) {
      for (int i = 0; i < 3; i++) {
        Browser b = h.browser();
        assertThat(Browser.reachedOrigin(b.get("/"))).isTrue();
        assertThat(b.cookies).containsKey("__anteroom_shop");
      }
      assertThat(h.gateway.rooms().get("shop").orElseThrow().meters().queued().getCount()).isZero();
    }
  }

  @Test
  void anOperatorTemplateReplacesTheQueuePage() throws Exception {
    Path templates = java.nio.file.Files.createDirectories(dataDir.resolve("templates"));
    java.nio.file.Files.writeString(
        templates.resolve("page.mustache"),
        "<p>Custom line: wait {{waitTimeFormatted}}, next check in {{refreshIntervalSeconds}} s,"
            + " fifo={{isFIFOQueue}}</p>");
    try (var h =
        new Harness(
            dataDir,
            """
        templatesDir: %s
        rooms: [ { id: shop, totalActiveUsers: 1, template: page.mustache } ]"""
                .formatted(templates))) {
      h.browser().get("/");
      String page = h.browser().get("/").body();
      assertThat(page)
          .startsWith("<p>Custom line: wait ")
          .contains("fifo=true")
          .doesNotContain("You are in line");
    }
  }

  @Test
  void withoutSessionRenewalASessionEndsItsDurationAfterAdmission() throws Exception {
    for (boolean renewal : List.of(true, false)) {
      try (var h =
          new Harness(
              dataDir.resolve("r" + renewal),
              """
          rooms: [ { id: shop, totalActiveUsers: 5, sessionDurationMinutes: 2,
                     disableSessionRenewal: %s } ]"""
                  .formatted(!renewal))) {
        Browser user = h.browser();
        assertThat(Browser.reachedOrigin(user.get("/"))).isTrue();
        for (int i = 0; i < 2; i++) {
          h.scheduler.advance(Duration.ofSeconds(90));
          h.report("shop");
          assertThat(Browser.reachedOrigin(user.get("/"))).isTrue();
        }
        var meters = h.gateway.rooms().get("shop").orElseThrow().meters();
        // at 180 s: renewed sessions run on; otherwise the session (2 min from admission) is
        // over and the user is admitted again as a new user
        assertThat(meters.admittedNew().getCount())
            .as("renewal %s", renewal)
            .isEqualTo(renewal ? 1 : 2);
      }
    }
  }

  @Test
  void suspendedRoomsLetEveryoneThroughUncounted() throws Exception {
    try (var h =
        new Harness(
            dataDir,
            """
        rooms: [ { id: shop, totalActiveUsers: 1, suspended: true } ]""")) {
      for (int i = 0; i < 3; i++) {
        assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue();
      }
    }
  }
}
