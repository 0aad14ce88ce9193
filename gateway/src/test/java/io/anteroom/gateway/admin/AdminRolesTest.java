package io.anteroom.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.anteroom.door.config.AdminScope;
import io.anteroom.gateway.Harness;
import io.anteroom.gateway.TestOrigin;
import io.anteroom.objects.ManualScheduler;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each admin token may do what its scope allows and is refused the rest with 403 naming the scope
 * needed; the table below lists every route of the API, so a new route without a scope (or without
 * a row here) fails {@link #theTableCoversEveryRouteOfTheApi}.
 */
class AdminRolesTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  static final String READ_TOKEN = "read-token-0123456789";
  static final String OPERATE_TOKEN = "operate-token-0123456789";
  static final String ADMIN_TOKEN = "admin-token-0123456789";

  /** Every route of the API and the scope it needs. */
  static final Map<String, AdminScope> SCOPES = new LinkedHashMap<>();

  static {
    SCOPES.put("GET /api/openapi.json", AdminScope.READ);
    SCOPES.put("GET /api/rooms", AdminScope.READ);
    SCOPES.put("GET /api/rooms/:id", AdminScope.READ);
    SCOPES.put("GET /api/status", AdminScope.READ);
    SCOPES.put("GET /api/rooms/:id/status", AdminScope.READ);
    SCOPES.put("GET /api/rooms/:id/events", AdminScope.READ);
    SCOPES.put("GET /api/rooms/:id/analytics", AdminScope.READ);
    SCOPES.put("GET /api/audit", AdminScope.READ);
    SCOPES.put("GET /api/rooms/:id/report", AdminScope.READ);
    SCOPES.put("GET /api/rooms/:id/report.csv", AdminScope.READ);
    SCOPES.put("PUT /api/rooms/:id/events", AdminScope.OPERATE);
    SCOPES.put("PUT /api/rooms/:id/suspended", AdminScope.OPERATE);
    SCOPES.put("PUT /api/rooms/:id/queueAll", AdminScope.OPERATE);
    SCOPES.put("POST /api/rooms", AdminScope.ADMIN);
    SCOPES.put("PUT /api/rooms/:id", AdminScope.ADMIN);
    SCOPES.put("DELETE /api/rooms/:id", AdminScope.ADMIN);
    SCOPES.put("GET /api/export/rooms", AdminScope.READ);
    SCOPES.put("POST /api/import/rooms", AdminScope.ADMIN);
    SCOPES.put("POST /api/rooms/:id/preview", AdminScope.OPERATE);
    SCOPES.put("GET /api/rooms/:id/templates", AdminScope.READ);
    SCOPES.put("PUT /api/rooms/:id/templates", AdminScope.ADMIN);
  }

  @TempDir java.nio.file.Path dataDir;

  static Harness roles(java.nio.file.Path dataDir, String rooms) throws Exception {
    return new Harness(
        dataDir,
        rooms,
        new TestOrigin(),
        new ManualScheduler(Harness.START),
        null,
        "dc1",
        1,
        "tokens: [ { name: desk, scope: read, token: "
            + READ_TOKEN
            + " }, { name: ops, scope: operate, token: "
            + OPERATE_TOKEN
            + " }, { name: lead, scope: admin, token: "
            + ADMIN_TOKEN
            + " } ]");
  }

  @Test
  void theTableCoversEveryRouteOfTheApi() throws Exception {
    try (var h = roles(dataDir, "rooms: [ { id: shop } ]")) {
      var declared = new TreeSet<String>();
      h.adminApi().endpoints().forEach(e -> declared.add(e.method() + " " + e.path()));
      var routed = new TreeSet<String>();
      for (var r : h.adminRouter().getRoutes()) {
        if (r.getPath() != null && r.getPath().startsWith("/api/") && r.methods() != null) {
          r.methods().forEach(m -> routed.add(m.name() + " " + r.getPath()));
        }
      }
      assertThat(routed).as("every route of the API is routed with a scope").isEqualTo(declared);
      assertThat(declared).isEqualTo(new TreeSet<>(SCOPES.keySet()));
      h.adminApi()
          .endpoints()
          .forEach(
              e ->
                  assertThat(e.scope())
                      .as(e.method() + " " + e.path())
                      .isEqualTo(SCOPES.get(e.method() + " " + e.path())));
    }
  }

  @Test
  void eachScopeIsRefusedWhatItDoesNotAllowWith403NamingTheScopeNeeded() throws Exception {
    try (var h = roles(dataDir, "rooms: [ { id: shop } ]")) {
      Map<AdminScope, String> tokens =
          Map.of(
              AdminScope.READ, READ_TOKEN,
              AdminScope.OPERATE, OPERATE_TOKEN,
              AdminScope.ADMIN, ADMIN_TOKEN);
      for (var row : SCOPES.entrySet()) {
        String[] parts = row.getKey().split(" ");
        // a room that does not exist: allowed calls answer 404 or 400 and change nothing
        String path = parts[1].replace(":id", "nope");
        for (AdminScope scope : AdminScope.values()) {
          var r = h.admin(tokens.get(scope), parts[0], path, "");
          String what = scope.key() + " token on " + row.getKey();
          if (scope.allows(row.getValue())) {
            assertThat(r.statusCode()).as(what).isNotIn(401, 403);
          } else {
            assertThat(r.statusCode()).as(what).isEqualTo(403);
            JsonNode body = JSON.readTree(r.body());
            assertThat(body.path("needed").asText()).as(what).isEqualTo(row.getValue().key());
            assertThat(body.path("scope").asText()).as(what).isEqualTo(scope.key());
            assertThat(body.path("error").asText()).contains("needs scope " + row.getValue().key());
          }
        }
      }
      assertThat(h.room("shop").settings().switches().queueAll()).isFalse();
      assertThat(h.rooms().list()).hasSize(1);
    }
  }

  @Test
  void anOperatorFlipsSwitchesButCannotChangeLimitsAReaderOnlyReads() throws Exception {
    try (var h = roles(dataDir, "rooms: [ { id: shop, totalActiveUsers: 5 } ]")) {
      assertThat(h.admin(READ_TOKEN, "PUT", "/api/rooms/shop/queueAll", "true").statusCode())
          .isEqualTo(403);
      assertThat(h.room("shop").settings().switches().queueAll()).isFalse();
      assertThat(h.admin(OPERATE_TOKEN, "PUT", "/api/rooms/shop/queueAll", "true").statusCode())
          .isEqualTo(200);
      assertThat(h.room("shop").settings().switches().queueAll()).isTrue();
      var limits =
          h.admin(
              OPERATE_TOKEN, "PUT", "/api/rooms/shop", "{\"id\":\"shop\",\"totalActiveUsers\":9}");
      assertThat(limits.statusCode()).isEqualTo(403);
      assertThat(h.room("shop").settings().limits().totalActiveUsers()).isEqualTo(5);
      assertThat(
              h.admin(
                      ADMIN_TOKEN,
                      "PUT",
                      "/api/rooms/shop",
                      "{\"id\":\"shop\",\"totalActiveUsers\":9}")
                  .statusCode())
          .isEqualTo(200);
      assertThat(h.room("shop").settings().limits().totalActiveUsers()).isEqualTo(9);
    }
  }

  @Test
  void anUnknownTokenIs401AndTheTokenOfAdminTokenStillHasEveryScope() throws Exception {
    try (var h = roles(dataDir, "rooms: [ { id: shop } ]")) {
      var r = h.admin("not-a-token-0123456789", "GET", "/api/rooms", null);
      assertThat(r.statusCode()).isEqualTo(401);
      // Harness's admin.token: the token named "admin", scope admin
      assertThat(h.admin("DELETE", "/api/rooms/shop", null).statusCode()).isEqualTo(204);
    }
  }

  @Test
  void theOpenApiDocumentNamesTheScopeOfEveryOperation() throws Exception {
    try (var h = roles(dataDir, "rooms: [ { id: shop } ]")) {
      JsonNode doc = JSON.readTree(h.admin(READ_TOKEN, "GET", "/api/openapi.json", null).body());
      for (var row : SCOPES.entrySet()) {
        String[] parts = row.getKey().split(" ");
        JsonNode op =
            doc.path("paths")
                .path(parts[1].replace(":id", "{id}"))
                .path(parts[0].toLowerCase(java.util.Locale.ROOT));
        assertThat(op.path("x-anteroom-scope").asText())
            .as(row.getKey())
            .isEqualTo(row.getValue().key());
        assertThat(op.path("responses").has("403"))
            .as(row.getKey() + " documents its 403")
            .isEqualTo(row.getValue() != AdminScope.READ);
      }
    }
  }
}
