package io.anteroom.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.anteroom.gateway.Browser;
import io.anteroom.gateway.Harness;
import io.anteroom.gateway.TestOrigin;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AdminApiTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dataDir;

  private static HttpResponse<String> plain(Harness h, String url) throws Exception {
    return h.client.send(
        HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void theRoomApiNeedsTheBearerToken() throws Exception {
    try (var h = new Harness(dataDir, "rooms: [ { id: shop } ]")) {
      HttpResponse<String> r = plain(h, h.adminUrl() + "/api/rooms");
      assertThat(r.statusCode()).isEqualTo(401);
      assertThat(r.body()).contains("Authorization: Bearer");
      var wrong =
          h.client.send(
              HttpRequest.newBuilder(URI.create(h.adminUrl() + "/api/rooms"))
                  .header("Authorization", "Bearer nope")
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(wrong.statusCode()).isEqualTo(401);
      assertThat(h.admin("GET", "/api/rooms", null).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void onlyTheExactTokenIsAccepted() throws Exception {
    try (var h = new Harness(dataDir, "rooms: [ { id: shop } ]")) {
      String t = h.token;
      String sameLength = t.substring(0, t.length() - 1) + (t.endsWith("x") ? "y" : "x");
      for (String wrong :
          List.of(sameLength, t.substring(0, t.length() - 1), t + "0", t.toUpperCase(), "")) {
        var r =
            h.client.send(
                HttpRequest.newBuilder(URI.create(h.adminUrl() + "/api/rooms"))
                    .header("Authorization", "Bearer " + wrong)
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("token \"%s\"", wrong).isEqualTo(401);
      }
      assertThat(h.admin("GET", "/api/rooms", null).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void theRoomsStateIsExportedAsGaugesLabelledByRoom() throws Exception {
    try (var h =
        new Harness(
            dataDir,
            """
        rooms:
          - { id: shop, totalActiveUsers: 1 }
          - { id: blog, path: /blog/, totalActiveUsers: 7, queueAll: true }""")) {
      h.browser().get("/"); // admitted
      h.browser().get("/"); // queued
      h.report("shop");
      h.report("blog");

      String metrics = plain(h, h.adminUrl() + "/metrics").body();

      assertThat(metrics)
          .contains(
              "anteroom_room_active_users{room=\"shop\"} 1.0",
              "anteroom_room_waiting_users{room=\"shop\"} 1.0",
              "anteroom_room_total_active_users_limit{room=\"shop\"} 1.0",
              "anteroom_room_total_active_users_limit{room=\"blog\"} 7.0",
              "anteroom_room_effective_new_users_per_minute{room=\"shop\"}",
              "anteroom_room_degraded{room=\"shop\"} 0.0",
              "anteroom_room_queue_all{room=\"blog\"} 1.0",
              "anteroom_room_queue_all{room=\"shop\"} 0.0",
              "anteroom_room_suspended{room=\"shop\"} 0.0",
              "# HELP anteroom_room_active_users ");
    }
  }

  @Test
  void healthReadinessAndMetricsNeedNoToken() throws Exception {
    try (var h = new Harness(dataDir, "rooms: [ { id: shop, totalActiveUsers: 1 } ]")) {
      h.browser().get("/");
      h.browser().get("/");
      assertThat(plain(h, h.adminUrl() + "/health").body()).isEqualTo("ok\n");
      assertThat(plain(h, h.adminUrl() + "/ready").statusCode()).isEqualTo(200);
      String metrics = plain(h, h.adminUrl() + "/metrics").body();
      assertThat(metrics)
          .contains(
              "anteroom_room_admitted_new_total{room=\"shop\"} 1.0",
              "anteroom_room_queued_total{room=\"shop\"} 1.0",
              "anteroom_room_origin_latency_seconds_count{room=\"shop\"} 1");
      assertThat(plain(h, h.adminUrl() + "/").body()).contains("Anteroom dashboard");
    }
  }

  @Test
  void roomsAreCreatedUpdatedAndDeletedLive() throws Exception {
    try (var h = new Harness(dataDir, "rooms: [ { id: shop, path: /shop/ } ]")) {
      assertThat(h.browser().get("/blog/1").headers().allValues("set-cookie"))
          .as("no room covers /blog/ yet")
          .isEmpty();

      var created =
          h.admin(
              "POST", "/api/rooms", "{\"id\":\"blog\",\"path\":\"/blog/\",\"totalActiveUsers\":1}");
      assertThat(created.statusCode()).isEqualTo(201);
      assertThat(JSON.readTree(created.body()).get("totalActiveUsers").asInt()).isEqualTo(1);
      assertThat(Browser.reachedOrigin(h.browser().get("/blog/1"))).isTrue();
      assertThat(Browser.reachedOrigin(h.browser().get("/blog/1"))).as("blog is full").isFalse();

      var updated =
          h.admin(
              "PUT",
              "/api/rooms/blog",
              "{\"id\":\"blog\",\"path\":\"/blog/\",\"totalActiveUsers\":3}");
      assertThat(updated.statusCode()).isEqualTo(200);
      // new limits apply from the next minute's pool (this minute's pool is fixed)
      h.scheduler.advance(java.time.Duration.ofSeconds(60));
      h.report("blog");
      assertThat(Browser.reachedOrigin(h.browser().get("/blog/2")))
          .as("the raised limit applies, the first user still counted")
          .isTrue();
      assertThat(Browser.reachedOrigin(h.browser().get("/blog/3"))).as("3 of 3").isTrue();
      assertThat(Browser.reachedOrigin(h.browser().get("/blog/4")))
          .as("full again at the raised limit")
          .isFalse();

      JsonNode list = JSON.readTree(h.admin("GET", "/api/rooms", null).body());
      assertThat(list.findValuesAsText("id")).containsExactly("shop", "blog");

      assertThat(h.admin("DELETE", "/api/rooms/blog", null).statusCode()).isEqualTo(204);
      assertThat(h.admin("DELETE", "/api/rooms/blog", null).statusCode()).isEqualTo(404);
      assertThat(h.browser().get("/blog/5").headers().allValues("set-cookie")).isEmpty();
    }
  }

  @Test
  void badRoomBodiesAreRefusedWithTheReason() throws Exception {
    try (var h = new Harness(dataDir, "rooms: [ { id: shop } ]")) {
      var bad = h.admin("POST", "/api/rooms", "{\"id\":\"x\",\"strategy\":\"fast\"}");
      assertThat(bad.statusCode()).isEqualTo(400);
      assertThat(bad.body())
          .contains(
              "room.strategy: \\\"fast\\\" is not allowed; allowed:"
                  + " counters, evenSplit, utilizationScaled");
      var clash = h.admin("POST", "/api/rooms", "{\"id\":\"other\"}");
      assertThat(clash.statusCode()).isEqualTo(400);
      assertThat(clash.body()).contains("is already used by another room");
      var renamed = h.admin("PUT", "/api/rooms/shop", "{\"id\":\"shop2\"}");
      assertThat(renamed.statusCode()).isEqualTo(400);
      assertThat(h.admin("PUT", "/api/rooms/none", "{\"id\":\"none\"}").statusCode())
          .isEqualTo(404);
    }
  }

  @Test
  void statusReportsTheRoomAndTheSwitchesApplyLive() throws Exception {
    try (var h = new Harness(dataDir, "rooms: [ { id: shop, totalActiveUsers: 1 } ]")) {
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue();
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isFalse();
      h.report("shop");
      JsonNode st = JSON.readTree(h.admin("GET", "/api/rooms/shop/status", null).body());
      assertThat(st.get("status").asText()).isEqualTo("queueing");
      assertThat(st.get("estimatedQueuedUsers").asLong()).isEqualTo(1);
      assertThat(st.get("estimatedTotalActiveUsers").asLong()).isEqualTo(1);
      assertThat(st.has("maxEstimatedTimeMinutes")).isTrue();
      assertThat(st.get("degraded").asBoolean()).isFalse();

      var suspended = h.admin("PUT", "/api/rooms/shop/suspended", "true");
      assertThat(JSON.readTree(suspended.body()).get("status").asText()).isEqualTo("suspended");
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).as("suspended: all pass").isTrue();
      h.admin("PUT", "/api/rooms/shop/suspended", "false");

      var queueAll = h.admin("PUT", "/api/rooms/shop/queueAll", "true");
      assertThat(JSON.readTree(queueAll.body()).get("queueAll").asBoolean()).isTrue();
      h.scheduler.advance(java.time.Duration.ofMinutes(10)); // the site is empty again
      h.report("shop");
      HttpResponse<String> held = h.browser().get("/", "Accept", "application/json");
      assertThat(JSON.readTree(held.body()).get("queueAll").asBoolean()).isTrue();
      assertThat(JSON.readTree(held.body()).get("inWaitingRoom").asBoolean()).isTrue();
      h.admin("PUT", "/api/rooms/shop/queueAll", "false");
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue();
      assertThat(h.admin("PUT", "/api/rooms/shop/queueAll", "maybe").statusCode()).isEqualTo(400);
    }
  }

  private static String room(String template) {
    return "{\"id\":\"shop\",\"totalActiveUsers\":1,\"template\":\"" + template + "\"}";
  }

  /** The confirmed attack: the queue page served the data directory's ticket keys, /etc/passwd. */
  @Test
  void theAdminApiCannotPublishAFileOutsideTheTemplatesDirectory(@TempDir Path root)
      throws Exception {
    Path data = java.nio.file.Files.createDirectories(root.resolve("data"));
    Path templates = java.nio.file.Files.createDirectories(root.resolve("templates"));
    java.nio.file.Files.writeString(
        templates.resolve("page.mustache"), "<p>custom {{> parts/footer}}</p>");
    java.nio.file.Files.createDirectories(templates.resolve("parts"));
    java.nio.file.Files.writeString(templates.resolve("parts/footer.mustache"), "footer");
    java.nio.file.Files.writeString(root.resolve("outside.mustache"), "OUTSIDE");
    java.nio.file.Files.writeString(templates.resolve("escape.mustache"), "{{> ../outside}}");
    java.nio.file.Files.createSymbolicLink(
        templates.resolve("link.mustache"), data.resolve("ticket-keys"));
    try (var h =
        new Harness(
            data,
            "templatesDir: " + templates + "\nrooms: [ { id: shop, totalActiveUsers: 1 } ]")) {
      String keys =
          java.nio.file.Files.readString(data.resolve("ticket-keys")).split(" ")[1].strip();
      for (String attack :
          List.of(
              data.resolve("ticket-keys").toString(),
              "../../../../../etc/passwd",
              "/etc/passwd",
              "../data/ticket-keys",
              "link.mustache",
              "escape.mustache")) {
        var r = h.admin("PUT", "/api/rooms/shop", room(attack));
        assertThat(r.statusCode()).as(attack).isEqualTo(400);
        assertThat(r.body()).as(attack).contains("template");
      }
      assertThat(h.admin("PUT", "/api/rooms/shop", room("page.mustache")).statusCode())
          .as("a template of the directory, with a partial inside it")
          .isEqualTo(200);
      h.browser().get("/");
      String page = h.browser().get("/").body();
      assertThat(page).isEqualTo("<p>custom footer</p>").doesNotContain(keys, "root:");
    }
  }

  /** As confirmed: the queue page served the ticket keys, and /etc/passwd by a relative path. */
  @Test
  void theQueuePageNeverServesTheTicketKeysOrEtcPasswd() throws Exception {
    try (var h = new Harness(dataDir, "rooms: [ { id: shop, totalActiveUsers: 1 } ]")) {
      String keys =
          java.nio.file.Files.readString(dataDir.resolve("ticket-keys")).split(" ")[1].strip();
      for (String attack :
          List.of(dataDir.resolve("ticket-keys").toString(), "../../../../../etc/passwd")) {
        assertThat(h.admin("PUT", "/api/rooms/shop", room(attack)).statusCode())
            .as(attack)
            .isEqualTo(400);
        h.browser().get("/");
        assertThat(h.browser().get("/").body())
            .as(attack)
            .contains("You are in line")
            .doesNotContain(keys, "root:");
      }
    }
  }

  @Test
  void withoutATemplatesDirectoryOnlyTheBuiltInPageIsAvailable() throws Exception {
    java.nio.file.Files.writeString(dataDir.resolve("page.mustache"), "custom");
    try (var h = new Harness(dataDir, "rooms: [ { id: shop, totalActiveUsers: 1 } ]")) {
      var r = h.admin("PUT", "/api/rooms/shop", room("page.mustache"));
      assertThat(r.statusCode()).isEqualTo(400);
      assertThat(r.body()).contains("no templatesDir is configured");
      h.browser().get("/");
      assertThat(h.browser().get("/").body()).contains("You are in line");
    }
  }

  @Test
  void roomOriginsMustBePlainHttpUrls() throws Exception {
    try (var h = new Harness(dataDir, "rooms: [ { id: shop } ]")) {
      for (String origin :
          List.of(
              "http://user:pw@127.0.0.1:1",
              "file:///etc/passwd",
              "http://127.0.0.1:1/admin?x=1",
              "gopher://127.0.0.1:1")) {
        var r =
            h.admin("PUT", "/api/rooms/shop", "{\"id\":\"shop\",\"origin\":\"" + origin + "\"}");
        assertThat(r.statusCode()).as(origin).isEqualTo(400);
        assertThat(r.body()).as(origin).contains("origin");
      }
    }
  }

  @Test
  void metricsCanBeProtectedByTheToken() throws Exception {
    try (var h =
        new Harness(
            dataDir,
            "rooms: [ { id: shop } ]",
            new TestOrigin(),
            new io.anteroom.objects.ManualScheduler(Harness.START),
            null,
            "dc1",
            1,
            "protectMetrics: true")) {
      assertThat(plain(h, h.adminUrl() + "/metrics").statusCode()).isEqualTo(401);
      assertThat(h.admin("GET", "/metrics", null).body()).contains("{room=\"shop\"}");
      assertThat(plain(h, h.adminUrl() + "/health").statusCode()).isEqualTo(200);
    }
  }

  private static String metrics(Harness h) throws Exception {
    return plain(h, h.adminUrl() + "/metrics").body();
  }

  private static long generation(Harness h, String room) throws Exception {
    return JSON.readTree(h.admin("GET", "/api/rooms/" + room, null).body())
        .get("generation")
        .asLong();
  }

  @Test
  void aRoomDeletedAndCreatedAgainTakesItsOldTicketsForNewUsers() throws Exception {
    try (var h = new Harness(dataDir, "rooms: [ { id: shop, path: /shop/ } ]")) {
      Browser alice = h.browser();
      assertThat(Browser.reachedOrigin(alice.get("/shop/1"))).isTrue();
      assertThat(Browser.reachedOrigin(alice.get("/shop/2"))).isTrue();
      assertThat(metrics(h))
          .as("her ticket is a session in the room it was sealed for")
          .contains("anteroom_room_admitted_returning_total{room=\"shop\"} 1.0");
      assertThat(generation(h, "shop")).isZero();

      assertThat(h.admin("DELETE", "/api/rooms/shop", null).statusCode()).isEqualTo(204);
      var created = h.admin("POST", "/api/rooms", "{\"id\":\"shop\",\"path\":\"/shop/\"}");
      assertThat(created.statusCode()).isEqualTo(201);
      assertThat(JSON.readTree(created.body()).get("generation").asLong())
          .as("fresh: the epoch seconds of the gateway's clock")
          .isEqualTo(Harness.START.getEpochSecond());

      assertThat(Browser.reachedOrigin(alice.get("/shop/3"))).isTrue();
      assertThat(metrics(h))
          .as("the same cookie is a new user of the new room")
          .contains("anteroom_room_admitted_new_total{room=\"shop\"} 1.0")
          .contains("anteroom_room_admitted_returning_total{room=\"shop\"} 0.0");
    }
  }

  @Test
  void aPutKeepsTheGenerationUnlessItNamesOne() throws Exception {
    try (var h = new Harness(dataDir, "rooms: [ { id: shop, path: /shop/, generation: 5 } ]")) {
      Browser alice = h.browser();
      assertThat(Browser.reachedOrigin(alice.get("/shop/1"))).isTrue();

      assertThat(
              h.admin("PUT", "/api/rooms/shop", "{\"id\":\"shop\",\"path\":\"/shop/\"}")
                  .statusCode())
          .isEqualTo(200);
      assertThat(generation(h, "shop")).isEqualTo(5);
      assertThat(Browser.reachedOrigin(alice.get("/shop/2"))).isTrue();
      assertThat(metrics(h)).contains("anteroom_room_admitted_returning_total{room=\"shop\"} 1.0");

      var renewed =
          h.admin(
              "PUT", "/api/rooms/shop", "{\"id\":\"shop\",\"path\":\"/shop/\",\"generation\":6}");
      assertThat(renewed.statusCode()).isEqualTo(200);
      assertThat(generation(h, "shop")).isEqualTo(6);
      assertThat(Browser.reachedOrigin(alice.get("/shop/3"))).isTrue();
      assertThat(metrics(h))
          .as("generation 5's ticket is a new user in generation 6")
          .contains("anteroom_room_admitted_returning_total{room=\"shop\"} 1.0")
          .contains("anteroom_room_admitted_new_total{room=\"shop\"} 2.0");
    }
  }

  @Test
  void aRecreatedRoomRefusesAGenerationItHadBefore() throws Exception {
    try (var h = new Harness(dataDir, "rooms: [ { id: shop, path: /shop/, generation: 5 } ]")) {
      assertThat(h.admin("DELETE", "/api/rooms/shop", null).statusCode()).isEqualTo(204);
      var again =
          h.admin("POST", "/api/rooms", "{\"id\":\"shop\",\"path\":\"/shop/\",\"generation\":5}");
      assertThat(again.statusCode()).isEqualTo(400);
      assertThat(again.body()).contains("generation: 5 is not above 5");
      var given =
          h.admin("POST", "/api/rooms", "{\"id\":\"shop\",\"path\":\"/shop/\",\"generation\":6}");
      assertThat(given.statusCode())
          .as("the same given generation on every gateway")
          .isEqualTo(201);
      assertThat(generation(h, "shop")).isEqualTo(6);
      var fresh = h.admin("POST", "/api/rooms", "{\"id\":\"blog\",\"path\":\"/blog/\"}");
      assertThat(JSON.readTree(fresh.body()).get("generation").asLong())
          .as("an id never seen keeps the default")
          .isZero();
    }
  }
}
