package io.anteroom.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.anteroom.door.config.ConfigLoader;
import io.anteroom.gateway.Harness;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Route;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /api/openapi.json} describes the admin listener as it is: the same routes as its
 * router, the room schema with exactly the room keys, and responses that fit their schemas.
 */
class OpenApiTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> OPERATIONS =
      Set.of("get", "put", "post", "delete", "patch", "head", "options", "trace");

  @TempDir Path dataDir;

  private static JsonNode document(Harness h) throws Exception {
    HttpResponse<String> r = h.admin("GET", "/api/openapi.json", null);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-type")).contains("application/json");
    return JSON.readTree(r.body());
  }

  @Test
  void theDocumentIsServedBehindTheTokenAndIsAnOpenApi31Document() throws Exception {
    try (var h = new Harness(dataDir, "rooms: [ { id: shop } ]")) {
      var anonymous =
          h.client.send(
              HttpRequest.newBuilder(URI.create(h.adminUrl() + "/api/openapi.json")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(anonymous.statusCode()).isEqualTo(401);

      JsonNode doc = document(h);
      assertThat(doc.path("openapi").asText()).matches("3\\.1\\.\\d+");
      assertThat(doc.path("info").path("title").isTextual()).isTrue();
      assertThat(doc.path("info").path("version").isTextual()).isTrue();
      assertThat(doc.path("paths").isObject()).isTrue();
      assertThat(doc.at("/components/securitySchemes/bearerAuth/scheme").asText())
          .isEqualTo("bearer");
      // every operation answers something, and every $ref points into the document
      doc.get("paths")
          .properties()
          .forEach(
              p ->
                  p.getValue()
                      .properties()
                      .forEach(
                          o -> {
                            if (OPERATIONS.contains(o.getKey())) {
                              assertThat(o.getValue().path("responses").size())
                                  .as("%s %s", o.getKey(), p.getKey())
                                  .isPositive();
                            }
                          }));
      for (String ref : refs(doc, new ArrayList<>())) {
        assertThat(ref).startsWith("#/");
        assertThat(doc.at(ref.substring(1)).isMissingNode()).as(ref).isFalse();
      }
    }
  }

  @Test
  void theDocumentDescribesExactlyTheRoutesOfTheAdminRouter() throws Exception {
    try (var h =
        new Harness(
            dataDir,
            "rooms: [ { id: shop } ]",
            new io.anteroom.gateway.TestOrigin(),
            new io.anteroom.objects.ManualScheduler(Harness.START),
            null,
            "dc1",
            1,
            "protectMetrics: true")) {
      var routed = new TreeSet<String>();
      for (Route r : h.adminRouter().getRoutes()) {
        if (r.methods() == null || r.methods().isEmpty()) {
          continue; // handlers of every method (the token check, the body reader)
        }
        for (HttpMethod m : r.methods()) {
          routed.add(m.name() + " " + r.getPath().replaceAll(":(\\w+)", "{$1}"));
        }
      }
      var documented = new TreeSet<String>();
      document(h)
          .get("paths")
          .properties()
          .forEach(
              p ->
                  p.getValue()
                      .properties()
                      .forEach(
                          o -> {
                            if (OPERATIONS.contains(o.getKey())) {
                              documented.add(
                                  o.getKey().toUpperCase(Locale.ROOT) + " " + p.getKey());
                            }
                          }));
      assertThat(routed).contains("GET /api/rooms/{id}", "PUT /api/rooms/{id}/queueAll");
      assertThat(documented).isEqualTo(routed);
    }
  }

  @Test
  void theRoomSchemaHasExactlyTheRoomKeys() throws Exception {
    try (var h = new Harness(dataDir, "rooms: [ { id: shop } ]")) {
      JsonNode room = document(h).at("/components/schemas/Room");
      var properties = new ArrayList<String>();
      room.get("properties").fieldNames().forEachRemaining(properties::add);
      assertThat(properties).containsExactlyElementsOf(ConfigLoader.roomKeyNames());
      assertThat(room.get("additionalProperties").asBoolean(true))
          .as("unknown keys are errors")
          .isFalse();
    }
  }

  @Test
  void theAnswersOfTheApiFitTheirSchemas() throws Exception {
    try (var h = new Harness(dataDir, "rooms: [ { id: shop } ]")) {
      JsonNode doc = document(h);
      var everyKey =
          """
          { "id": "blog", "host": "blog.example.com", "path": "/b/",
            "additionalRoutes": [ { "host": "b.example.com", "path": "/" } ],
            "origin": "http://127.0.0.1:9", "totalActiveUsers": 5, "newUsersPerMinute": 4,
            "sessionDurationMinutes": 6, "queueRefreshSeconds": 30, "queueTimeoutMinutes": 7,
            "strategy": "evenSplit", "curveFactor": 2, "queueingMethod": "reject",
            "queueAll": true, "suspended": false, "disableSessionRenewal": true,
            "cookieSuffix": "x", "cookieSameSite": "Strict", "cookieSecure": true,
            "generation": 3, "jsonResponse": false, "jsonEnvelope": true,
            "rules": [ { "action": "block", "method": [ "POST", "PUT" ],
                         "header": { "name": "X-A", "glob": "b*", "not": true },
                         "query": [ { "name": "q" } ], "cookie": { "name": "c", "value": "1" },
                         "cidr": [ "10.0.0.0/8", "192.168.0.0/16" ] } ],
            "bypass": [ { "path": "/static/**", "header": "X-K", "headerValue": "v",
                          "cookie": "c", "userAgent": "*bot*", "cidr": "10.0.0.0/8" } ],
            "failMode": "closed",
            "originProtection": { "enabled": true, "maxLatencyMillis": 900,
                                  "maxErrorRatio": 0.1, "minNewUsersPerMinute": 2 },
            "queueStatusMaxQps": 10, "queueStatusMaxLatencyMillis": 20,
            "maxQueueRefreshSeconds": 200,
            "proofOfWork": { "enabled": true, "difficulty": 20, "challengeTtlSeconds": 60,
                             "onRepeatedFailure": "endlessQueue" },
            "addressLimit": { "newIdentitiesPerMinute": 30, "ipv4PrefixLength": 24,
                              "ipv6PrefixLength": 56 } }""";
      var created = h.admin("POST", "/api/rooms", everyKey);
      assertThat(created.statusCode()).isEqualTo(201);
      fits(doc, JSON.readTree(created.body()), "#/components/schemas/Room", "room");
      fits(doc, JSON.readTree(h.admin("GET", "/api/rooms", null).body()), (String) null, "rooms");
      fits(
          doc,
          JSON.readTree(h.admin("GET", "/api/rooms/shop/status", null).body()),
          "#/components/schemas/RoomStatus",
          "status");
      h.browser().get("/");
      // the objects' alarms run on their own threads: report until the minute is in the history
      var answer = new java.util.concurrent.atomic.AtomicReference<JsonNode>();
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(30))
          .until(
              () -> {
                h.report("shop");
                h.scheduler.advance(java.time.Duration.ofSeconds(6));
                answer.set(JSON.readTree(h.admin("GET", "/api/rooms/shop/analytics", null).body()));
                return !answer.get().get("minutes").isEmpty();
              });
      JsonNode analytics = answer.get();
      assertThat(analytics.get("minutes")).isNotEmpty();
      fits(doc, analytics, "#/components/schemas/RoomAnalytics", "analytics");
      var badRange = h.admin("GET", "/api/rooms/shop/analytics?from=x", null);
      assertThat(badRange.statusCode()).isEqualTo(400);
      fits(doc, JSON.readTree(badRange.body()), "#/components/schemas/Error", "400");
      var missing = h.admin("GET", "/api/rooms/nope", null);
      assertThat(missing.statusCode()).isEqualTo(404);
      fits(doc, JSON.readTree(missing.body()), "#/components/schemas/Error", "404");
      var bad = h.admin("PUT", "/api/rooms/shop/queueAll", "maybe");
      assertThat(bad.statusCode()).isEqualTo(400);
      fits(doc, JSON.readTree(bad.body()), "#/components/schemas/Error", "400");
    }
  }

  /**
   * {@code value} fits the schema at {@code ref} as far as this document uses JSON Schema: objects'
   * names are declared properties (when {@code additionalProperties} is false) and their required
   * ones present, arrays' items fit, enums hold, types match. A null {@code ref}: an array of
   * rooms.
   */
  private static void fits(JsonNode doc, JsonNode value, String ref, String where) {
    JsonNode schema =
        ref == null
            ? JSON.createObjectNode()
                .put("type", "array")
                .set("items", JSON.createObjectNode().put("$ref", "#/components/schemas/Room"))
            : JSON.createObjectNode().put("$ref", ref);
    fits(doc, value, schema, where);
  }

  private static void fits(JsonNode doc, JsonNode value, JsonNode schema, String where) {
    while (schema.has("$ref")) {
      schema = doc.at(schema.get("$ref").asText().substring(1));
      assertThat(schema.isMissingNode()).as(where).isFalse();
    }
    if (schema.has("oneOf")) { // one value, several accepted forms: exactly one must fit
      int fitting = 0;
      var why = new ArrayList<String>();
      for (JsonNode alternative : schema.get("oneOf")) {
        try {
          fits(doc, value, alternative, where);
          fitting++;
        } catch (AssertionError e) {
          why.add(e.getMessage());
        }
      }
      assertThat(fitting).as(where + " fits exactly one form of oneOf: " + why).isEqualTo(1);
      return;
    }
    String type = schema.path("type").asText("");
    if (schema.path("type").isArray()) { // OpenAPI 3.1: ["object", "null"]
      var types = new ArrayList<String>();
      schema.get("type").forEach(t -> types.add(t.asText()));
      if (value.isNull()) {
        assertThat(types).as(where + " may be null").contains("null");
        return;
      }
      types.remove("null");
      assertThat(types).as(where + ": one type besides null").hasSize(1);
      type = types.getFirst();
    }
    switch (type) {
      case "object" -> {
        assertThat(value.isObject()).as(where).isTrue();
        JsonNode properties = schema.path("properties");
        if (!schema.path("additionalProperties").asBoolean(true)) {
          value
              .fieldNames()
              .forEachRemaining(
                  n -> assertThat(properties.has(n)).as("%s.%s is declared", where, n).isTrue());
        }
        schema
            .path("required")
            .forEach(n -> assertThat(value.has(n.asText())).as("%s.%s", where, n).isTrue());
        value
            .properties()
            .forEach(
                e -> {
                  if (properties.has(e.getKey())) {
                    fits(doc, e.getValue(), properties.get(e.getKey()), where + "." + e.getKey());
                  }
                });
      }
      case "array" -> {
        assertThat(value.isArray()).as(where).isTrue();
        int i = 0;
        for (JsonNode item : value) {
          fits(doc, item, schema.get("items"), where + "[" + i++ + "]");
        }
      }
      case "string" -> assertThat(value.isTextual()).as(where).isTrue();
      case "integer" -> assertThat(value.isIntegralNumber()).as(where).isTrue();
      case "number" -> assertThat(value.isNumber()).as(where).isTrue();
      case "boolean" -> assertThat(value.isBoolean()).as(where).isTrue();
      default -> throw new AssertionError(where + ": schema without a known type: " + schema);
    }
    if (schema.has("enum")) {
      var allowed = new ArrayList<JsonNode>();
      schema.get("enum").forEach(allowed::add);
      assertThat(allowed).as(where).contains(value);
    }
  }

  private static List<String> refs(JsonNode node, List<String> out) {
    if (node.has("$ref")) {
      out.add(node.get("$ref").asText());
    }
    for (Iterator<JsonNode> it = node.elements(); it.hasNext(); ) {
      refs(it.next(), out);
    }
    return out;
  }
}
