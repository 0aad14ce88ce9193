package io.anteroom.room.documents;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The rule of the deployment's room documents, kept in memory by its owner (the deployment's room
 * documents object at the coordinator, or a gateway without one).
 *
 * <p>Invariants: every write takes the next deployment version (1, 2, ...) and stamps it on the
 * documents it writes, so {@link #since} tells a follower exactly what changed after the version it
 * has; a write is refused whole (nothing changes) or applied whole; a room's generation never goes
 * down, also across a delete and a re-creation (the tombstone keeps it); a room's templates are
 * written with its settings, in the same version (a write that names none keeps a live room's). The
 * settings and templates themselves are opaque here (only their sizes are bounded): the gateway
 * validates them like the config file before it writes.
 *
 * <p>Not thread-safe; the owner serializes calls.
 *
 * <pre>{@code
 * RoomDocuments docs = new RoomDocuments(saved);
 * Written w = docs.apply(Write.of(Kind.CREATE, "shop", json, null), now); // refused if "shop" exists
 * Changes c = docs.since(followerVersion); // what a gateway applies
 * }</pre>
 */
public final class RoomDocuments {

  /** The largest room JSON kept (the admin API's body limit). */
  public static final int MAX_JSON_CHARS = 64 * 1024;

  /** The most characters of templates (names and contents together) a room keeps. */
  public static final int MAX_TEMPLATE_CHARS = 256 * 1024;

  /** The most templates (and partials) a room keeps. */
  public static final int MAX_TEMPLATES = 64;

  /** The most rooms (live and deleted) a deployment keeps. */
  public static final int MAX_ROOMS = 10_000;

  private final Map<String, RoomDocument> byId = new LinkedHashMap<>();
  private long version;

  /** Documents as saved (e.g. read back from storage after a restart). */
  public RoomDocuments(List<RoomDocument> saved) {
    for (RoomDocument d : saved) {
      byId.put(d.id(), d);
      version = Math.max(version, d.version());
    }
  }

  /**
   * The outcome of a write: the documents written (to save and to apply), or why nothing was.
   *
   * @param written the documents written, each stamped with {@link #version}
   * @param version the deployment's version after the write
   * @param refused why nothing was written, or null
   */
  public record Written(List<RoomDocument> written, long version, String refused) {
    public boolean wasRefused() {
      return refused != null;
    }
  }

  /**
   * What changed after a version.
   *
   * @param version the deployment's version now
   * @param documents every document written after the version asked for, oldest first
   */
  public record Changes(long version, List<RoomDocument> documents) {}

  /**
   * One room of a write: its id, settings as JSON (ignored for a delete), the generation it names
   * (null: none) and its templates by name (null: a new room has none, a live room keeps its own).
   */
  public record Entry(String id, String json, Long generation, Map<String, String> templates) {
    public Entry(String id, String json, Long generation) {
      this(id, json, generation, null);
    }
  }

  /** What a write does. */
  public enum Kind {
    CREATE,
    REPLACE,
    DELETE,
    BOOTSTRAP,
    IMPORT
  }

  /**
   * A write as it travels to the coordinator: {@code kind} with its rooms ({@link Kind#IMPORT}: any
   * number; the others: one) and, for an import, whether other rooms are deleted.
   */
  public record Write(Kind kind, List<Entry> entries, boolean prune) {
    public static Write of(Kind kind, String id, String json, Long generation) {
      return of(kind, id, json, generation, null);
    }

    public static Write of(
        Kind kind, String id, String json, Long generation, Map<String, String> templates) {
      return new Write(kind, List.of(new Entry(id, json, generation, templates)), false);
    }
  }

  /** Applies {@code w} at {@code nowMillis}. */
  public Written apply(Write w, long nowMillis) {
    if (w.kind() != Kind.IMPORT && w.entries().size() != 1) {
      return refused(w.kind() + " writes one room");
    }
    Entry e = w.kind() == Kind.IMPORT ? null : w.entries().getFirst();
    return switch (w.kind()) {
      case CREATE -> write(List.of(e), Mode.CREATE, false, "api", nowMillis);
      case REPLACE -> write(List.of(e), Mode.REPLACE, false, "api", nowMillis);
      case DELETE -> delete(e.id(), nowMillis);
      case BOOTSTRAP -> bootstrap(e, nowMillis);
      case IMPORT -> importAll(w.entries(), w.prune(), nowMillis);
    };
  }

  /** The deployment's version: that of its last write (0: nothing written yet). */
  public long version() {
    return version;
  }

  /** A room's document (tombstones too). */
  public Optional<RoomDocument> get(String id) {
    return Optional.ofNullable(byId.get(id));
  }

  /** The live rooms' documents, in the order they were first written. */
  public List<RoomDocument> live() {
    return byId.values().stream().filter(d -> !d.deleted()).toList();
  }

  /** Every document written after {@code after}, oldest first. */
  public Changes since(long after) {
    return new Changes(
        version,
        byId.values().stream()
            .filter(d -> d.version() > after)
            .sorted(Comparator.comparingLong(RoomDocument::version))
            .toList());
  }

  /**
   * A new room; refused when a live room has the id. A generation given must be above the one a
   * deleted room of the id had; without one, an id never used gets 0 and a re-created one the
   * greater of its last generation plus 1 and the time in epoch seconds.
   */
  public Written create(String id, String json, Long generation, long nowMillis) {
    return write(List.of(new Entry(id, json, generation)), Mode.CREATE, false, "api", nowMillis);
  }

  /**
   * A live room's new settings; refused when there is none. Without a generation the room keeps its
   * own.
   */
  public Written replace(String id, String json, Long generation, long nowMillis) {
    return write(List.of(new Entry(id, json, generation)), Mode.REPLACE, false, "api", nowMillis);
  }

  /** Deletes a live room (its tombstone keeps its generation); refused when there is none. */
  public Written delete(String id, long nowMillis) {
    RoomDocument d = byId.get(id);
    if (d == null || d.deleted()) {
      return refused("no room \"" + id + "\"");
    }
    version++;
    RoomDocument tomb = new RoomDocument(id, version, d.generation(), null, nowMillis, "api");
    byId.put(id, tomb);
    return new Written(List.of(tomb), version, null);
  }

  /**
   * A config file's room at a gateway's start: written only when the deployment has no document of
   * the id at all (neither a live room nor a deleted one); otherwise nothing is written and the
   * deployment's document is in force (no refusal: the caller compares and says so).
   */
  public Written bootstrap(String id, String json, long generation, long nowMillis) {
    return bootstrap(new Entry(id, json, generation), nowMillis);
  }

  private Written bootstrap(Entry e, long nowMillis) {
    if (byId.containsKey(e.id())) {
      return new Written(List.of(), version, null);
    }
    Entry given =
        new Entry(e.id(), e.json(), e.generation() == null ? 0 : e.generation(), e.templates());
    return write(List.of(given), Mode.CREATE, false, "file", nowMillis);
  }

  /**
   * {@code anteroom rooms import}: every entry created or replaced (a room whose settings and
   * generation are already those given is left as it is), in one write; with {@code prune} the live
   * rooms not among them are deleted. Refused whole when an id is given twice or a generation would
   * go down.
   */
  public Written importAll(List<Entry> entries, boolean prune, long nowMillis) {
    return write(entries, Mode.IMPORT, prune, "import", nowMillis);
  }

  private enum Mode {
    CREATE,
    REPLACE,
    IMPORT
  }

  private Written write(
      List<Entry> entries, Mode mode, boolean prune, String source, long nowMillis) {
    var seen = new java.util.HashSet<String>();
    var planned = new ArrayList<RoomDocument>();
    long next = version + 1;
    for (Entry e : entries) {
      if (!seen.add(e.id())) {
        return refused("room \"" + e.id() + "\" is given twice");
      }
      if (e.json() == null || e.json().length() > MAX_JSON_CHARS) {
        return refused(
            "room \""
                + e.id()
                + "\": its settings must be JSON of at most "
                + MAX_JSON_CHARS
                + " characters");
      }
      String tooMany = templateProblem(e);
      if (tooMany != null) {
        return refused(tooMany);
      }
      RoomDocument old = byId.get(e.id());
      boolean live = old != null && !old.deleted();
      if (mode == Mode.CREATE && live) {
        return refused("room \"" + e.id() + "\" already exists; use PUT to change it");
      }
      if (mode == Mode.REPLACE && !live) {
        return refused("no room \"" + e.id() + "\"; use POST /api/rooms to create it");
      }
      long generation;
      if (live) {
        generation = e.generation() != null ? e.generation() : old.generation();
      } else if (old != null) {
        long lowest = old.generation() + 1;
        generation = e.generation() != null ? e.generation() : Math.max(lowest, nowMillis / 1000);
        if (generation < lowest) {
          return refused(
              "generation: "
                  + generation
                  + " is not above "
                  + old.generation()
                  + ", the highest generation room \""
                  + e.id()
                  + "\" has had: its old tickets would open again; give a greater one, or leave"
                  + " generation out to get a fresh one");
        }
      } else {
        generation = e.generation() != null ? e.generation() : 0;
      }
      var templates =
          e.templates() != null
              ? RoomDocument.sorted(e.templates())
              : live ? old.templates() : RoomDocument.sorted(null);
      if (mode == Mode.IMPORT
          && live
          && old.generation() == generation
          && old.json().equals(e.json())
          && old.templates().equals(templates)) {
        continue;
      }
      planned.add(
          new RoomDocument(e.id(), next, generation, e.json(), nowMillis, source, templates));
    }
    if (prune) {
      for (RoomDocument d : byId.values()) {
        if (!d.deleted() && !seen.contains(d.id())) {
          planned.add(new RoomDocument(d.id(), next, d.generation(), null, nowMillis, source));
        }
      }
    }
    long fresh = planned.stream().filter(d -> !byId.containsKey(d.id())).count();
    if (byId.size() + fresh > MAX_ROOMS) {
      return refused("a deployment keeps at most " + MAX_ROOMS + " rooms (deleted ones included)");
    }
    if (planned.isEmpty()) {
      return new Written(List.of(), version, null);
    }
    version = next;
    planned.forEach(d -> byId.put(d.id(), d));
    return new Written(List.copyOf(planned), version, null);
  }

  /** Why a room's templates cannot be kept (too many, too large, a name missing), or null. */
  private static String templateProblem(Entry e) {
    if (e.templates() == null) {
      return null;
    }
    if (e.templates().size() > MAX_TEMPLATES) {
      return "room \""
          + e.id()
          + "\": "
          + e.templates().size()
          + " templates; a room keeps at most "
          + MAX_TEMPLATES;
    }
    long chars = 0;
    for (var t : e.templates().entrySet()) {
      if (t.getKey() == null || t.getKey().isEmpty() || t.getValue() == null) {
        return "room \"" + e.id() + "\": every template needs a name and a text";
      }
      chars += t.getKey().length() + t.getValue().length();
    }
    if (chars > MAX_TEMPLATE_CHARS) {
      return "room \""
          + e.id()
          + "\": its templates hold "
          + chars
          + " characters; a room keeps at most "
          + MAX_TEMPLATE_CHARS;
    }
    return null;
  }

  private Written refused(String why) {
    return new Written(List.of(), version, why);
  }

  /** The documents by version, for tests and storage (a copy). */
  public TreeMap<String, RoomDocument> all() {
    return new TreeMap<>(byId);
  }
}
