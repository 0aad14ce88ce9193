package io.anteroom.objects.storage;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.ToIntFunction;

/**
 * Where objects' data lives: point reads, ordered scans, and an atomic, durable commit of the
 * batches of many objects at once. The runtime drives every engine from exactly one group-commit
 * writer thread ({@link #commit} is never called concurrently with itself); reads may come from any
 * thread concurrently with a commit.
 *
 * <p>Fencing (replicated engines). An engine whose authority can end while the runtime runs (a Raft
 * leader that is deposed) uses two hooks, both no-ops for a local engine:
 *
 * <ul>
 *   <li>{@link #fenceWith}: the runtime hands the engine its {@code Runtime.resetAll} once, at
 *       start; the engine calls it as soon as it knows that what the runtime holds in memory (live
 *       instances, their caches, unconfirmed outputs) may no longer be current.
 *   <li>{@link #confirmReads}: the runtime asks it after each event's reads, before releasing the
 *       reply; the reply is released only if it completes normally. It must complete only once
 *       every read served before the call (from the engine or from a runtime's cache of it) is
 *       known to be current, i.e. no other writer could have committed since. An engine whose
 *       commits themselves prove that ({@link #commitConfirmsReads}) is asked only for events that
 *       wrote nothing.
 * </ul>
 *
 * <p>Objects are named by a string key ({@code namespace + "/" + id}); keys within an object are
 * ordered by {@link KeyRange#ORDER}.
 *
 * <pre>{@code
 * StorageEngine engine = SqliteStorageEngine.open(Path.of("data"));   // the default
 * StorageEngine test = new InMemoryStorageEngine();                   // tests, fault injection
 * Runtime runtime = Runtime.builder().storage(engine).build();
 * }</pre>
 */
public interface StorageEngine extends AutoCloseable {

  /** The stored value of {@code key} in {@code object}, or {@code null}. */
  byte[] get(String object, String key);

  /** Entries of {@code object} in {@code range}, in the range's order, at most its limit. */
  List<Map.Entry<String, byte[]>> list(String object, KeyRange range);

  /** The stored alarm of {@code object}. */
  Optional<Instant> getAlarm(String object);

  /** Every stored alarm, by object. Read once at start so that alarms survive a restart. */
  Map<String, Instant> alarms();

  /**
   * Applies all {@code batches} in one atomic transaction and makes it durable (fsync) before
   * returning: after a crash either every batch is visible or none. Throws if nothing was
   * committed.
   */
  void commit(List<Batch> batches);

  /**
   * Called once by the runtime that drives this engine, before any other call, with a callback that
   * resets every live instance of that runtime ({@code Runtime.resetAll}). An engine calls it (from
   * any thread, as often as needed) when it loses the right to serve, e.g. a replicated engine on a
   * leadership change. The callback returns how many live instances it reset (for the engine's
   * metrics). The default ignores it: a local engine is never deposed.
   */
  default void fenceWith(ToIntFunction<String> resetAll) {}

  /**
   * Completes normally once every read this engine served before this call, and every value derived
   * from them, is known to be current; exceptionally if that cannot be shown (the runtime then
   * fails the reply with {@code ObjectResetException} and resets its instances). Called
   * concurrently from any thread, after an event's reads and before its reply leaves. The default,
   * for an engine that is the only copy, is an already completed future.
   */
  default CompletionStage<Void> confirmReads() {
    return CONFIRMED;
  }

  /**
   * Whether a successful {@link #commit} proves by itself what {@link #confirmReads} would: that no
   * other writer committed anything between the reads this engine served before the batches were
   * written and the commit. True of a Raft leader's log: a deposed leader cannot commit, and a
   * later leader's entries follow every entry of an earlier one that commits. The runtime then
   * skips {@link #confirmReads} for an event that wrote: its reply already waits for that write's
   * commit, which was issued after the event's reads. The default is {@code false}: every event's
   * reads are confirmed.
   */
  default boolean commitConfirmsReads() {
    return false;
  }

  /**
   * Whether a reply may leave before the writes its event made with {@code allowUnconfirmed} are
   * committed. True of the only copy (the default): a crash loses at most the last unflushed
   * writes, whose replies may have left. False of a replicated engine: a reply that left before its
   * write committed hands out a state that a new leader does not have (a counter's number issued
   * again after a failover, found by the partition suite), so the runtime holds every reply for its
   * event's writes, whatever the option.
   */
  default boolean allowsUnconfirmedOutputs() {
    return true;
  }

  /**
   * The answer of {@link #confirmReads} of an engine that needs no check: already completed (and
   * immutable); the runtime then releases replies without any extra step.
   */
  CompletionStage<Void> CONFIRMED = CompletableFuture.completedStage(null);

  @Override
  void close();

  /**
   * The writes of one object between two flushes. Applied in this order: {@code deleteAll} (every
   * key of the object), then {@code writes} (a {@code null} value deletes the key), then the alarm
   * change ({@code null}: unchanged).
   */
  record Batch(String object, boolean deleteAll, Map<String, byte[]> writes, AlarmChange alarm) {
    public int size() {
      return writes.size() + (deleteAll ? 1 : 0) + (alarm != null ? 1 : 0);
    }
  }

  /** A new alarm time, or {@code at == null} to delete the alarm. */
  record AlarmChange(Instant at) {}
}
