package io.anteroom.gateway.admin;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.anteroom.door.RoomRuntime;
import io.anteroom.door.Rooms;
import io.anteroom.door.admission.AuditLog;
import io.anteroom.door.admission.RoomGate.RoomStatus;
import io.anteroom.door.config.AdminScope;
import io.anteroom.door.config.ConfigLoader;
import io.anteroom.door.config.GatewayConfig.NamedToken;
import io.anteroom.door.config.GatewayConfig.RoomSettings;
import io.anteroom.door.config.LiveOverrides;
import io.anteroom.room.ConfigAgreement;
import io.anteroom.room.audit.AuditEntry;
import io.anteroom.room.audit.AuditTrail;
import io.anteroom.room.history.RoomHistory;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.dropwizard.DropwizardExports;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin listener. Without a token: {@code GET /health}, {@code GET /ready}, {@code GET
 * /metrics} (Prometheus text; with {@code admin.protectMetrics} it needs the token), the status
 * page {@code GET /} and its icon {@code GET /favicon.ico}. With {@code Authorization: Bearer
 * <token>}: the room API under {@code /api} (list, create, read, update, delete, status, suspend
 * and queue-all switches), applied live through {@link Rooms}, and its OpenAPI 3.1 description
 * {@code GET /api/openapi.json} (the resource {@code openapi.json}, which describes every route of
 * {@link #router()}; a test keeps the two and the room keys equal).
 *
 * <p>Every {@code /api} route is routed through {@code api(method, path, scope, handler)} with the
 * {@link AdminScope} it needs ({@link #endpoints()}): a token of a lower scope gets 403 naming the
 * scope needed. Every change (room created, replaced, deleted; events; switches) is appended to the
 * deployment's {@link AuditLog} once applied, before it is answered.
 *
 * <p>Rooms are created, replaced and deleted for the whole deployment by {@link RoomWrites}: kept
 * as documents at the coordinator, which every gateway follows ({@link
 * io.anteroom.door.RoomDocumentSync}). A room's {@code generation} (in its tickets' associated
 * data) is kept by a {@code PUT} that leaves it out, and is fresh for a {@code POST} that
 * re-creates an id the deployment has had: tickets of the old room open as new users.
 *
 * <p>Handlers run on a Vert.x event loop; room changes go through {@link Rooms}' monitor, reads
 * take its published snapshot.
 */
public final class AdminApi {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Logger LOG = LoggerFactory.getLogger(AdminApi.class);

  /** The routing context key of the request's {@link Token}. */
  private static final String TOKEN = "anteroom.adminToken";

  /** An admin token as compared: its name, scope and secret bytes. */
  private record Token(String name, AdminScope scope, byte[] secret) {}

  /** A route of the API under {@code /api} and the scope it needs. */
  public record Endpoint(HttpMethod method, String path, AdminScope scope) {}

  private final Rooms rooms;
  private final List<Token> tokens;
  private final AuditLog audit;
  private final io.anteroom.door.RoomDocumentSync documents;
  private final Map<String, Endpoint> endpoints = new LinkedHashMap<>();
  private final Clock clock;
  private final PrometheusRegistry prometheus = new PrometheusRegistry();
  private final Router router;
  private final String openApi = resource("openapi.json");
  private volatile boolean draining;

  /**
   * {@code tokens}: who may call the API, and what ({@link AdminScope}); {@code protectMetrics}:
   * {@code /metrics} needs a token too; {@code jwks}: the signed pass's public keys, served at
   * {@code /.well-known/jwks.json}; {@code audit}: where every change is recorded; {@code
   * documents}: the deployment's room documents this gateway follows, where rooms are written.
   */
  public AdminApi(
      Vertx vertx,
      Rooms rooms,
      MetricRegistry registry,
      List<NamedToken> tokens,
      boolean protectMetrics,
      String jwks,
      Clock clock,
      AuditLog audit,
      io.anteroom.door.RoomDocumentSync documents) {
    this.rooms = rooms;
    this.tokens =
        tokens.stream()
            .map(t -> new Token(t.name(), t.scope(), t.secret().getBytes(StandardCharsets.UTF_8)))
            .toList();
    this.audit = audit;
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
      router.get("/metrics").handler(this::authenticate).handler(needs(AdminScope.READ));
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
    router.route("/api/*").handler(this::authenticate);
    // a room's templates may be up to RoomDocuments.MAX_TEMPLATE_CHARS; only holders of a token
    // get this far
    router.route("/api/*").handler(BodyHandler.create().setBodyLimit(1024 * 1024));
    api(HttpMethod.GET, "/api/openapi.json", AdminScope.READ, c -> json(c, 200, openApi));
    api(
        HttpMethod.GET,
        "/api/rooms",
        AdminScope.READ,
        c -> {
          ArrayNode list = JSON.createArrayNode();
          rooms.list().forEach(r -> list.add(ConfigLoader.toJson(r)));
          json(c, 200, list.toString());
        });
    this.documents = documents;
    var writes = new RoomWrites(this, rooms, documents);
    api(HttpMethod.POST, "/api/rooms", AdminScope.ADMIN, writes::create);
    api(
        HttpMethod.GET,
        "/api/rooms/:id",
        AdminScope.READ,
        c -> withRoom(c, r -> json(c, 200, ConfigLoader.toJson(r.settings()).toString())));
    api(HttpMethod.PUT, "/api/rooms/:id", AdminScope.ADMIN, writes::replace);
    api(HttpMethod.DELETE, "/api/rooms/:id", AdminScope.ADMIN, writes::delete);
    api(HttpMethod.GET, "/api/rooms/:id/templates", AdminScope.READ, writes::templates);
    api(HttpMethod.PUT, "/api/rooms/:id/templates", AdminScope.ADMIN, writes::putTemplates);
    api(HttpMethod.GET, "/api/export/rooms", AdminScope.READ, writes::export);
    api(HttpMethod.POST, "/api/import/rooms", AdminScope.ADMIN, writes::importRooms);
    api(
        HttpMethod.POST,
        "/api/rooms/:id/preview",
        AdminScope.OPERATE,
        new RoomPreview(rooms, documents, clock)::preview);
    api(
        HttpMethod.GET,
        "/api/status",
        AdminScope.READ,
        c -> {
          ArrayNode list = JSON.createArrayNode();
          rooms.snapshot().byId().values().forEach(r -> list.add(status(r)));
          json(c, 200, list.toString());
        });
    api(
        HttpMethod.GET,
        "/api/rooms/:id/status",
        AdminScope.READ,
        c -> withRoom(c, r -> json(c, 200, status(r).toString())));
    api(
        HttpMethod.GET,
        "/api/rooms/:id/events",
        AdminScope.READ,
        c ->
            withRoom(
                c, r -> json(c, 200, ConfigLoader.toJson(r.settings()).get("events").toString())));
    api(HttpMethod.PUT, "/api/rooms/:id/events", AdminScope.OPERATE, this::putEvents);
    api(
        HttpMethod.GET,
        "/api/rooms/:id/analytics",
        AdminScope.READ,
        c -> withRoom(c, r -> analytics(c, r)));
    api(HttpMethod.PUT, "/api/rooms/:id/suspended", AdminScope.OPERATE, c -> toggle(c, true));
    api(HttpMethod.PUT, "/api/rooms/:id/queueAll", AdminScope.OPERATE, c -> toggle(c, false));
    api(HttpMethod.GET, "/api/audit", AdminScope.READ, this::auditPage);
    // event reports per day and per event (ReportApi)
    ReportApi reports = new ReportApi(clock);
    api(
        HttpMethod.GET,
        "/api/rooms/:id/report",
        AdminScope.READ,
        c -> withRoom(c, r -> reports.json(c, r)));
    api(
        HttpMethod.GET,
        "/api/rooms/:id/report.csv",
        AdminScope.READ,
        c -> withRoom(c, r -> reports.csv(c, r)));
  }

  /** Routes {@code method path} for tokens of at least {@code scope}. */
  private void api(
      HttpMethod method,
      String path,
      AdminScope scope,
      io.vertx.core.Handler<RoutingContext> handler) {
    endpoints.put(method + " " + path, new Endpoint(method, path, scope));
    router.route(method, path).handler(needs(scope)).handler(handler);
  }

  /** Every route under {@code /api} and the scope it needs, in the order they were routed. */
  public List<Endpoint> endpoints() {
    return List.copyOf(endpoints.values());
  }

  /** The deployment's room documents this gateway follows and writes. */
  public io.anteroom.door.RoomDocumentSync documents() {
    return documents;
  }

  public Router router() {
    return router;
  }

  public void markDraining() {
    draining = true;
  }

  /**
   * Whether {@code request} carries one of the admin tokens. The admin listener's guard never
   * closes a connection that did for a newcomer.
   */
  public boolean authorized(HttpServerRequest request) {
    return identify(request) != null;
  }

  /**
   * The token {@code request} carries as {@code Authorization: Bearer}, or null: compared with
   * every token in constant time (the loop does not stop at a match).
   */
  private Token identify(HttpServerRequest request) {
    String header = request.getHeader("Authorization");
    if (header == null || !header.startsWith("Bearer ")) {
      return null;
    }
    byte[] given = header.substring(7).trim().getBytes(StandardCharsets.UTF_8);
    Token found = null;
    for (Token t : tokens) {
      if (MessageDigest.isEqual(given, t.secret()) && found == null) {
        found = t;
      }
    }
    return found;
  }

  private void authenticate(RoutingContext c) {
    Token t = identify(c.request());
    if (t != null) {
      c.put(TOKEN, t);
      c.next();
    } else {
      c.response().putHeader("WWW-Authenticate", "Bearer");
      error(
          c,
          401,
          "missing or wrong bearer token: send \"Authorization: Bearer <token>\" with one of"
              + " admin.tokens, admin.token, or the content of the file dataDir/admin-token");
    }
  }

  /** Lets a request through when its token's scope allows {@code needed}; 403 naming it if not. */
  private static io.vertx.core.Handler<RoutingContext> needs(AdminScope needed) {
    return c -> {
      Token t = c.get(TOKEN);
      if (t.scope().allows(needed)) {
        c.next();
        return;
      }
      LOG.info(
          "admin: refused {} {} to token \"{}\" (scope {}): it needs scope {}",
          c.request().method(),
          c.request().path(),
          t.name(),
          t.scope().key(),
          needed.key());
      json(
          c,
          403,
          JSON.createObjectNode()
              .put(
                  "error",
                  "the token \""
                      + t.name()
                      + "\" has scope "
                      + t.scope().key()
                      + "; "
                      + c.request().method()
                      + " "
                      + c.request().path()
                      + " needs scope "
                      + needed.key())
              .put("token", t.name())
              .put("scope", t.scope().key())
              .put("needed", needed.key())
              .toString());
    };
  }

  /**
   * Records a change made by this request's token in the audit log, then runs {@code answer} (on
   * this request's event loop); a log that could not keep it is logged, the change stays.
   */
  void audited(
      RoutingContext c, String action, String room, String before, String after, Runnable answer) {
    Token t = c.get(TOKEN);
    String client =
        rooms
            .clients()
            .of(
                c.request().remoteAddress() == null
                    ? null
                    : c.request().remoteAddress().hostAddress(),
                () -> c.request().headers().getAll("X-Forwarded-For"));
    AuditEntry entry =
        new AuditEntry(0, clock.millis(), t.name(), action, room, client, before, after);
    io.vertx.core.Context loop = c.vertx().getOrCreateContext();
    audit
        .append(entry)
        .whenComplete(
            (kept, failure) ->
                loop.runOnContext(
                    v -> {
                      if (failure != null) {
                        LOG.warn(
                            "audit: {} of room \"{}\" by token \"{}\" from {} is applied, but the"
                                + " audit log did not keep it: {}",
                            action,
                            room,
                            t.name(),
                            client,
                            failure.toString());
                      } else {
                        LOG.info(
                            "audit #{}: {} of room \"{}\" by token \"{}\" from {}",
                            kept.seq(),
                            action,
                            room,
                            t.name(),
                            client);
                      }
                      answer.run();
                    }));
  }

  /** {@code GET /api/audit?limit=&before=}: the newest changes first, a page at a time. */
  private void auditPage(RoutingContext c) {
    int limit;
    long before;
    try {
      limit = intParam(c, "limit", 50, 1, AuditTrail.MAX_PAGE);
      before = c.queryParam("before").isEmpty() ? Long.MAX_VALUE : longParam(c, "before");
    } catch (IllegalArgumentException e) {
      error(c, 400, e.getMessage());
      return;
    }
    io.vertx.core.Context loop = c.vertx().getOrCreateContext();
    audit
        .page(before, limit)
        .whenComplete(
            (page, failure) ->
                loop.runOnContext(
                    v -> {
                      if (failure != null) {
                        error(
                            c,
                            503,
                            "the audit log is unavailable: its coordinator did not answer ("
                                + failure
                                + ")");
                        return;
                      }
                      ObjectNode o = JSON.createObjectNode();
                      ArrayNode list = o.putArray("entries");
                      page.forEach(e -> list.add(auditJson(e)));
                      if (page.size() == limit && page.getLast().seq() > 1) {
                        o.put("next", page.getLast().seq());
                      } else {
                        o.putNull("next");
                      }
                      json(c, 200, o.toString());
                    }));
  }

  static ObjectNode auditJson(AuditEntry e) {
    ObjectNode o = JSON.createObjectNode();
    o.put("seq", e.seq());
    o.put("at", Instant.ofEpochMilli(e.atMillis()).toString());
    o.put("token", e.token());
    o.put("action", e.action());
    o.put("room", e.room());
    o.put("client", e.client());
    o.set("before", readJson(e.before()));
    o.set("after", readJson(e.after()));
    return o;
  }

  private static com.fasterxml.jackson.databind.JsonNode readJson(String text) {
    try {
      return text == null ? JSON.nullNode() : JSON.readTree(text);
    } catch (IOException e) {
      return JSON.getNodeFactory().textNode(text);
    }
  }

  private static int intParam(RoutingContext c, String name, int fallback, int min, int max) {
    if (c.queryParam(name).isEmpty()) {
      return fallback;
    }
    long v = longParam(c, name);
    if (v < min || v > max) {
      throw new IllegalArgumentException(
          name + ": " + v + " is out of range; between " + min + " and " + max);
    }
    return (int) v;
  }

  private static long longParam(RoutingContext c, String name) {
    String v = c.queryParam(name).getFirst();
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + ": \"" + v + "\" is not a whole number");
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
          String key = suspend ? "suspended" : "queueAll";
          var change = LiveOverrides.switchChange(key, Boolean.parseBoolean(body));
          boolean was =
              suspend ? r.settings().switches().suspended() : r.settings().switches().queueAll();
          overrideAndAnswer(
              c,
              r,
              change,
              now ->
                  audited(
                      c,
                      "set " + key,
                      id,
                      JSON.createObjectNode().put(key, was).toString(),
                      JSON.createObjectNode()
                          .put(
                              key,
                              suspend
                                  ? now.settings().switches().suspended()
                                  : now.settings().switches().queueAll())
                          .toString(),
                      () -> json(c, 200, status(now).toString())));
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
            String id = r.settings().id();
            change = LiveOverrides.eventsChange(rooms.configured(id), c.body().asString());
            // the room with these events, checked like the config file (events' templates found
            // and compiled too), as every gateway will apply it
            ObjectNode room = ConfigLoader.toJson(rooms.configured(id));
            room.set("events", readJson(change.get("events")));
            var after = new java.util.ArrayList<com.fasterxml.jackson.databind.JsonNode>();
            for (ObjectNode o : documents.configuredJson()) {
              after.add(o.path("id").asText().equals(id) ? room : o);
            }
            documents.check(after);
            rooms.queuePage(ConfigLoader.parseRoom(room.toString()));
          } catch (IllegalArgumentException e) {
            error(c, 400, e.getMessage());
            return;
          }
          String before = ConfigLoader.toJson(r.settings()).get("events").toString();
          overrideAndAnswer(
              c,
              r,
              change,
              now -> {
                String after = ConfigLoader.toJson(now.settings()).get("events").toString();
                audited(
                    c, "set events", now.settings().id(), before, after, () -> json(c, 200, after));
              });
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
    o.put("status", s.switches().suspended() ? "suspended" : st.status());
    o.put("estimatedQueuedUsers", st.estimatedQueuedUsers());
    o.put("estimatedTotalActiveUsers", st.estimatedTotalActiveUsers());
    o.put("maxEstimatedTimeMinutes", st.maxEstimatedTimeMinutes());
    o.put("degraded", st.degraded());
    o.put("queueAll", s.switches().queueAll());
    o.put("suspended", s.switches().suspended());
    o.put("totalActiveUsers", s.limits().totalActiveUsers());
    o.put("newUsersPerMinute", s.limits().newUsersPerMinute());
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

  private void withRoom(RoutingContext c, java.util.function.Consumer<RoomRuntime> then) {
    rooms.get(c.pathParam("id")).ifPresentOrElse(then, () -> notFound(c));
  }

  static void notFound(RoutingContext c) {
    error(c, 404, "no room \"" + c.pathParam("id") + "\"");
  }

  static void error(RoutingContext c, int status, String message) {
    json(c, status, JSON.createObjectNode().put("error", message).toString());
  }

  static void json(RoutingContext c, int status, String body) {
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
