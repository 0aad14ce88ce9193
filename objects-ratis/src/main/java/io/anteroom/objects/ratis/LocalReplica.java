package io.anteroom.objects.ratis;

import io.anteroom.objects.storage.StorageEngine;
import io.anteroom.objects.storage.StorageEngine.Batch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One peer's own copy of one shard's data, and the Raft log index that copy reflects.
 *
 * <p>Invariants: {@link #apply} writes the batches of one log entry and that entry's index in one
 * transaction of the local engine, so after a crash the copy and its index agree: an entry is never
 * applied twice nor skipped on replay. Only the shard's state machine thread calls {@link #apply},
 * {@link #snapshotTo} and {@link #restoreFrom}; {@link #engine()} may be read from any thread, and
 * changes only on a restore.
 */
interface LocalReplica extends AutoCloseable {
  /**
   * The object under which the applied index is stored, next to the objects' data. Its name cannot
   * be a runtime object's ({@code namespace/id}, namespaces are {@code [A-Za-z0-9._-]}).
   */
  String META_OBJECT = "#raft";

  String APPLIED_KEY = "applied";

  /** The local engine holding the data; reads go here. */
  StorageEngine engine();

  /** The index of the last log entry applied to this copy, {@code 0} if none. */
  default long appliedIndex() {
    byte[] v = engine().get(META_OBJECT, APPLIED_KEY);
    return v == null ? 0 : ByteBuffer.wrap(v).getLong(Long.BYTES);
  }

  /**
   * Applies the batches of the entry at {@code term}/{@code index} and records that index,
   * atomically.
   */
  default void apply(List<Batch> batches, long term, long index) {
    List<Batch> withIndex = new ArrayList<>(batches.size() + 1);
    withIndex.addAll(batches);
    byte[] termIndex = ByteBuffer.allocate(2 * Long.BYTES).putLong(term).putLong(index).array();
    withIndex.add(new Batch(META_OBJECT, false, Map.of(APPLIED_KEY, termIndex), null));
    engine().commit(withIndex);
  }

  /**
   * Writes a consistent copy of everything applied so far to {@code file} (which must not exist),
   * fsynced.
   */
  void snapshotTo(Path file) throws IOException;

  /** Replaces this copy by the one in {@code file} (written by {@link #snapshotTo} on any peer). */
  void restoreFrom(Path file) throws IOException;

  @Override
  void close();
}
