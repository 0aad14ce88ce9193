package io.anteroom.coordinator;

import io.anteroom.objects.ListOptions;
import io.anteroom.objects.ObjectContext;
import io.anteroom.objects.Storage;
import io.anteroom.room.audit.AuditEntry;
import io.anteroom.room.audit.AuditTrail;
import java.util.concurrent.CompletableFuture;

/**
 * The deployment's audit log ({@link DeploymentAudit}): one storage key per entry ({@value
 * #ENTRY_PREFIX} and the number, zero-padded), written with a confirmed write before the append is
 * answered; entries that fall out of the {@link AuditTrail} are deleted with it.
 */
final class AuditObject implements DeploymentAudit {

  static final String ENTRY_PREFIX = "entry/";

  private final Storage storage;
  private final ObjectContext ctx;
  private AuditTrail trail;

  AuditObject(ObjectContext ctx) {
    this.ctx = ctx;
    this.storage = ctx.storage();
    ctx.blockConcurrencyWhile(
        () -> {
          trail =
              new AuditTrail(
                  storage
                      .list(ListOptions.builder().prefix(ENTRY_PREFIX).build(), AuditEntry.class)
                      .values());
          return null;
        });
  }

  static String key(long seq) {
    return ENTRY_PREFIX + String.format("%019d", seq);
  }

  @Override
  public CompletableFuture<AuditEntry> appendAsync(AuditEntry entry) {
    AuditTrail.Appended a = trail.append(entry, ctx.clock().millis());
    storage.put(key(a.entry().seq()), a.entry()); // confirmed: answered once durable
    if (!a.dropped().isEmpty()) {
      storage.delete(a.dropped().stream().map(AuditObject::key).toList());
    }
    return CompletableFuture.completedFuture(a.entry());
  }

  @Override
  public CompletableFuture<Page> pageAsync(long before, int limit) {
    return CompletableFuture.completedFuture(new Page(trail.page(before, limit)));
  }
}
