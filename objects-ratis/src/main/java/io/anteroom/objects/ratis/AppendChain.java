package io.anteroom.objects.ratis;

import java.lang.reflect.Field;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.ratis.server.RaftServer;

/**
 * Unblocks a Ratis division whose follower log stopped taking the leader's entries after a single
 * failed append (a workaround for Apache Ratis 3.2.2, still needed with 3.3.0: same code).
 *
 * <p>A Ratis 3.2.2 or 3.3.0 follower chains the log appends of the leader's AppendEntries requests
 * on one future ({@code RaftServerImpl.appendLogTermIndices}, its {@code NavigableIndices.future},
 * on by default: {@code raft.server.log.append-entries.compose.enabled}), each one composed on the
 * previous one. When one append fails, the chain's future stays failed, and every later append
 * composed on it fails with the same exception without being tried: the follower answers every
 * request with that failure, takes nothing more from any leader, and never applies another entry
 * until its division restarts. The leader meanwhile counts it as a member that does not answer.
 *
 * <p>Seen in the fault suite (docs/cluster.md, run 11): a leader isolated from its followers came
 * back, and the first append the new leader's entries reached its log with was entry 4003 while its
 * log still ended at 3824 ({@code Difference between entry index and RaftLog's last index 3824 ...
 * is greater than 1}: the append of 3824-4002 that it follows had not happened yet). That peer then
 * failed the leader's next 2,886 requests with the same message for the rest of the run. Five peers
 * with one such follower lose their majority as soon as two others are cut: the two faults that cut
 * two peers waited out their whole cut (10.8 and 11.4 s of failover).
 *
 * <p>{@link #unblock} puts a completed future in place of the failed one: the failed append was
 * refused by the log's own checks before its entries were written, so the follower's log holds a
 * prefix of the leader's, and the leader's next requests (it resends from the follower's next
 * index) are appended as usual. Seen again in run 14 with another refusal ({@code SegmentedRaftLog:
 * Already running a method by Thread[...]}: two appends at once), unblocked 0.8 s later. Best
 * effort: it reaches into Ratis' internals by reflection, and does nothing (saying so once) where
 * they are not as in 3.2.2 and 3.3.0.
 */
final class AppendChain {
  private AppendChain() {}

  /** Whether the reflection into Ratis works (false once it failed: said once, not retried). */
  private static volatile boolean available = true;

  /**
   * If {@code division}'s chain of follower appends has failed, replaces it with a completed one
   * and returns the failure; otherwise (or if this cannot be done) empty.
   */
  static Optional<Throwable> unblock(RaftServer.Division division) {
    if (!available) return Optional.empty();
    AtomicReference<CompletableFuture<?>> chain;
    try {
      chain = chainOf(division);
    } catch (ReflectiveOperationException | RuntimeException e) {
      available = false;
      org.slf4j.LoggerFactory.getLogger(AppendChain.class)
          .warn(
              "cannot watch Ratis' follower appends ({}): a follower whose append failed once may"
                  + " take no more entries until its peer restarts",
              e.toString());
      return Optional.empty();
    }
    if (chain == null) return Optional.empty(); // appends not chained: nothing can stay failed
    CompletableFuture<?> current = chain.get();
    if (!current.isCompletedExceptionally()) return Optional.empty();
    if (!chain.compareAndSet(current, CompletableFuture.completedFuture(null)))
      return Optional.empty(); // an append was chained meanwhile: the next look sees its outcome
    return Optional.of(failureOf(current));
  }

  /** The chained appends' future of {@code division}, or null if its appends are not chained. */
  @SuppressWarnings("unchecked")
  static AtomicReference<CompletableFuture<?>> chainOf(RaftServer.Division division)
      throws ReflectiveOperationException {
    Field indicesField = division.getClass().getDeclaredField("appendLogTermIndices");
    indicesField.setAccessible(true); // private field of Ratis' RaftServerImpl
    Object indices = indicesField.get(division);
    if (indices == null) return null;
    Field futureField = indices.getClass().getDeclaredField("future");
    futureField.setAccessible(true);
    return (AtomicReference<CompletableFuture<?>>) futureField.get(indices);
  }

  private static Throwable failureOf(CompletableFuture<?> failed) {
    try {
      failed.join();
      return new IllegalStateException("failed"); // not reached: it completed exceptionally
    } catch (RuntimeException e) {
      Throwable t = e;
      while (t.getCause() != null
          && (t instanceof java.util.concurrent.CompletionException
              || t instanceof java.util.concurrent.CancellationException)) {
        t = t.getCause();
      }
      return t;
    }
  }
}
