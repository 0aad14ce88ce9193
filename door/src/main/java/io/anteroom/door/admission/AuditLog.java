package io.anteroom.door.admission;

import io.anteroom.room.audit.AuditEntry;
import io.anteroom.room.audit.AuditTrail;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;

/**
 * The deployment's audit log of admin changes, as a gateway reaches it: at the coordinator ({@link
 * Coordination#audit()} of the room objects), or {@link #inMemory} for a gateway without one
 * (tests, fakes). Calls never block the caller.
 */
public interface AuditLog {

  /** Appends {@code entry}; completes with it numbered once the log keeps it. */
  CompletionStage<AuditEntry> append(AuditEntry entry);

  /**
   * Up to {@code limit} (at most {@link AuditTrail#MAX_PAGE}) entries numbered below {@code
   * before}, newest first.
   */
  CompletionStage<List<AuditEntry>> page(long before, int limit);

  /** A log kept in this process's memory only, bounded like the coordinator's. */
  static AuditLog inMemory(LongSupplier clockMillis) {
    AuditTrail trail = new AuditTrail(List.of());
    return new AuditLog() {
      @Override
      public CompletionStage<AuditEntry> append(AuditEntry entry) {
        synchronized (trail) {
          return CompletableFuture.completedFuture(
              trail.append(entry, clockMillis.getAsLong()).entry());
        }
      }

      @Override
      public CompletionStage<List<AuditEntry>> page(long before, int limit) {
        synchronized (trail) {
          return CompletableFuture.completedFuture(trail.page(before, limit));
        }
      }
    };
  }
}
