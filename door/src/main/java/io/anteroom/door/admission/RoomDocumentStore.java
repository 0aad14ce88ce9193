package io.anteroom.door.admission;

import io.anteroom.room.documents.RoomDocuments;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;

/**
 * The deployment's room documents, as a gateway reaches them: at the coordinator ({@link
 * Coordination#roomDocuments()} of the room objects), or {@link #inMemory} for a gateway without
 * one (tests, fakes). Calls never block the caller.
 */
public interface RoomDocumentStore {

  /** Applies {@code write}; completes with what it wrote (or why it was refused) once durable. */
  CompletionStage<RoomDocuments.Written> write(RoomDocuments.Write write);

  /** Every document written after {@code version}, oldest first, and the version now. */
  CompletionStage<RoomDocuments.Changes> since(long version);

  /** Documents kept in this process's memory only. */
  static RoomDocumentStore inMemory(LongSupplier clockMillis) {
    RoomDocuments documents = new RoomDocuments(List.of());
    return new RoomDocumentStore() {
      @Override
      public CompletionStage<RoomDocuments.Written> write(RoomDocuments.Write write) {
        synchronized (documents) {
          return CompletableFuture.completedFuture(documents.apply(write, clockMillis.getAsLong()));
        }
      }

      @Override
      public CompletionStage<RoomDocuments.Changes> since(long version) {
        synchronized (documents) {
          return CompletableFuture.completedFuture(documents.since(version));
        }
      }
    };
  }
}
