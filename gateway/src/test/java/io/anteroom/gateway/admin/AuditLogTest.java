package io.anteroom.gateway.admin;

import static io.anteroom.gateway.admin.AdminRolesTest.ADMIN_TOKEN;
import static io.anteroom.gateway.admin.AdminRolesTest.OPERATE_TOKEN;
import static io.anteroom.gateway.admin.AdminRolesTest.READ_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.anteroom.coordinator.CoordinatorServer;
import io.anteroom.gateway.Harness;
import io.anteroom.gateway.TestOrigin;
import io.anteroom.objects.ManualScheduler;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every change through the admin API is in the deployment's audit log, and nothing else is. */
class AuditLogTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dataDir;

  static JsonNode audit(Harness h, String query) throws Exception {
    var r = h.admin(READ_TOKEN, "GET", "/api/audit" + query, null);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  @Test
  void everyChangeIsRecordedWithTokenBeforeAfterTimeAndAddress() throws Exception {
    try (var h = AdminRolesTest.roles(dataDir, "rooms: [ { id: shop, totalActiveUsers: 5 } ]")) {
      assertThat(h.admin(OPERATE_TOKEN, "PUT", "/api/rooms/shop/queueAll", "true").statusCode())
          .isEqualTo(200);
      assertThat(
              h.admin(
                      ADMIN_TOKEN,
                      "PUT",
                      "/api/rooms/shop",
                      "{\"id\":\"shop\",\"totalActiveUsers\":9}")
                  .statusCode())
          .isEqualTo(200);
      assertThat(
              h.admin(ADMIN_TOKEN, "POST", "/api/rooms", "{\"id\":\"blog\",\"path\":\"/blog/\"}")
                  .statusCode())
          .isEqualTo(201);
      assertThat(h.admin(ADMIN_TOKEN, "DELETE", "/api/rooms/blog", null).statusCode())
          .isEqualTo(204);

      JsonNode entries = audit(h, "").get("entries");

      assertThat(entries).hasSize(4);
      JsonNode delete = entries.get(0);
      JsonNode create = entries.get(1);
      JsonNode update = entries.get(2);
      JsonNode flip = entries.get(3);
      assertThat(flip.get("seq").asLong()).isEqualTo(1);
      assertThat(flip.get("token").asText()).isEqualTo("ops");
      assertThat(flip.get("action").asText()).isEqualTo("set queueAll");
      assertThat(flip.get("room").asText()).isEqualTo("shop");
      assertThat(flip.get("before").toString()).isEqualTo("{\"queueAll\":false}");
      assertThat(flip.get("after").toString()).isEqualTo("{\"queueAll\":true}");
      assertThat(flip.get("client").asText()).isEqualTo("127.0.0.1");
      assertThat(flip.get("at").asText()).isEqualTo(Harness.START.toString());
      assertThat(update.get("token").asText()).isEqualTo("lead");
      assertThat(update.get("action").asText()).isEqualTo("update room");
      assertThat(update.get("before").get("totalActiveUsers").asInt()).isEqualTo(5);
      assertThat(update.get("after").get("totalActiveUsers").asInt()).isEqualTo(9);
      assertThat(create.get("action").asText()).isEqualTo("create room");
      assertThat(create.get("room").asText()).isEqualTo("blog");
      assertThat(create.get("before").isNull()).isTrue();
      assertThat(create.get("after").get("path").asText()).isEqualTo("/blog/");
      assertThat(delete.get("action").asText()).isEqualTo("delete room");
      assertThat(delete.get("before").get("id").asText()).isEqualTo("blog");
      assertThat(delete.get("after").isNull()).isTrue();
    }
  }

  @Test
  void refusedAndFailedChangesAreNotRecorded() throws Exception {
    try (var h = AdminRolesTest.roles(dataDir, "rooms: [ { id: shop } ]")) {
      assertThat(h.admin(READ_TOKEN, "PUT", "/api/rooms/shop/queueAll", "true").statusCode())
          .isEqualTo(403);
      assertThat(h.admin(OPERATE_TOKEN, "PUT", "/api/rooms/shop/queueAll", "yes").statusCode())
          .isEqualTo(400);
      assertThat(
              h.admin(ADMIN_TOKEN, "PUT", "/api/rooms/shop", "{\"id\":\"shop\",\"nope\":1}")
                  .statusCode())
          .isEqualTo(400);
      assertThat(h.admin(ADMIN_TOKEN, "DELETE", "/api/rooms/blog", null).statusCode())
          .isEqualTo(404);
      assertThat(h.admin("wrong-token-0123456789", "DELETE", "/api/rooms/shop", null).statusCode())
          .isEqualTo(401);

      JsonNode page = audit(h, "");
      assertThat(page.get("entries")).isEmpty();
      assertThat(page.get("next").isNull()).isTrue();
    }
  }

  @Test
  void theAddressIsTheClientBehindATrustedProxy() throws Exception {
    try (var h =
        AdminRolesTest.roles(dataDir, "trustedProxies: [ 127.0.0.1 ]\nrooms: [ { id: shop } ]")) {
      var r =
          h.client.send(
              HttpRequest.newBuilder(URI.create(h.adminUrl() + "/api/rooms/shop/suspended"))
                  .header("Authorization", "Bearer " + OPERATE_TOKEN)
                  .header("X-Forwarded-For", "203.0.113.9")
                  .PUT(HttpRequest.BodyPublishers.ofString("true"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);

      JsonNode entry = audit(h, "").get("entries").get(0);
      assertThat(entry.get("client").asText()).isEqualTo("203.0.113.9");
      assertThat(entry.get("action").asText()).isEqualTo("set suspended");
    }
  }

  @Test
  void pagesWalkTheLogNewestFirst() throws Exception {
    try (var h = AdminRolesTest.roles(dataDir, "rooms: [ { id: shop } ]")) {
      for (int i = 0; i < 5; i++) {
        h.admin(OPERATE_TOKEN, "PUT", "/api/rooms/shop/queueAll", i % 2 == 0 ? "true" : "false");
      }
      JsonNode first = audit(h, "?limit=2");
      assertThat(first.get("entries").findValuesAsText("seq")).containsExactly("5", "4");
      JsonNode second = audit(h, "?limit=2&before=" + first.get("next").asLong());
      assertThat(second.get("entries").findValuesAsText("seq")).containsExactly("3", "2");
      JsonNode last = audit(h, "?limit=2&before=" + second.get("next").asLong());
      assertThat(last.get("entries").findValuesAsText("seq")).containsExactly("1");
      assertThat(last.get("next").isNull()).isTrue();

      var bad = h.admin(READ_TOKEN, "GET", "/api/audit?limit=0", null);
      assertThat(bad.statusCode()).isEqualTo(400);
      assertThat(bad.body()).contains("limit");
      assertThat(h.admin(READ_TOKEN, "GET", "/api/audit?before=x", null).statusCode())
          .isEqualTo(400);
    }
  }

  @Test
  void everyGatewayOfADeploymentSeesTheSameLog(@TempDir Path otherDir) throws Exception {
    // a coordinator over HTTP and two gateways of two data centers, each with its own link
    var scheduler = new ManualScheduler(Harness.START);
    var runtime = Harness.runtime(scheduler);
    var coordinator = CoordinatorServer.serve(runtime, "127.0.0.1", 0);
    URI uri = URI.create("http://127.0.0.1:" + coordinator.actualPort());
    try (var objects =
            io.anteroom.host.ObjectCoordination.remote(uri, java.time.Duration.ofSeconds(5));
        var others =
            io.anteroom.host.ObjectCoordination.remote(uri, java.time.Duration.ofSeconds(5));
        var one =
            new Harness(
                dataDir,
                "rooms: [ { id: shop } ]",
                new TestOrigin(),
                scheduler,
                objects,
                "dc1",
                1,
                "tokens: [ { name: ops, scope: operate, token: " + OPERATE_TOKEN + " } ]");
        var two =
            new Harness(
                otherDir,
                "rooms: [ { id: shop } ]",
                new TestOrigin(),
                scheduler,
                others,
                "dc2",
                1,
                "tokens: [ { name: ops, scope: operate, token: " + OPERATE_TOKEN + " } ]")) {
      assertThat(one.admin(OPERATE_TOKEN, "PUT", "/api/rooms/shop/suspended", "true").statusCode())
          .isEqualTo(200);

      var r = two.admin(OPERATE_TOKEN, "GET", "/api/audit", null);
      JsonNode entries = JSON.readTree(r.body()).get("entries");
      assertThat(entries).hasSize(1);
      assertThat(entries.get(0).get("token").asText()).isEqualTo("ops");
      assertThat(entries.get(0).get("action").asText()).isEqualTo("set suspended");
      assertThat(entries.get(0).get("after").toString()).isEqualTo("{\"suspended\":true}");
    } finally {
      coordinator.close();
      runtime.close();
    }
  }

  @Test
  void withoutTheCoordinatorTheLogIs503AndSaysWhy() throws Exception {
    var scheduler = new ManualScheduler(Harness.START);
    var runtime = Harness.runtime(scheduler);
    var coordinator = CoordinatorServer.serve(runtime, "127.0.0.1", 0);
    URI uri = URI.create("http://127.0.0.1:" + coordinator.actualPort());
    coordinator.close();
    runtime.close();
    try (var link =
            io.anteroom.host.ObjectCoordination.remote(uri, java.time.Duration.ofSeconds(2));
        var h =
            new Harness(
                dataDir, "rooms: [ { id: shop } ]", new TestOrigin(), scheduler, link, "dc1")) {
      var r = h.admin("GET", "/api/audit", null);
      assertThat(r.statusCode()).isEqualTo(503);
      assertThat(JSON.readTree(r.body()).get("error").asText())
          .startsWith("the audit log is unavailable");
    }
  }
}
