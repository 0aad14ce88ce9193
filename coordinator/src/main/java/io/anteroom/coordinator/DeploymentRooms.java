package io.anteroom.coordinator;

import io.anteroom.room.documents.RoomDocuments;
import java.util.concurrent.CompletableFuture;

/**
 * The RPC interface of the deployment's room documents object ({@link RoomObjects#ROOMS_NAMESPACE},
 * object name {@value RoomObjects#AUDIT_OBJECT}): every gateway of the deployment writes the rooms
 * created, replaced and deleted through its admin API here, and follows the documents by asking
 * what changed after the version it has ({@link RoomDocuments}).
 */
public interface DeploymentRooms {

  /**
   * Applies {@code write}; completes once the documents it wrote are durable (or it is refused).
   */
  CompletableFuture<RoomDocuments.Written> writeAsync(RoomDocuments.Write write);

  /** Every document written after {@code version}, oldest first, and the version now. */
  CompletableFuture<RoomDocuments.Changes> sinceAsync(long version);
}
