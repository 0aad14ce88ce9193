package io.anteroom.objects.storage;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where objects' data lives: point reads, ordered scans, and an atomic, durable commit of the
 * batches of many objects at once. The runtime drives every engine from exactly one group-commit
 * writer thread ({@link #commit} is never called concurrently with itself); reads may come from any
 * thread concurrently with a commit.
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
