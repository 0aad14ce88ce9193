package io.anteroom.coordinator;

import io.anteroom.room.audit.AuditEntry;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The RPC interface of the deployment's audit object ({@link RoomObjects#AUDIT_NAMESPACE}, object
 * name {@value RoomObjects#AUDIT_OBJECT}): every gateway of the deployment appends the changes made
 * through its admin API and reads the same log. Bounded by {@link
 * io.anteroom.room.audit.AuditTrail}.
 */
public interface DeploymentAudit {

  /** Appends {@code entry}; completes with it numbered once it is durable. */
  CompletableFuture<AuditEntry> appendAsync(AuditEntry entry);

  /** Up to {@code limit} entries numbered below {@code before}, newest first. */
  CompletableFuture<Page> pageAsync(long before, int limit);

  /** A page of the log, newest first. */
  record Page(List<AuditEntry> entries) {}
}
