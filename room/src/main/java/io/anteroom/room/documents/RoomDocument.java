package io.anteroom.room.documents;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One room's configuration as the deployment keeps it: the room's section of the config file as
 * JSON with the contents of its queue-page templates and their partials, or a tombstone once
 * deleted (kept, so that gateways following the documents learn of the deletion and a re-created
 * room gets a generation above the deleted one's).
 *
 * @param id the room's id
 * @param version the deployment's version at which this document was last written (1, 2, ...)
 * @param generation the room's generation in force (in its tickets' associated data); a tombstone
 *     keeps the deleted room's
 * @param json the room's settings as JSON (the admin API's view), or null for a deleted room
 * @param changedAtMillis when it was written (epoch milliseconds, the coordinator's clock)
 * @param source who wrote it: {@code api}, {@code import} ({@code anteroom rooms import}) or {@code
 *     file} (a gateway's config file, at its start, when the deployment had no document of the id)
 * @param templates the room's templates and partials kept with it, by name (a relative file name,
 *     as in {@code templatesDir}); a name not kept here is read from each gateway's {@code
 *     templatesDir}. Sorted by name; never null (a document saved before templates were kept reads
 *     back with none); empty for a tombstone
 */
public record RoomDocument(
    String id,
    long version,
    long generation,
    String json,
    long changedAtMillis,
    String source,
    SortedMap<String, String> templates) {

  public RoomDocument {
    templates =
        templates == null || json == null
            ? Collections.emptySortedMap()
            : Collections.unmodifiableSortedMap(new TreeMap<>(templates));
  }

  /** A document without templates of its own. */
  public RoomDocument(
      String id, long version, long generation, String json, long changedAtMillis, String source) {
    this(id, version, generation, json, changedAtMillis, source, null);
  }

  /** {@code templates} as a sorted map (null: none). */
  public static SortedMap<String, String> sorted(Map<String, String> templates) {
    return templates == null ? Collections.emptySortedMap() : new TreeMap<>(templates);
  }

  /** Whether this is the tombstone of a deleted room. */
  public boolean deleted() {
    return json == null;
  }
}
