package io.anteroom.door;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.anteroom.door.admission.RoomDocumentStore;
import io.anteroom.door.config.ConfigLoader;
import io.anteroom.door.config.GatewayConfig;
import io.anteroom.door.config.GatewayConfig.RoomSettings;
import io.anteroom.door.config.RoomTemplates;
import io.anteroom.door.config.TemplateDirectory;
import io.anteroom.room.documents.RoomDocument;
import io.anteroom.room.documents.RoomDocuments;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A gateway following the deployment's room documents ({@link RoomDocumentStore}): the rooms of its
 * config file are imported once (written only when the deployment has no document of their id),
 * then every document written after the version this gateway has is applied to its {@link Rooms}
 * through the local create, update and delete.
 *
 * <p>The rule when the file and the coordinator disagree: the coordinator's document wins once it
 * exists (also a deleted room's tombstone); one WARN line per such room names it and how to make
 * the file win ({@code anteroom rooms import}). The same for templates: a file room is imported
 * with the contents of its templates, their language variants and partials as this host's {@code
 * templatesDir} has them; once a room's document keeps a template, that text is served by every
 * gateway whatever its {@code templatesDir} holds under the name, and one WARN line per template
 * whose file here differs says so. A name the document does not keep is still read from {@code
 * templatesDir}.
 *
 * <p>Invariants: follows run one after the other ({@link #follow} chains them); each room's
 * document is applied at most once per version, whichever path brings it first (a follow, or the
 * admin API with the documents its own write returned), and never an older one after a newer; the
 * version followed only advances with a complete answer of the store, so a document written by
 * another gateway meanwhile is never skipped. A document that cannot apply here (e.g. a template
 * missing from this host's {@code templatesDir}) is logged and skipped, the room keeps what it had.
 *
 * <p>Thread safety: {@link #follow} may be called from any thread; applying is serialized by this
 * object's monitor (and {@link Rooms}' own).
 */
public final class RoomDocumentSync {

  private static final Logger LOG = LoggerFactory.getLogger(RoomDocumentSync.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Rooms rooms;
  private final RoomDocumentStore store;
  private final List<RoomSettings> fileRooms;
  private final Optional<Path> templatesDir;
  private final Path dataDir;
  private final TemplateDirectory directory;

  /** The deployment version every document up to which is applied (guarded by this). */
  private long version;

  /** The version of each room's document applied here (guarded by this). */
  private final Map<String, Long> applied = new HashMap<>();

  private boolean bootstrapped;
  private boolean failing;
  private CompletableFuture<Void> tail = CompletableFuture.completedFuture(null);

  /** Follows {@code store} for {@code rooms}, built from the config file {@code config}. */
  public RoomDocumentSync(Rooms rooms, RoomDocumentStore store, GatewayConfig config) {
    this.rooms = rooms;
    this.store = store;
    this.fileRooms = config.rooms();
    this.templatesDir = config.templatesDir();
    this.directory = new TemplateDirectory(config.templatesDir());
    this.dataDir = config.dataDir();
  }

  /** The store this gateway follows. */
  public RoomDocumentStore store() {
    return store;
  }

  /** The deployment version this gateway has applied. */
  public synchronized long version() {
    return version;
  }

  /**
   * One follow, after the ones already started: the file's rooms imported if not done yet, then
   * what changed since the version applied. Completes when applied; never completes exceptionally
   * (a store that does not answer is logged once, until it answers again).
   */
  public synchronized CompletableFuture<Void> follow() {
    tail = tail.thenCompose(v -> once());
    return tail;
  }

  /** Whether no follow is running or waiting (the timer starts one only then). */
  public synchronized boolean idle() {
    return tail.isDone();
  }

  private CompletableFuture<Void> once() {
    boolean first;
    synchronized (this) {
      first = !bootstrapped;
    }
    CompletableFuture<Void> imported =
        first ? bootstrap() : CompletableFuture.<Void>completedFuture(null);
    return imported
        .thenCompose(v -> store.since(version()).toCompletableFuture())
        .thenAccept(changes -> onChanges(changes, first))
        .handle(
            (v, failure) -> {
              if (failure != null) {
                onFailure(failure);
              }
              return null;
            });
  }

  private CompletableFuture<Void> bootstrap() {
    var writes = new ArrayList<CompletableFuture<RoomDocuments.Written>>();
    for (RoomSettings s : fileRooms) {
      writes.add(
          store
              .write(
                  RoomDocuments.Write.of(
                      RoomDocuments.Kind.BOOTSTRAP,
                      s.id(),
                      ConfigLoader.toJson(s).toString(),
                      s.generation(),
                      fileTemplates(s)))
              .toCompletableFuture());
    }
    return CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new))
        .thenRun(
            () -> {
              synchronized (this) {
                bootstrapped = true;
              }
              writes.stream()
                  .flatMap(w -> w.join().written().stream())
                  .forEach(
                      d ->
                          LOG.info(
                              "room {}: imported from the config file into the deployment's room"
                                  + " documents (version {})",
                              d.id(),
                              d.version()));
            });
  }

  /**
   * The texts of a file room's templates as this host's templatesDir has them (null: none, or more
   * than a document keeps: then each host reads them from its own templatesDir, as before).
   */
  private Map<String, String> fileTemplates(RoomSettings s) {
    var texts =
        RoomTemplates.collect(RoomTemplates.namesOf(s), s.queuePage().languages(), directory);
    long chars =
        texts.entrySet().stream().mapToLong(e -> e.getKey().length() + e.getValue().length()).sum();
    if (texts.isEmpty()) {
      return null;
    }
    if (texts.size() > RoomDocuments.MAX_TEMPLATES || chars > RoomDocuments.MAX_TEMPLATE_CHARS) {
      LOG.warn(
          "room {}: its templates ({} files, {} characters) are more than a room's document keeps"
              + " ({} files, {} characters); each gateway reads them from its own templatesDir",
          s.id(),
          texts.size(),
          chars,
          RoomDocuments.MAX_TEMPLATES,
          RoomDocuments.MAX_TEMPLATE_CHARS);
      return null;
    }
    return texts;
  }

  private void onChanges(RoomDocuments.Changes changes, boolean first) {
    synchronized (this) {
      if (failing) {
        failing = false;
        LOG.info("room documents: the coordinator answers again (version {})", changes.version());
      }
      apply(changes.documents());
      version = Math.max(version, changes.version());
    }
    if (first) {
      var latest = new HashMap<String, RoomDocument>();
      changes.documents().forEach(d -> latest.put(d.id(), d));
      for (RoomSettings s : fileRooms) {
        RoomDocument d = latest.get(s.id());
        if (d != null) {
          disagreement(s, d).ifPresent(LOG::warn);
        }
      }
      for (RoomDocument d : latest.values()) {
        templateDisagreements(d, directory).forEach(LOG::warn);
      }
    }
  }

  private synchronized void onFailure(Throwable failure) {
    if (!failing) {
      failing = true;
      Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
      LOG.warn(
          "room documents: the coordinator did not answer ({}); this gateway keeps its rooms as"
              + " they are (version {}) and asks again",
          cause.toString(),
          version);
    }
  }

  /**
   * Applies documents here (a follow's, or those the admin API's own write returned): each room's
   * newer than the one applied is created, replaced or deleted through {@link Rooms}.
   */
  public synchronized void apply(List<RoomDocument> documents) {
    for (RoomDocument d : documents) {
      Long had = applied.get(d.id());
      if (had != null && had >= d.version()) {
        continue;
      }
      applied.put(d.id(), d.version());
      try {
        applyOne(d);
      } catch (IllegalArgumentException e) {
        LOG.warn(
            "room {}: the deployment's document (version {}) cannot apply on this gateway, the room"
                + " keeps what it had here: {}",
            d.id(),
            d.version(),
            e.getMessage());
      }
    }
  }

  private void applyOne(RoomDocument d) {
    boolean here = rooms.get(d.id()).isPresent();
    if (d.deleted()) {
      if (here && rooms.delete(d.id())) {
        LOG.info("room {}: deleted (room documents version {})", d.id(), d.version());
      }
      return;
    }
    RoomSettings s = settings(d);
    if (!here) {
      rooms.create(s, true, d.templates());
      LOG.info("room {}: created (room documents version {})", d.id(), d.version());
    } else if (!s.equals(rooms.configured(d.id()))
        || !d.templates().equals(rooms.keptTemplates(d.id()))) {
      rooms.update(s, true, d.templates());
      LOG.info("room {}: replaced (room documents version {})", d.id(), d.version());
    }
  }

  /** A live document's settings, with its generation. */
  public static RoomSettings settings(RoomDocument d) {
    return ConfigLoader.parseRoom(d.json()).withGeneration(d.generation());
  }

  /**
   * The WARN line when a config file's room and the deployment's document of its id disagree (the
   * document is in force), or empty when they agree.
   */
  public static Optional<String> disagreement(RoomSettings file, RoomDocument d) {
    String how = "; to make the file's win: anteroom rooms import --file FILE";
    if (d.deleted()) {
      return Optional.of(
          "room "
              + d.id()
              + ": it is in the config file but was deleted from the deployment (room documents version "
              + d.version()
              + ", "
              + Instant.ofEpochMilli(d.changedAtMillis())
              + "), so it is not served"
              + how);
    }
    RoomSettings doc;
    try {
      doc = settings(d);
    } catch (IllegalArgumentException e) {
      return Optional.empty(); // logged when applied
    }
    if (doc.equals(file.withGeneration(d.generation()))) {
      return Optional.empty();
    }
    return Optional.of(
        "room "
            + d.id()
            + ": its settings in the config file differ from the deployment's document (version "
            + d.version()
            + ", written by "
            + d.source()
            + " at "
            + Instant.ofEpochMilli(d.changedAtMillis())
            + "); the document's are in force"
            + how);
  }

  /**
   * The WARN lines for the templates a live document keeps whose file of the same name in {@code
   * dir} (this host's templatesDir) has other contents: the document's are in force.
   */
  public static List<String> templateDisagreements(RoomDocument d, TemplateDirectory dir) {
    if (d.deleted()) {
      return List.of();
    }
    return new RoomTemplates(d.templates(), dir)
        .differingFiles().stream()
            .map(
                name ->
                    "room "
                        + d.id()
                        + ": template "
                        + name
                        + " in this gateway's templatesDir differs from the one kept in the"
                        + " deployment's document (version "
                        + d.version()
                        + ", written by "
                        + d.source()
                        + " at "
                        + Instant.ofEpochMilli(d.changedAtMillis())
                        + "); the document's is served by every gateway; to make the file's win:"
                        + " anteroom rooms import --file FILE")
            .toList();
  }

  /**
   * Checks the deployment's rooms as they would be after a change exactly as the config file is
   * checked (each room's keys, unique ids and routes, templates in this gateway's {@code
   * templatesDir}), every problem at once.
   *
   * @param after every room after the change, as JSON (the admin API's view), in routing order
   * @return the rooms read, in the same order
   * @throws IllegalArgumentException listing every problem
   */
  public List<RoomSettings> check(List<? extends JsonNode> after) {
    return check(after, Map.of());
  }

  /**
   * As {@link #check(List)}, each room with the templates kept with its document after the change
   * ({@code kept}, by room id; a room not in it: those it keeps now), which its {@code template}
   * may name and which are checked too (names, Mustache, partials), every problem at once.
   */
  public List<RoomSettings> check(
      List<? extends JsonNode> after, Map<String, ? extends Map<String, String>> kept) {
    var all = new HashMap<String, Map<String, String>>();
    for (JsonNode n : after) {
      String id = n.path("id").asText();
      all.put(id, kept.containsKey(id) ? kept.get(id) : rooms.keptTemplates(id));
    }
    ObjectNode root = JSON.createObjectNode();
    root.put("dataDir", dataDir.toString());
    templatesDir.ifPresent(t -> root.put("templatesDir", t.toString()));
    var list = root.putArray("rooms");
    after.forEach(list::add);
    return ConfigLoader.parse(root.toString(), "the rooms after this change", all).rooms();
  }

  /** This gateway's rooms as configured (before live overrides), as JSON, in routing order. */
  public List<ObjectNode> configuredJson() {
    var out = new LinkedHashMap<String, ObjectNode>();
    for (String id : rooms.snapshot().byId().keySet()) {
      RoomSettings s = rooms.configured(id);
      if (s != null) {
        out.put(id, ConfigLoader.toJson(s));
      }
    }
    return new ArrayList<>(out.values());
  }
}
