package io.anteroom.gateway.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import io.anteroom.door.RoomDocumentSync;
import io.anteroom.door.RoomRuntime;
import io.anteroom.door.Rooms;
import io.anteroom.door.config.ConfigLoader;
import io.anteroom.door.config.GatewayConfig.RoomSettings;
import io.anteroom.door.config.LiveOverrides;
import io.anteroom.room.documents.RoomDocument;
import io.anteroom.room.documents.RoomDocuments;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin API's writes of rooms for the whole deployment: {@code POST /api/rooms}, {@code PUT
 * /api/rooms/{id}}, {@code DELETE /api/rooms/{id}}, the templates kept with a room's document
 * ({@code GET}/{@code PUT /api/rooms/{id}/templates}; also {@code templates} in a room's body,
 * {@link RoomBody}), and the YAML of every room with its templates ({@code GET /api/export/rooms},
 * {@code POST /api/import/rooms}).
 *
 * <p>Each change is read and checked exactly like the config file (every room of the deployment as
 * it would be after the change, every problem at once: 400 listing them, nothing written), then
 * written to the deployment's room documents at the coordinator, applied here at once (the other
 * gateways follow within a few seconds, {@link RoomDocumentSync}), recorded in the audit log and
 * answered. A coordinator that does not confirm: 503, nothing changed anywhere.
 *
 * <p>Handlers run on the request's event loop; the store's answers are brought back to it.
 */
final class RoomWrites {

  private static final Logger LOG = LoggerFactory.getLogger(RoomWrites.class);
  private static final ObjectMapper YAML =
      new ObjectMapper(
          new YAMLFactory()
              .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
              .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES));

  private final AdminApi api;
  private final Rooms rooms;
  private final RoomDocumentSync sync;

  RoomWrites(AdminApi api, Rooms rooms, RoomDocumentSync sync) {
    this.api = api;
    this.rooms = rooms;
    this.sync = sync;
  }

  /** {@code POST /api/rooms}: a new room for the deployment. */
  void create(RoutingContext c) {
    RoomSettings s;
    RoomBody body;
    try {
      body = RoomBody.read(c.body().asString());
      s = ConfigLoader.parseRoom(body.settings());
      if (rooms.get(s.id()).isPresent()) {
        AdminApi.error(c, 400, "room \"" + s.id() + "\" already exists; use PUT to change it");
        return;
      }
      var after = sync.configuredJson();
      after.add(ConfigLoader.toJson(s));
      sync.check(after, Map.of(s.id(), body.templatesOr(Map.of())));
      rooms.queuePage(s, body.templatesOr(Map.of()));
    } catch (IllegalArgumentException e) {
      AdminApi.error(c, 400, e.getMessage());
      return;
    }
    String id = s.id();
    Long generation = ConfigLoader.setsKey(body.settings(), "generation") ? s.generation() : null;
    write(
        c,
        RoomDocuments.Write.of(
            RoomDocuments.Kind.CREATE,
            id,
            ConfigLoader.toJson(s).toString(),
            generation,
            body.templates()),
        written -> {
          sync.apply(written.written());
          String after =
              rooms
                  .get(id)
                  .map(r -> ConfigLoader.toJson(r.settings()).toString())
                  .orElse(written.written().getFirst().json());
          api.audited(
              c,
              "create room",
              id,
              null,
              RoomBody.withSummary(after, rooms.keptTemplates(id)),
              () -> AdminApi.json(c, 201, after));
        });
  }

  /**
   * {@code PUT /api/rooms/{id}}: a room's whole settings replaced; the room's live overrides
   * (switches, events) are cleared, as the body says what they are. Without a {@code generation} in
   * the body the room keeps its own.
   */
  void replace(RoutingContext c) {
    withRoom(c, r -> replace(c, r));
  }

  private void replace(RoutingContext c, RoomRuntime r) {
    String id = r.settings().id();
    RoomSettings s;
    RoomBody body;
    try {
      body = RoomBody.read(c.body().asString());
      s = ConfigLoader.parseRoom(body.settings());
      if (!s.id().equals(id)) {
        throw new IllegalArgumentException(
            "id: the body says \""
                + s.id()
                + "\" but the URL says \""
                + id
                + "\"; a room's id cannot change");
      }
      var after = new ArrayList<JsonNode>();
      for (ObjectNode o : sync.configuredJson()) {
        after.add(o.path("id").asText().equals(id) ? ConfigLoader.toJson(s) : o);
      }
      sync.check(after, body.templates() == null ? Map.of() : Map.of(id, body.templates()));
      rooms.queuePage(s, body.templates());
    } catch (IllegalArgumentException e) {
      AdminApi.error(c, 400, e.getMessage());
      return;
    }
    Long generation = ConfigLoader.setsKey(body.settings(), "generation") ? s.generation() : null;
    String before =
        RoomBody.withSummary(ConfigLoader.toJson(r.settings()).toString(), rooms.keptTemplates(id));
    write(
        c,
        RoomDocuments.Write.of(
            RoomDocuments.Kind.REPLACE,
            id,
            ConfigLoader.toJson(s).toString(),
            generation,
            body.templates()),
        written -> {
          sync.apply(written.written());
          clearOverrides(
              c,
              List.of(id),
              written.version(),
              () -> {
                String after =
                    rooms
                        .get(id)
                        .map(now -> ConfigLoader.toJson(now.settings()).toString())
                        .orElse(written.written().getFirst().json());
                api.audited(
                    c,
                    "update room",
                    id,
                    before,
                    RoomBody.withSummary(after, rooms.keptTemplates(id)),
                    () -> AdminApi.json(c, 200, after));
              });
        });
  }

  /** {@code DELETE /api/rooms/{id}}: the room deleted from the deployment. */
  void delete(RoutingContext c) {
    withRoom(c, r -> delete(c, r));
  }

  private void delete(RoutingContext c, RoomRuntime r) {
    String id = r.settings().id();
    String before = ConfigLoader.toJson(r.settings()).toString();
    write(
        c,
        RoomDocuments.Write.of(RoomDocuments.Kind.DELETE, id, null, null),
        written -> {
          sync.apply(written.written());
          api.audited(
              c, "delete room", id, before, null, () -> c.response().setStatusCode(204).end());
        });
  }

  /**
   * {@code GET /api/rooms/{id}/templates}: the texts of the templates and partials kept with the
   * room's document, by name ({@code {}}: none; the room's templates are then files of each
   * gateway's templatesDir).
   */
  void templates(RoutingContext c) {
    withRoom(
        c,
        r -> {
          ObjectNode o = YAML.createObjectNode();
          new java.util.TreeMap<>(rooms.keptTemplates(r.settings().id())).forEach(o::put);
          AdminApi.json(c, 200, o.toString());
        });
  }

  /**
   * {@code PUT /api/rooms/{id}/templates}: the room's templates and partials kept with its document
   * replaced by the body's ({@code {"queue.html": "...", "parts/head.html": "..."}}; {@code {}}:
   * none), for every gateway of the deployment. Checked like the config file's templates, with the
   * room's settings as they are (its {@code template} must still be found), every problem at once;
   * the room's settings, live switches and events stay.
   */
  void putTemplates(RoutingContext c) {
    withRoom(c, r -> putTemplates(c, r));
  }

  private void putTemplates(RoutingContext c, RoomRuntime r) {
    String id = r.settings().id();
    RoomSettings configured = rooms.configured(id);
    Map<String, String> templates;
    try {
      JsonNode node;
      try {
        node = YAML.readTree(c.body().asString() == null ? "" : c.body().asString());
      } catch (IOException e) {
        throw new IllegalArgumentException("body: not valid JSON: " + e.getMessage(), e);
      }
      templates = RoomBody.templates(node, "room \"" + id + "\"");
      sync.check(sync.configuredJson(), Map.of(id, templates));
      rooms.queuePage(configured, templates);
    } catch (IllegalArgumentException e) {
      AdminApi.error(c, 400, e.getMessage());
      return;
    }
    String before = RoomBody.summary(rooms.keptTemplates(id)).toString();
    write(
        c,
        RoomDocuments.Write.of(
            RoomDocuments.Kind.REPLACE,
            id,
            ConfigLoader.toJson(configured).toString(),
            null,
            templates),
        written -> {
          sync.apply(written.written());
          Map<String, String> now = rooms.keptTemplates(id);
          ObjectNode answer = YAML.createObjectNode();
          new java.util.TreeMap<>(now).forEach(answer::put);
          api.audited(
              c,
              "set templates",
              id,
              before,
              RoomBody.summary(now).toString(),
              () -> AdminApi.json(c, 200, answer.toString()));
        });
  }

  /**
   * Runs {@code then} with the room of the path's id; a room this gateway does not have (yet) is
   * looked for once more after a follow of the deployment's documents (created through another
   * gateway a moment ago), else 404.
   */
  private void withRoom(RoutingContext c, Consumer<RoomRuntime> then) {
    String id = c.pathParam("id");
    var here = rooms.get(id);
    if (here.isPresent()) {
      then.accept(here.get());
      return;
    }
    io.vertx.core.Context loop = c.vertx().getOrCreateContext();
    sync.follow()
        .whenComplete(
            (v, failure) ->
                loop.runOnContext(
                    x -> rooms.get(id).ifPresentOrElse(then, () -> AdminApi.notFound(c))));
  }

  /**
   * {@code GET /api/export/rooms}: every room of the deployment as the coordinator keeps it, as the
   * {@code rooms} key of a config file (YAML), generations included.
   */
  void export(RoutingContext c) {
    io.vertx.core.Context loop = c.vertx().getOrCreateContext();
    safely(() -> sync.store().since(0))
        .whenComplete(
            (changes, failure) ->
                loop.runOnContext(
                    v -> {
                      if (failure != null) {
                        unavailable(c, failure, "the rooms cannot be exported");
                        return;
                      }
                      ObjectNode root = YAML.createObjectNode();
                      var list = root.putArray("rooms");
                      for (RoomDocument d : changes.documents()) {
                        if (!d.deleted()) {
                          ObjectNode room = ConfigLoader.toJson(RoomDocumentSync.settings(d));
                          if (!d.templates().isEmpty()) {
                            ObjectNode t = room.putObject("templates");
                            d.templates().forEach(t::put);
                          }
                          list.add(room);
                        }
                      }
                      String yaml;
                      try {
                        yaml = YAML.writeValueAsString(root);
                      } catch (IOException e) {
                        AdminApi.error(c, 500, "cannot write YAML: " + e.getMessage());
                        return;
                      }
                      c.response()
                          .putHeader("Content-Type", "application/yaml; charset=utf-8")
                          .end(
                              "# the deployment's rooms, room documents version "
                                  + changes.version()
                                  + " (anteroom rooms export)\n"
                                  + yaml);
                    }));
  }

  /**
   * {@code POST /api/import/rooms[?prune=true]}: the {@code rooms} of a YAML config file (other
   * keys are ignored) made the deployment's: each created or replaced (an identical one is left as
   * it is; without its own {@code generation} a room keeps the one it has), with {@code prune} the
   * rooms not in it deleted; checked and written as one change.
   */
  void importRooms(RoutingContext c) {
    boolean prune = c.queryParam("prune").contains("true");
    JsonNode given;
    var givenTemplates = new HashMap<String, Map<String, String>>();
    List<RoomSettings> read;
    try {
      JsonNode root;
      try {
        root = YAML.readTree(c.body().asString() == null ? "" : c.body().asString());
      } catch (IOException e) {
        throw new IllegalArgumentException("body: not valid YAML: " + e.getMessage(), e);
      }
      given = root == null ? null : root.get("rooms");
      if (given == null || !given.isArray()) {
        throw new IllegalArgumentException(
            "rooms: expected a list of rooms, as in the config file (rooms: [ ... ])");
      }
      // the deployment's rooms after the import: the configured ones (unless pruned) with those
      // of the same id replaced in place, the others added; a second room of an id is added too,
      // and reported as a duplicate by the check
      var after = new ArrayList<JsonNode>(prune ? List.of() : sync.configuredJson());
      var index = new HashMap<String, Integer>();
      for (int i = 0; i < after.size(); i++) {
        index.put(after.get(i).path("id").asText(), i);
      }
      var stripped = YAML.createArrayNode();
      for (int i = 0; i < given.size(); i++) {
        JsonNode n = given.get(i);
        if (n.isObject() && n.has("templates")) {
          ObjectNode copy = ((ObjectNode) n).deepCopy();
          Map<String, String> t = RoomBody.templates(copy.remove("templates"), "rooms[" + i + "]");
          givenTemplates.put(n.path("id").asText(), t);
          n = copy;
        }
        stripped.add(n);
      }
      given = stripped;
      for (JsonNode n : given) {
        Integer at = index.remove(n.path("id").asText(""));
        if (at != null) {
          after.set(at, n);
        } else {
          after.add(n);
        }
      }
      read = sync.check(after, givenTemplates);
      read.forEach(s -> rooms.queuePage(s, givenTemplates.get(s.id())));
    } catch (IllegalArgumentException e) {
      AdminApi.error(c, 400, e.getMessage());
      return;
    }
    var ids = new java.util.HashSet<String>();
    given.forEach(n -> ids.add(n.path("id").asText()));
    var entries = new ArrayList<RoomDocuments.Entry>();
    var generationGiven = new HashMap<String, Boolean>();
    given.forEach(n -> generationGiven.put(n.path("id").asText(), n.hasNonNull("generation")));
    for (RoomSettings s : read) {
      if (ids.contains(s.id())) {
        entries.add(
            new RoomDocuments.Entry(
                s.id(),
                ConfigLoader.toJson(s).toString(),
                generationGiven.get(s.id()) ? s.generation() : null,
                givenTemplates.get(s.id())));
      }
    }
    Map<String, String> before = new HashMap<>();
    rooms.list().forEach(s -> before.put(s.id(), ConfigLoader.toJson(s).toString()));
    write(
        c,
        new RoomDocuments.Write(RoomDocuments.Kind.IMPORT, entries, prune),
        written -> {
          sync.apply(written.written());
          List<String> replaced =
              written.written().stream()
                  .filter(d -> !d.deleted() && before.containsKey(d.id()))
                  .map(RoomDocument::id)
                  .toList();
          ObjectNode answer = YAML.createObjectNode();
          answer.put("version", written.version());
          var list = answer.putArray("written");
          written.written().forEach(d -> list.add(d.id()));
          clearOverrides(
              c,
              replaced,
              written.version(),
              () -> auditEach(c, written.written(), before, 0, answer.toString()));
        });
  }

  /** One audit entry per room an import wrote, then the answer. */
  private void auditEach(
      RoutingContext c, List<RoomDocument> written, Map<String, String> before, int i, String ok) {
    if (i == written.size()) {
      AdminApi.json(c, 200, ok);
      return;
    }
    RoomDocument d = written.get(i);
    String after =
        d.deleted()
            ? null
            : rooms
                .get(d.id())
                .map(r -> ConfigLoader.toJson(r.settings()).toString())
                .orElse(d.json());
    api.audited(
        c,
        d.deleted() ? "delete room" : before.containsKey(d.id()) ? "update room" : "create room",
        d.id(),
        before.get(d.id()),
        after,
        () -> auditEach(c, written, before, i + 1, ok));
  }

  /**
   * Writes {@code w} at the coordinator; once confirmed runs {@code then} on this request's event
   * loop; a refusal is a 400 (404 for a room that is not there), a store that does not answer a 503
   * with nothing changed.
   */
  private void write(
      RoutingContext c, RoomDocuments.Write w, Consumer<RoomDocuments.Written> then) {
    io.vertx.core.Context loop = c.vertx().getOrCreateContext();
    safely(() -> sync.store().write(w))
        .whenComplete(
            (written, failure) ->
                loop.runOnContext(
                    v -> {
                      if (failure != null) {
                        unavailable(
                            c,
                            failure,
                            "the coordinator did not confirm the change; nothing is changed,"
                                + " send it again when the coordinator is reachable");
                        return;
                      }
                      if (written.wasRefused()) {
                        String why = written.refused();
                        AdminApi.error(c, why.startsWith("no room") ? 404 : 400, why);
                        return;
                      }
                      then.accept(written);
                    }));
  }

  /**
   * Clears the live overrides (switches, events, an older room override) of {@code ids} at the
   * coordinator, applies that here, then runs {@code then}; when the coordinator does not confirm,
   * a 503 saying the settings are changed but the switches are not cleared.
   */
  private void clearOverrides(RoutingContext c, List<String> ids, long version, Runnable then) {
    io.vertx.core.Context loop = c.vertx().getOrCreateContext();
    var cleared = new HashMap<String, String>();
    LiveOverrides.KEYS.forEach(k -> cleared.put(k, null));
    var calls = new ArrayList<CompletableFuture<Void>>();
    for (String id : ids) {
      rooms
          .get(id)
          .ifPresent(
              r ->
                  calls.add(
                      safely(() -> r.control().override(cleared))
                          .thenAccept(o -> rooms.applyOverrides(id, o))));
    }
    CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
        .whenComplete(
            (v, failure) ->
                loop.runOnContext(
                    x -> {
                      if (failure != null) {
                        LOG.warn(
                            "rooms {}: the settings are changed (room documents version {}) but"
                                + " the live switches and events could not be cleared: {}",
                            ids,
                            version,
                            cause(failure).toString());
                        AdminApi.error(
                            c,
                            503,
                            "the settings of "
                                + ids
                                + " are changed for the deployment (room documents version "
                                + version
                                + "), but their live switches and events could not be cleared ("
                                + cause(failure)
                                + "); send the change again when the coordinator is reachable");
                        return;
                      }
                      then.run();
                    }));
  }

  private static void unavailable(RoutingContext c, Throwable failure, String what) {
    AdminApi.error(
        c,
        503,
        "the deployment's room documents are unavailable: the coordinator did not answer ("
            + cause(failure)
            + "); "
            + what);
  }

  private static Throwable cause(Throwable t) {
    return t instanceof java.util.concurrent.CompletionException && t.getCause() != null
        ? t.getCause()
        : t;
  }

  private static <T> CompletableFuture<T> safely(Supplier<CompletionStage<T>> call) {
    try {
      return call.get().toCompletableFuture();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }
}
