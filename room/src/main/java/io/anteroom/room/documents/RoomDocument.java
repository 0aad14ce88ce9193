package io.anteroom.room.documents;

/**
 * One room's configuration as the deployment keeps it: the room's section of the config file as
 * JSON, or a tombstone once deleted (kept, so that gateways following the documents learn of the
 * deletion and a re-created room gets a generation above the deleted one's).
 *
 * @param id the room's id
 * @param version the deployment's version at which this document was last written (1, 2, ...)
 * @param generation the room's generation in force (in its tickets' associated data); a tombstone
 *     keeps the deleted room's
 * @param json the room's settings as JSON (the admin API's view), or null for a deleted room
 * @param changedAtMillis when it was written (epoch milliseconds, the coordinator's clock)
 * @param source who wrote it: {@code api}, {@code import} ({@code anteroom rooms import}) or {@code
 *     file} (a gateway's config file, at its start, when the deployment had no document of the id)
 */
public record RoomDocument(
    String id, long version, long generation, String json, long changedAtMillis, String source) {

  /** Whether this is the tombstone of a deleted room. */
  public boolean deleted() {
    return json == null;
  }
}
