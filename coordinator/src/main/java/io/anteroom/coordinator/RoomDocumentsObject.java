package io.anteroom.coordinator;

import io.anteroom.objects.ListOptions;
import io.anteroom.objects.ObjectContext;
import io.anteroom.objects.Storage;
import io.anteroom.room.documents.RoomDocument;
import io.anteroom.room.documents.RoomDocuments;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The deployment's room documents ({@link DeploymentRooms}): one storage key per room ({@value
 * #ROOM_PREFIX} and its id), the live ones and the tombstones of deleted ones; a write's documents
 * are put together in one confirmed write before it is answered, so a write is durable whole or not
 * at all. Calls are serialized by the object (one at a time), which orders the writes of every
 * gateway.
 */
final class RoomDocumentsObject implements DeploymentRooms {

  static final String ROOM_PREFIX = "room/";

  private final Storage storage;
  private final ObjectContext ctx;
  private RoomDocuments documents;

  RoomDocumentsObject(ObjectContext ctx) {
    this.ctx = ctx;
    this.storage = ctx.storage();
    ctx.blockConcurrencyWhile(
        () -> {
          documents =
              new RoomDocuments(
                  List.copyOf(
                      storage
                          .list(
                              ListOptions.builder().prefix(ROOM_PREFIX).build(), RoomDocument.class)
                          .values()));
          return null;
        });
  }

  @Override
  public CompletableFuture<RoomDocuments.Written> writeAsync(RoomDocuments.Write write) {
    RoomDocuments.Written w = documents.apply(write, ctx.clock().millis());
    if (!w.written().isEmpty()) {
      var entries = new LinkedHashMap<String, Object>();
      w.written().forEach(d -> entries.put(ROOM_PREFIX + d.id(), d));
      storage.put(entries); // confirmed: answered once durable
    }
    return CompletableFuture.completedFuture(w);
  }

  @Override
  public CompletableFuture<RoomDocuments.Changes> sinceAsync(long version) {
    return CompletableFuture.completedFuture(documents.since(version));
  }
}
