package io.anteroom.gateway.admin;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.anteroom.door.RoomRuntime;
import io.anteroom.door.Rooms;
import io.anteroom.door.admission.RoomGate.RoomStatus;
import io.anteroom.door.config.ConfigLoader;
import io.anteroom.door.config.GatewayConfig.RoomSettings;
import io.anteroom.door.config.LiveOverrides;
import io.anteroom.room.ConfigAgreement;
import io.anteroom.room.history.RoomHistory;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.dropwizard.DropwizardExports;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;

/**
 * The admin listener. Without a token: {@code GET /health}, {@code GET /ready}, {@code GET
 * /metrics} (Prometheus text; with {@code admin.protectMetrics} it needs the token), the status
 * page {@code GET /} and its icon {@code GET /favicon.ico}. With {@code Authorization: Bearer
 * <token>}: the room API under {@code /api} (list, create, read, update, delete, status, suspend
 * and queue-all switches), applied live through {@link Rooms}, and its OpenAPI 3.1 description
 * {@code GET /api/openapi.json} (the resource {@code openapi.json}, which describes every route of
 * {@link #router()}; a test keeps the two and the room keys equal).
 *
 * <p>A room's {@code generation} (in its tickets' associated data) is kept by a {@code PUT} that
 * leaves it out, and is fresh for a {@code POST} that re-creates an id this process has known (see
 * {@link Rooms#create(RoomSettings, boolean)}): tickets of the old room open as new users.
 *
 * <p>Handlers run on a Vert.x event loop; room changes go through {@link Rooms}' monitor, reads
 * take its published snapshot.
 */
public final class AdminApi {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Rooms rooms;
  private final byte[] token;
  private final Clock clock;
  private final PrometheusRegistry prometheus = new PrometheusRegistry();
  private final Router router;
  private final String openApi = resource("openapi.json");
  private volatile boolean draining;

  /**
   * {@code protectMetrics}: {@code /metrics} needs the bearer token too; {@code jwks}: the signed
   * pass's public keys, served at {@code /.well-known/jwks.json}.
   */
  public AdminApi(
      Vertx vertx,
      Rooms rooms,
      MetricRegistry registry,
      String token,
      boolean protectMetrics,
      String jwks,
      Clock clock) {
    this.rooms = rooms;
    this.token = token.getBytes(StandardCharsets.UTF_8);
    this.clock = clock;
    // the rooms' own meters are exported by RoomMetrics, with the room as a label
    DropwizardExports.builder()
        .dropwizardRegistry(registry)
        .metricFilter((name, metric) -> !name.startsWith("anteroom.room."))
        .register(prometheus);
    prometheus.register(new RoomMetrics(rooms, clock));
    router = Router.router(vertx);
    router
        .get("/health")
        .handler(c -> c.response().putHeader("Content-Type", "text/plain").end("ok\n"));
    router
        .get("/ready")
        .handler(
            c -> {
              String unready = unready();
              c.response()
                  .setStatusCode(unready == null ? 200 : 503)
                  .putHeader("Content-Type", "text/plain")
                  .putHeader("Cache-Control", "no-store")
                  .end(unready == null ? "ready\n" : unready + "\n");
            });
    if (protectMetrics) {
      router.get("/metrics").handler(this::authorize);
    }
    router.get("/metrics").handler(this::metrics);
    router
        .get("/")
        .handler(
            c ->
                c.response()
                    .putHeader("Content-Type", "text/html; charset=utf-8")
                    .putHeader("Cache-Control", "no-store")
                    .end(resource("dashboard.html")));
    byte[] icon = bytes("favicon.ico");
    router
        .get("/favicon.ico")
        .handler(
            c ->
                c.response()
                    .putHeader("Content-Type", "image/x-icon")
                    .putHeader("Cache-Control", "max-age=86400")
                    .end(Buffer.buffer(icon)));
    // the public keys of the signed pass (Anteroom-Pass), for origins that verify it: public
    router
        .get("/.well-known/jwks.json")
        .handler(
            c ->
                c.response()
                    .putHeader("Content-Type", "application/jwk-set+json")
                    .putHeader("Cache-Control", "max-age=300")
                    .end(jwks));
    router.route("/api/*").handler(this::authorize);
    router.route("/api/*").handler(BodyHandler.create().setBodyLimit(64 * 1024));
    router.get("/api/openapi.json").handler(c -> json(c, 200, openApi));
    router
        .get("/api/rooms")
        .handler(
            c -> {
              ArrayNode list = JSON.createArrayNode();
              rooms.list().forEach(r -> list.add(ConfigLoader.toJson(r)));
              json(c, 200, list.toString());
            });
    router
        .post("/api/rooms")
        .handler(
            c ->
                change(
                    c,
                    201,
                    () -> {
                      String body = c.body().asString();
                      RoomSettings s = ConfigLoader.parseRoom(body);
                      return ConfigLoader.toJson(
                          rooms.create(s, ConfigLoader.setsKey(body, "generation")).settings());
                    }));
    router
        .get("/api/rooms/:id")
        .handler(c -> withRoom(c, r -> json(c, 200, ConfigLoader.toJson(r.settings()).toString())));
    router.put("/api/rooms/:id").handler(this::putRoom);
    router
        .delete("/api/rooms/:id")
        .handler(
            c -> {
              if (rooms.delete(c.pathParam("id"))) {
                c.response().setStatusCode(204).end();
              } else {
                notFound(c);
              }
            });
    router
        .get("/api/status")
        .handler(
            c -> {
              ArrayNode list = JSON.createArrayNode();
              rooms.snapshot().byId().values().forEach(r -> list.add(status(r)));
              json(c, 200, list.toString());
            });
    router
        .get("/api/rooms/:id/status")
        .handler(c -> withRoom(c, r -> json(c, 200, status(r).toString())));
    router
        .get("/api/rooms/:id/events")
        .handler(
            c ->
                withRoom(
                    c,
                    r -> json(c, 200, ConfigLoader.toJson(r.settings()).get("events").toString())));
    router.put("/api/rooms/:id/events").handler(this::putEvents);
    router.get("/api/rooms/:id/analytics").handler(c -> withRoom(c, r -> analytics(c, r)));
    router.put("/api/rooms/:id/suspended").handler(c -> toggle(c, true));
    router.put("/api/rooms/:id/queueAll").handler(c -> toggle(c, false));
  }

  public Router router() {
    return router;
  }

  public void markDraining() {
    draining = true;
  }

  /**
   * Whether {@code request} carries the bearer token (compared in constant time). The admin
   * listener's guard never closes a connection that did for a newcomer.
   */
  public boolean authorized(HttpServerRequest request) {
    String header = request.getHeader("Authorization");
    byte[] given =
        header != null && header.startsWith("Bearer ")
            ? header.substring(7).trim().getBytes(StandardCharsets.UTF_8)
            : new byte[0];
    return MessageDigest.isEqual(given, token);
  }

  private void authorize(RoutingContext c) {
    if (authorized(c.request())) {
      c.next();
    } else {
      c.response().putHeader("WWW-Authenticate", "Bearer");
      error(
          c,
          401,
          "missing or wrong bearer token: send \"Authorization: Bearer <admin.token>\""
              + " (the token is admin.token in the config, or the file dataDir/admin-token)");
    }
  }

  /**
   * A live switch: written to the room's live overrides at the coordinator (for every gateway of
   * the deployment, durably), answered once the coordinator confirmed; 503 when it could not, with
   * nothing changed here.
   */
  private void toggle(RoutingContext c, boolean suspend) {
    withRoom(
        c,
        r -> {
          String body = c.body().asString() == null ? "" : c.body().asString().trim();
          if (!body.equals("true") && !body.equals("false")) {
            error(c, 400, "body must be true or false, found \"" + body + "\"");
            return;
          }
          String id = r.settings().id();
          var change =
              LiveOverrides.switchChange(
                  suspend ? "suspended" : "queueAll", Boolean.parseBoolean(body));
          overrideAndAnswer(c, r, change, now -> json(c, 200, status(now).toString()));
        });
  }

  /**
   * Writes {@code change} to the room's live overrides at the coordinator and, once it confirmed,
   * applies them here and answers with {@code answer}; 503 when it could not, nothing changed here.
   */
  private void overrideAndAnswer(
      RoutingContext c,
      RoomRuntime r,
      Map<String, String> change,
      java.util.function.Consumer<RoomRuntime> answer) {
    String id = r.settings().id();
    io.vertx.core.Context context = Vertx.currentContext();
    r.control()
        .override(change)
        .whenComplete(
            (o, failure) ->
                context.runOnContext(
                    v -> {
                      if (failure != null) {
                        Throwable cause =
                            failure instanceof java.util.concurrent.CompletionException
                                    && failure.getCause() != null
                                ? failure.getCause()
                                : failure;
                        error(
                            c,
                            503,
                            "the coordinator did not confirm the change of room \""
                                + id
                                + "\" ("
                                + cause
                                + "); it is not applied on this gateway; send it again"
                                + " when the coordinator is reachable");
                        return;
                      }
                      rooms.applyOverrides(id, o).ifPresentOrElse(answer, () -> notFound(c));
                    }));
  }

  /**
   * Replaces a room's settings for every gateway of the deployment: the body is read and checked
   * like the config file (and against this gateway's other rooms), written to the room's live
   * overrides at the coordinator, and answered once it confirmed (503 otherwise, nothing changed).
   * Without a {@code generation} in the body the room keeps the one in force.
   */
  private void putRoom(RoutingContext c) {
    withRoom(
        c,
        r -> {
          Map<String, String> change;
          try {
            String body = c.body().asString();
            RoomSettings s = ConfigLoader.parseRoom(body);
            if (!s.id().equals(c.pathParam("id"))) {
              throw new IllegalArgumentException(
                  "id: the body says \""
                      + s.id()
                      + "\" but the URL says \""
                      + c.pathParam("id")
                      + "\"; a room's id cannot change");
            }
            if (!ConfigLoader.setsKey(body, "generation")) {
              s = s.withGeneration(r.settings().generation());
            }
            rooms.check(s);
            change = LiveOverrides.roomChange(s);
          } catch (IllegalArgumentException e) {
            error(c, 400, e.getMessage());
            return;
          }
          overrideAndAnswer(
              c, r, change, now -> json(c, 200, ConfigLoader.toJson(now.settings()).toString()));
        });
  }

  /**
   * Replaces a room's scheduled events for every gateway of the deployment: the body (a JSON array)
   * is checked like the config file's {@code events} key (400 naming the key), written to the
   * room's live overrides at the coordinator, and answered once it confirmed (503 otherwise, with
   * nothing changed).
   */
  private void putEvents(RoutingContext c) {
    withRoom(
        c,
        r -> {
          Map<String, String> change;
          try {
            change =
                LiveOverrides.eventsChange(
                    rooms.configured(r.settings().id()), c.body().asString());
          } catch (IllegalArgumentException e) {
            error(c, 400, e.getMessage());
            return;
          }
          overrideAndAnswer(
              c,
              r,
              change,
              now -> json(c, 200, ConfigLoader.toJson(now.settings()).get("events").toString()));
        });
  }

  /**
   * {@code GET /api/rooms/:id/analytics?from=&to=}: the room's history per minute (see {@link
   * AnalyticsRange} for the parameters), from the room's global object through the coordination.
   */
  private void analytics(RoutingContext c, RoomRuntime r) {
    AnalyticsRange range;
    try {
      range = AnalyticsRange.parse(c.queryParam("from"), c.queryParam("to"), clock.instant());
    } catch (IllegalArgumentException e) {
      error(c, 400, e.getMessage());
      return;
    }
    String id = r.settings().id();
    // the answer comes on the coordination's thread: respond on this request's event loop
    io.vertx.core.Context loop = c.vertx().getOrCreateContext();
    r.control()
        .history(range.fromMinute(), range.toMinute())
        .whenComplete(
            (rows, failure) ->
                loop.runOnContext(v -> answerAnalytics(c, id, range, rows, failure)));
  }

  private void answerAnalytics(
      RoutingContext c,
      String id,
      AnalyticsRange range,
      java.util.List<io.anteroom.room.history.HistoryRow> rows,
      Throwable failure) {
    if (failure != null) {
      error(
          c,
          503,
          "the history of room \""
              + id
              + "\" is unavailable: its coordinator did not answer ("
              + failure
              + ")");
      return;
    }
    ObjectNode o = JSON.createObjectNode();
    o.put("id", id);
    o.put("from", Instant.ofEpochSecond(range.fromMinute() * 60).toString());
    o.put("to", Instant.ofEpochSecond(range.toMinute() * 60).toString());
    ArrayNode minutes = o.putArray("minutes");
    RoomHistory.series(rows).forEach(p -> minutes.add(AnalyticsRange.toJson(p)));
    json(c, 200, o.toString());
  }

  ObjectNode status(RoomRuntime r) {
    RoomSettings s = r.settings();
    RoomStatus st = r.control().status(clock.millis());
    ObjectNode o = JSON.createObjectNode();
    o.put("id", s.id());
    o.put("status", s.suspended() ? "suspended" : st.status());
    o.put("estimatedQueuedUsers", st.estimatedQueuedUsers());
    o.put("estimatedTotalActiveUsers", st.estimatedTotalActiveUsers());
    o.put("maxEstimatedTimeMinutes", st.maxEstimatedTimeMinutes());
    o.put("degraded", st.degraded());
    o.put("queueAll", s.queueAll());
    o.put("suspended", s.suspended());
    o.put("totalActiveUsers", s.totalActiveUsers());
    o.put("newUsersPerMinute", s.newUsersPerMinute());
    o.put("effectiveNewUsersPerMinute", st.effectiveNewUsersPerMinute());
    o.put("lastUpdated", Instant.ofEpochMilli(st.lastUpdatedMillis()).toString());
    o.put("overridesVersion", st.overridesVersion());
    if (st.configFingerprint() != null) {
      o.put("configFingerprint", st.configFingerprint());
    }
    ConfigAgreement.Verdict agreement = st.agreement();
    if (agreement != null && agreement.conflict()) {
      ObjectNode conflict = o.putObject("configConflict");
      conflict.set("authoritative", fingerprint(agreement.authoritative()));
      ArrayNode disagreeing = conflict.putArray("disagreeing");
      agreement.disagreeing().forEach(f -> disagreeing.add(fingerprint(f)));
    } else {
      o.putNull("configConflict");
    }
    return o;
  }

  private static ObjectNode fingerprint(ConfigAgreement.Fingerprint f) {
    ObjectNode o = JSON.createObjectNode();
    if (f != null) {
      o.put("gateway", f.gateway());
      o.put("dataCenter", f.dataCenter());
      o.put("fingerprint", f.hash());
      o.put("generation", f.generation());
    }
    return o;
  }

  private interface Change {
    Object apply();
  }

  private void change(RoutingContext c, int status, Change change) {
    try {
      json(c, status, change.apply().toString());
    } catch (IllegalArgumentException e) {
      error(
          c,
          e.getMessage() != null && e.getMessage().startsWith("no room") ? 404 : 400,
          e.getMessage());
    }
  }

  private void withRoom(RoutingContext c, java.util.function.Consumer<RoomRuntime> then) {
    rooms.get(c.pathParam("id")).ifPresentOrElse(then, () -> notFound(c));
  }

  private static void notFound(RoutingContext c) {
    error(c, 404, "no room \"" + c.pathParam("id") + "\"");
  }

  private static void error(RoutingContext c, int status, String message) {
    json(c, status, JSON.createObjectNode().put("error", message).toString());
  }

  private static void json(RoutingContext c, int status, String body) {
    c.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(body);
  }

  /**
   * Why this gateway should not get new traffic, or null: it is draining, or a room cannot reach
   * its coordinator (the room then decides per {@code failMode}; a balancer prefers gateways that
   * reach it).
   */
  private String unready() {
    if (draining) {
      return "draining";
    }
    long now = clock.millis();
    var degraded = new java.util.ArrayList<String>();
    for (RoomRuntime r : rooms.snapshot().byId().values()) {
      if (r.control().status(now).degraded()) {
        degraded.add(r.settings().id());
      }
    }
    return degraded.isEmpty()
        ? null
        : "degraded: the coordinator is unreachable for room(s) " + String.join(", ", degraded);
  }

  private void metrics(RoutingContext c) {
    var out = new ByteArrayOutputStream(8192);
    try {
      PrometheusTextFormatWriter.create().write(out, prometheus.scrape());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot render /metrics", e);
    }
    c.response()
        .putHeader("Content-Type", PrometheusTextFormatWriter.CONTENT_TYPE)
        .end(io.vertx.core.buffer.Buffer.buffer(out.toByteArray()));
  }

  private static String resource(String name) {
    return new String(bytes(name), StandardCharsets.UTF_8);
  }

  private static byte[] bytes(String name) {
    try (InputStream in = AdminApi.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IOException("not found");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(name + " missing from the jar", e);
    }
  }
}
