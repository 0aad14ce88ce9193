package io.anteroom.objects;

import io.anteroom.objects.storage.KeyRange;
import io.anteroom.objects.storage.StorageEngine;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The storage of one live object: the {@link Storage} API over its {@link ObjectCache}, its write
 * batches (coalescing and flushes) and its {@link OutputGate}.
 *
 * <p>Invariants (all state, including the cache's and the output gate's, guarded by {@code lock};
 * never call into the host's input gate while holding it):
 *
 * <ul>
 *   <li>Every write gets the next sequence number, updates the cache at once (dirty entry) and
 *       joins the {@code open} batch. At a yield of the current event {@code open} is sealed into
 *       {@code ready}; so a batch never splits an event's writes (except under backpressure or
 *       {@code sync()}, which seal explicitly).
 *   <li>At most one flush is in flight; it carries {@code ready}. When it is durable, the output
 *       gate's durable point advances to its last write, its entries become clean, and the next
 *       ready batch (if any) starts at once: flushes pipeline with events.
 *   <li>A key missing from the cache has no unflushed write, and the engine's value is current,
 *       except while a {@code deleteAll} is not yet durable (then a miss means absent).
 *   <li>A read that went to the engine fills the cache only if the cache did not change shape
 *       meanwhile (its epoch); while an {@code allowConcurrency} read is in flight no new flush
 *       starts, so the engine shows exactly the durable writes issued before the read.
 *   <li>On failure ({@link #breakAll}, or a failed flush) the output gate breaks: nothing held is
 *       ever released, and no later batch is ever flushed.
 * </ul>
 */
final class ObjectStorage implements Storage {
  private final ObjectHost host;
  private final Runtime runtime;
  private final String object;
  private final Codec codec;
  private final Object lock = new Object();

  final ObjectCache cache;
  private final OutputGate output;

  private long writeSeq;
  private long deleteAllSeq;
  private Pending open = new Pending();
  private Pending ready;
  private boolean flushing;
  private long unflushedBytes;
  private CompletableFuture<Void> flushDone = CompletableFuture.completedFuture(null);
  private int concurrentReads;
  private boolean dropped;

  private boolean alarmLoaded;
  private Instant alarm;
  private long alarmVersion;
  private Instant alarmBeforeHandler;

  private final ArrayDeque<TxnFrame> txns = new ArrayDeque<>();

  ObjectStorage(ObjectHost host) {
    this.host = host;
    this.runtime = host.runtime;
    this.object = host.objectKey;
    this.codec = runtime.codec;
    this.cache = new ObjectCache(lock, runtime.cacheBudget);
    this.output = new OutputGate(lock, object);
  }

  /** Writes not yet handed to the writer. {@code writes} values: null deletes. */
  static final class Pending {
    boolean deleteAll;
    LinkedHashMap<String, byte[]> writes = new LinkedHashMap<>();
    StorageEngine.AlarmChange alarm;
    long maxSeq;
    long bytes;

    boolean isEmpty() {
      return !deleteAll && writes.isEmpty() && alarm == null;
    }

    void absorb(Pending later) {
      if (later.deleteAll) {
        deleteAll = true;
        writes = later.writes;
      } else {
        writes.putAll(later.writes);
      }
      if (later.alarm != null) alarm = later.alarm;
      maxSeq = later.maxSeq;
      bytes += later.bytes;
    }

    Pending copy() {
      Pending p = new Pending();
      p.deleteAll = deleteAll;
      p.writes = new LinkedHashMap<>(writes);
      p.alarm = alarm;
      p.maxSeq = maxSeq;
      p.bytes = bytes;
      return p;
    }
  }

  private static final class TxnFrame {
    final Pending open;
    final long confirmSeq;
    final long deleteAllSeq;
    final long unflushedBytes;
    final Instant alarm;
    final boolean alarmLoaded;
    final long alarmVersion;
    final Map<String, ObjectCache.Entry> undo = new HashMap<>(); // value null: key was not cached
    TreeMap<String, ObjectCache.Entry> cacheSnapshot;

    TxnFrame(ObjectStorage s) {
      open = s.open.copy();
      confirmSeq = s.output.confirmationPoint();
      deleteAllSeq = s.deleteAllSeq;
      unflushedBytes = s.unflushedBytes;
      alarm = s.alarm;
      alarmLoaded = s.alarmLoaded;
      alarmVersion = s.alarmVersion;
    }
  }

  // ---------------------------------------------------------------- limits

  private static void checkKey(String key) {
    if (key == null) throw new IllegalArgumentException("storage key must not be null");
    int bytes = utf8Length(key);
    if (bytes > MAX_KEY_BYTES) {
      throw new IllegalArgumentException(
          "storage key is "
              + bytes
              + " bytes of UTF-8 (starts \""
              + key.substring(0, Math.min(40, key.length()))
              + "...\"); keys are limited to "
              + MAX_KEY_BYTES
              + " bytes");
    }
  }

  private static void checkKeyCount(int n, String call) {
    if (n > MAX_KEYS_PER_CALL) {
      throw new IllegalArgumentException(
          call
              + " got "
              + n
              + " keys; at most "
              + MAX_KEYS_PER_CALL
              + " keys are allowed per call (split it into several calls)");
    }
  }

  private byte[] encode(String key, Object value) {
    if (value == null) {
      throw new IllegalArgumentException(
          "cannot put a null value at key \"" + key + "\"; use delete(key) to remove it");
    }
    byte[] bytes = codec.encodeValue(value);
    if (bytes.length > runtime.maxValueBytes) {
      throw new IllegalArgumentException(
          "value for key \""
              + key
              + "\" is "
              + bytes.length
              + " bytes encoded; values are limited to "
              + runtime.maxValueBytes
              + " bytes");
    }
    return bytes;
  }

  private static int utf8Length(String s) {
    if (s.length() * 3 <= MAX_KEY_BYTES)
      return s.length(); // cannot exceed the limit: skip counting
    return s.getBytes(StandardCharsets.UTF_8).length;
  }

  private void checkUsable() {
    host.checkHolder("storage");
    Throwable broken = output.failure();
    if (broken != null) {
      throw new ObjectResetException(
          "object " + object + " was reset: " + broken.getMessage(), broken);
    }
  }

  // ---------------------------------------------------------------- reads

  @Override
  public <T> Optional<T> get(String key, Class<T> type, StorageOptions options) {
    checkKey(key);
    byte[] bytes = read(key, options);
    return bytes == null ? Optional.empty() : Optional.ofNullable(codec.decodeValue(bytes, type));
  }

  @Override
  public <T> Map<String, T> get(Collection<String> keys, Class<T> type, StorageOptions options) {
    checkKeyCount(keys.size(), "get(keys)");
    keys.forEach(ObjectStorage::checkKey);
    TreeMap<String, T> out = new TreeMap<>(KeyRange.ORDER);
    for (String key : keys) {
      byte[] bytes = read(key, options);
      if (bytes != null) out.put(key, codec.decodeValue(bytes, type));
    }
    return Collections.unmodifiableMap(new LinkedHashMap<>(out));
  }

  /** The current bytes of {@code key}: from the cache, or the engine (keeping program order). */
  private byte[] read(String key, StorageOptions options) {
    long epoch;
    synchronized (lock) {
      checkUsable();
      ObjectCache.Entry e = cache.read(key, options.noCache());
      if (e != null) {
        runtime.metrics.cacheHits.mark();
        return e.value;
      }
      if (!output.isDurable(deleteAllSeq)) {
        runtime.metrics.cacheHits.mark();
        return null;
      }
      runtime.metrics.cacheMisses.mark();
      epoch = cache.epoch();
    }
    byte[] loaded = loadOutsideLock(options, () -> runtime.engine.get(object, key));
    if (!options.noCache()) {
      long added = 0;
      synchronized (lock) {
        if (output.failure() == null && output.isDurable(deleteAllSeq)) {
          added = cache.fill(key, loaded, epoch);
        }
      }
      if (added > 0) runtime.cacheBudget.charge(added);
    }
    return loaded;
  }

  /**
   * Runs an engine read. Without {@code allowConcurrency} the gate stays closed (this thread holds
   * it). With it, the event yields for the duration and no new flush starts meanwhile.
   */
  private <R> R loadOutsideLock(StorageOptions options, java.util.function.Supplier<R> load) {
    if (!options.allowConcurrency() || host.blockDepth > 0) {
      return load.get();
    }
    onYield();
    synchronized (lock) {
      concurrentReads++;
    }
    host.exitGateSealed();
    try {
      return load.get();
    } finally {
      synchronized (lock) {
        concurrentReads--;
        maybeStartFlush();
      }
      host.enterGate();
    }
  }

  @Override
  public <T> Map<String, T> list(
      ListOptions options, Class<T> type, StorageOptions storageOptions) {
    if (options == null)
      throw new IllegalArgumentException("list options must not be null; use ListOptions.ALL");
    for (String k :
        new String[] {options.start(), options.startAfter(), options.end(), options.prefix()}) {
      if (k != null) checkKey(k);
    }
    KeyRange range = options.toRange();
    if (range.isEmpty()) {
      synchronized (lock) {
        checkUsable();
      }
      return Map.of();
    }
    TreeMap<String, byte[]> overlay = new TreeMap<>(KeyRange.ORDER);
    boolean engineHidden;
    long epoch;
    synchronized (lock) {
      checkUsable();
      cache.dirtyIn(range, overlay);
      engineHidden = !output.isDurable(deleteAllSeq);
      epoch = cache.epoch();
    }
    List<Map.Entry<String, byte[]>> rows = List.of();
    if (!engineHidden) {
      long deletions = overlay.values().stream().filter(v -> v == null).count();
      KeyRange engineRange =
          range.limit() == 0
              ? range
              : range.withLimit((int) Math.min(Integer.MAX_VALUE, range.limit() + deletions));
      rows = loadOutsideLock(storageOptions, () -> runtime.engine.list(object, engineRange));
    }
    TreeMap<String, byte[]> merged = new TreeMap<>(KeyRange.ORDER);
    for (Map.Entry<String, byte[]> r : rows) merged.put(r.getKey(), r.getValue());
    overlay.forEach(
        (k, v) -> {
          if (v == null) merged.remove(k);
          else merged.put(k, v);
        });
    Map<String, T> out = new LinkedHashMap<>();
    for (Map.Entry<String, byte[]> e :
        (range.reverse() ? merged.descendingMap() : merged).entrySet()) {
      if (range.limit() > 0 && out.size() >= range.limit()) break;
      out.put(e.getKey(), codec.decodeValue(e.getValue(), type));
    }
    if (!storageOptions.noCache() && !rows.isEmpty()) populate(rows, epoch);
    return Collections.unmodifiableMap(out);
  }

  private void populate(List<Map.Entry<String, byte[]>> rows, long epoch) {
    long added = 0;
    synchronized (lock) {
      if (output.failure() != null || !output.isDurable(deleteAllSeq)) return;
      added = cache.fill(rows, epoch);
    }
    if (added > 0) runtime.cacheBudget.charge(added);
  }

  // ---------------------------------------------------------------- writes

  @Override
  public void put(String key, Object value, StorageOptions options) {
    checkKey(key);
    byte[] bytes = encode(key, value);
    write(Collections.singletonMap(key, bytes), options);
  }

  @Override
  public void put(Map<String, ?> entries, StorageOptions options) {
    checkKeyCount(entries.size(), "put(entries)");
    LinkedHashMap<String, byte[]> encoded = new LinkedHashMap<>();
    for (Map.Entry<String, ?> e : entries.entrySet()) {
      checkKey(e.getKey());
      encoded.put(e.getKey(), encode(e.getKey(), e.getValue()));
    }
    write(encoded, options);
  }

  @Override
  public boolean delete(String key, StorageOptions options) {
    checkKey(key);
    boolean existed = read(key, options) != null;
    write(Collections.singletonMap(key, null), options);
    return existed;
  }

  @Override
  public int delete(Collection<String> keys, StorageOptions options) {
    checkKeyCount(keys.size(), "delete(keys)");
    keys.forEach(ObjectStorage::checkKey);
    int existed = 0;
    LinkedHashMap<String, byte[]> tombstones = new LinkedHashMap<>();
    for (String key : keys) {
      if (!tombstones.containsKey(key) && read(key, options) != null) existed++;
      tombstones.put(key, null);
    }
    write(tombstones, options);
    return existed;
  }

  /** Applies writes (null value: delete) to the cache and the open batch, in order. */
  private void write(Map<String, byte[]> writes, StorageOptions options) {
    long delta = 0;
    boolean overLimit;
    synchronized (lock) {
      checkUsable();
      for (Map.Entry<String, byte[]> w : writes.entrySet()) {
        String key = w.getKey();
        byte[] value = w.getValue();
        long seq = ++writeSeq;
        recordUndo(key);
        delta += cache.write(key, value, seq, options.noCache());
        open.writes.put(key, value);
        open.maxSeq = seq;
        long bytes = ObjectCache.size(key, value);
        open.bytes += bytes;
        unflushedBytes += bytes;
      }
      if (holdsOutputs(options)) output.holdOutputsUntil(writeSeq);
      overLimit = unflushedBytes > runtime.maxUnflushedBytes && txns.isEmpty();
    }
    if (delta != 0) runtime.cacheBudget.charge(delta);
    if (overLimit) awaitBackpressure();
  }

  /**
   * Whether a write made with {@code options} holds the event's outputs until it is durable: always
   * on an engine that does not allow unconfirmed outputs (a replicated one).
   */
  private boolean holdsOutputs(StorageOptions options) {
    return !options.allowUnconfirmed() || !runtime.allowsUnconfirmedOutputs;
  }

  /** Too much unflushed data: seal what we have and wait (gate closed) until it drains. */
  private void awaitBackpressure() {
    while (true) {
      CompletableFuture<Object> wait;
      synchronized (lock) {
        checkUsable();
        if (unflushedBytes <= runtime.maxUnflushedBytes) return;
        sealOpen();
        maybeStartFlush();
        wait = output.whenDurable(ready != null ? ready.maxSeq : writeSeq);
      }
      wait.join();
    }
  }

  @Override
  public void deleteAll(StorageOptions options) {
    long released;
    synchronized (lock) {
      checkUsable();
      recordUndoAll();
      long seq = ++writeSeq;
      deleteAllSeq = seq;
      released = cache.clear();
      open.deleteAll = true;
      open.writes = new LinkedHashMap<>();
      open.maxSeq = seq;
      if (holdsOutputs(options)) output.holdOutputsUntil(seq);
    }
    runtime.cacheBudget.charge(-released);
  }

  // ---------------------------------------------------------------- alarms

  @Override
  public Optional<Instant> getAlarm() {
    host.checkHolder("storage");
    loadAlarm();
    synchronized (lock) {
      checkUsable();
      return Optional.ofNullable(alarm);
    }
  }

  @Override
  public void setAlarm(Instant at) {
    if (at == null)
      throw new IllegalArgumentException(
          "alarm time must not be null; use deleteAlarm() to remove it");
    changeAlarm(at);
  }

  @Override
  public void deleteAlarm() {
    changeAlarm(null);
  }

  private void changeAlarm(Instant at) {
    synchronized (lock) {
      checkUsable();
      long seq = ++writeSeq;
      alarm = at;
      alarmLoaded = true;
      alarmVersion++;
      open.alarm = new StorageEngine.AlarmChange(at);
      open.maxSeq = seq;
      output.holdOutputsUntil(seq);
    }
  }

  private void loadAlarm() {
    synchronized (lock) {
      if (alarmLoaded) return;
    }
    Optional<Instant> stored = runtime.engine.getAlarm(object);
    synchronized (lock) {
      if (!alarmLoaded) {
        alarm = stored.orElse(null);
        alarmLoaded = true;
      }
    }
  }

  /** Whether the stored alarm is still the one scheduled for {@code at}. */
  boolean alarmDue(Instant at) {
    loadAlarm();
    synchronized (lock) {
      return at.equals(alarm);
    }
  }

  /** Enters the alarm handler: getAlarm() is empty until it sets a new one. */
  long beginAlarm() {
    synchronized (lock) {
      alarmBeforeHandler = alarm;
      alarm = null; // as the handler sees it; deleted for good at the end unless replaced
      return alarmVersion;
    }
  }

  /**
   * Leaves the alarm handler. Unless the handler changed the alarm itself, the stored alarm is kept
   * ({@code keepStored}, a retry follows) or deleted.
   */
  void endAlarm(long versionAtStart, boolean keepStored) {
    synchronized (lock) {
      if (alarmVersion != versionAtStart) return;
      if (keepStored) {
        alarm = alarmBeforeHandler;
        return;
      }
    }
    deleteAlarm();
  }

  // ---------------------------------------------------------------- transactions, sync

  @Override
  public <R> R transaction(Function<Storage, R> fn) {
    TxnFrame frame;
    synchronized (lock) {
      checkUsable();
      frame = new TxnFrame(this);
      txns.push(frame);
    }
    host.blockDepth++;
    try {
      R result = fn.apply(this);
      synchronized (lock) {
        txns.remove(frame);
      }
      return result;
    } catch (RuntimeException | Error failure) {
      rollback(frame);
      throw failure;
    } finally {
      host.blockDepth--;
    }
  }

  boolean inTransaction() {
    synchronized (lock) {
      return !txns.isEmpty();
    }
  }

  private void recordUndo(String key) {
    for (TxnFrame f : txns) {
      if (f.cacheSnapshot == null && !f.undo.containsKey(key)) {
        f.undo.put(key, cache.copyOf(key));
      }
    }
  }

  private void recordUndoAll() {
    for (TxnFrame f : txns) {
      if (f.cacheSnapshot == null) {
        TreeMap<String, ObjectCache.Entry> snap = cache.snapshot();
        f.undo.forEach(
            (k, e) -> {
              if (e == null) snap.remove(k);
              else snap.put(k, e.copy());
            });
        f.cacheSnapshot = snap;
      }
    }
  }

  private void rollback(TxnFrame frame) {
    long delta;
    synchronized (lock) {
      txns.remove(frame);
      delta = cache.rollback(frame.cacheSnapshot, frame.undo, output.durableSeq());
      open = frame.open;
      output.holdOutputsUntil(frame.confirmSeq);
      deleteAllSeq = frame.deleteAllSeq;
      unflushedBytes = frame.unflushedBytes;
      alarm = frame.alarm;
      alarmLoaded = frame.alarmLoaded;
      alarmVersion = frame.alarmVersion;
    }
    runtime.cacheBudget.charge(delta);
  }

  @Override
  public void sync() {
    CompletableFuture<Object> wait;
    synchronized (lock) {
      checkUsable();
      if (!txns.isEmpty())
        throw new IllegalStateException("sync() is not allowed inside storage.transaction(...)");
      sealOpen();
      maybeStartFlush();
      if (output.isDurable(writeSeq)) return;
      wait = output.whenDurable(writeSeq);
    }
    wait.join();
  }

  /** A future completing when every write issued before now that holds outputs is durable. */
  CompletableFuture<Object> whenConfirmed() {
    return output.whenConfirmed();
  }

  // ---------------------------------------------------------------- output gate and flushes

  long confirmationPoint() {
    return output.confirmationPoint();
  }

  /** The current event yields: its writes become a batch, flushed now if none is in flight. */
  void onYield() {
    synchronized (lock) {
      if (!txns.isEmpty() || output.failure() != null) return;
      sealOpen();
      maybeStartFlush();
    }
  }

  private void sealOpen() {
    if (open.isEmpty()) return;
    if (ready == null) ready = open;
    else ready.absorb(open);
    open = new Pending();
  }

  private void maybeStartFlush() {
    if (flushing || ready == null || concurrentReads > 0 || output.failure() != null) return;
    Pending batch = ready;
    ready = null;
    flushing = true;
    flushDone = new CompletableFuture<>();
    long started = System.nanoTime();
    StorageEngine.Batch b =
        new StorageEngine.Batch(object, batch.deleteAll, batch.writes, batch.alarm);
    runtime.committer.submit(
        b,
        failure -> {
          runtime.metrics.flushLatency.update(System.nanoTime() - started, TimeUnit.NANOSECONDS);
          runtime.metrics.batchSize.update(b.size());
          onFlushed(batch, failure);
        });
  }

  private void onFlushed(Pending batch, Throwable failure) {
    List<OutputGate.Held> release = List.of();
    CompletableFuture<Void> done;
    long released = 0;
    synchronized (lock) {
      flushing = false;
      done = flushDone;
      if (failure != null) {
        // from now on nothing more may reach storage: a later batch must never commit
        // without this one. breakAll (via host.reset below) fails what is held.
        output.breakWith(failure);
      }
      if (output.failure() == null) {
        release = output.durable(batch.maxSeq);
        unflushedBytes -= batch.bytes;
        released = cache.markClean(batch.writes.keySet(), batch.maxSeq);
        maybeStartFlush();
      }
    }
    if (released > 0) runtime.cacheBudget.charge(-released);
    if (failure == null && batch.alarm != null) {
      runtime.alarms.committed(host, batch.alarm.at());
    }
    OutputGate.complete(release);
    done.complete(null);
    if (failure != null) {
      host.reset(failure);
    } else {
      host.flushed();
    }
  }

  /** Releases a reply once every write before {@code seq} is durable. */
  void release(long seq, CompletableFuture<Object> reply, Object result, Throwable error) {
    output.release(seq, reply, result, error);
  }

  /** Fails everything held and drops the cache; returns when the in-flight flush (if any) ends. */
  CompletableFuture<Void> breakAll(Throwable cause) {
    List<OutputGate.Held> failed;
    long released;
    CompletableFuture<Void> done;
    synchronized (lock) {
      if (dropped) return flushDone;
      dropped = true;
      output.breakWith(cause);
      failed = output.takeHeld();
      open = new Pending();
      ready = null;
      released = cache.clear();
      done = flushing ? flushDone : CompletableFuture.completedFuture(null);
    }
    runtime.cacheBudget.charge(-released);
    output.fail(failed, cause);
    return done;
  }

  boolean isQuiescent() {
    synchronized (lock) {
      return !flushing
          && ready == null
          && open.isEmpty()
          && !output.holdsOutputs()
          && txns.isEmpty();
    }
  }

  void dropCache() {
    long released;
    released = cache.clear();
    runtime.cacheBudget.charge(-released);
  }
}
