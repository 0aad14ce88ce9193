package io.anteroom.objects;

import io.anteroom.objects.storage.KeyRange;
import io.anteroom.objects.storage.StorageEngine;
import io.anteroom.objects.storage.internal.GroupCommitter;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The storage of one live object: cache, coalescing, flushes and the output gate.
 *
 * <p>Invariants (all state guarded by {@code lock}; never call into the host's gate while holding
 * it):
 * <ul>
 *   <li>Every write gets the next sequence number, updates the cache at once (dirty entry) and
 *       joins the {@code open} batch. At a yield of the current event {@code open} is sealed
 *       into {@code ready}; so a batch never splits an event's writes (except under
 *       backpressure or {@code sync()}, which seal explicitly).</li>
 *   <li>At most one flush is in flight; it carries {@code ready}. When it is durable,
 *       {@code durableSeq} advances to its last write, its entries become clean, and the next
 *       ready batch (if any) starts at once: flushes pipeline with events.</li>
 *   <li>Output gate: a reply captured when {@code confirmSeq} was {@code s} is released when
 *       {@code durableSeq >= s}; {@code confirmSeq} is the last write not made with
 *       {@code allowUnconfirmed}.</li>
 *   <li>Dirty entries are never evicted, so a key missing from the cache has no unflushed write,
 *       and the engine's value is current, except while a {@code deleteAll} is not yet durable
 *       (then a miss means absent).</li>
 *   <li>A read that went to the engine fills the cache only if the cache did not change shape
 *       meanwhile ({@code cacheEpoch}); while an {@code allowConcurrency} read is in flight no new
 *       flush starts, so the engine shows exactly the durable writes issued before the read.</li>
 *   <li>On failure ({@link #breakAll}) nothing held is ever released; it all fails.</li>
 * </ul>
 */
final class ObjectStorage implements Storage {
    private static final long ENTRY_OVERHEAD = 64;

    private final ObjectHost host;
    private final Runtime runtime;
    private final String object;
    private final Codec codec;
    private final Object lock = new Object();

    private final TreeMap<String, Entry> cache = new TreeMap<>(KeyRange.ORDER);
    private long cachedBytes;
    private long cacheEpoch;

    private long writeSeq;
    private long confirmSeq;
    private long durableSeq;
    private long deleteAllSeq;
    private Pending open = new Pending();
    private Pending ready;
    private boolean flushing;
    private long unflushedBytes;
    private CompletableFuture<Void> flushDone = CompletableFuture.completedFuture(null);
    private final PriorityQueue<Held> held = new PriorityQueue<>();
    private int concurrentReads;
    private Throwable broken;
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
    }

    static final class Entry {
        byte[] value; // null: known absent
        long dirtySeq; // 0: clean (equal to the engine)
        boolean noCache;
        long lastAccess;

        Entry copy() {
            Entry e = new Entry();
            e.value = value;
            e.dirtySeq = dirtySeq;
            e.noCache = noCache;
            e.lastAccess = lastAccess;
            return e;
        }
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

    private record Held(long seq, CompletableFuture<Object> future, Object result, Throwable error) implements Comparable<Held> {
        @Override
        public int compareTo(Held o) {
            return Long.compare(seq, o.seq);
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
        final Map<String, Entry> undo = new HashMap<>(); // value null: key was not cached
        TreeMap<String, Entry> cacheSnapshot;

        TxnFrame(ObjectStorage s) {
            open = s.open.copy();
            confirmSeq = s.confirmSeq;
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
            throw new IllegalArgumentException("storage key is " + bytes + " bytes of UTF-8 (starts \""
                    + key.substring(0, Math.min(40, key.length())) + "...\"); keys are limited to " + MAX_KEY_BYTES + " bytes");
        }
    }

    private static void checkKeyCount(int n, String call) {
        if (n > MAX_KEYS_PER_CALL) {
            throw new IllegalArgumentException(call + " got " + n + " keys; at most " + MAX_KEYS_PER_CALL
                    + " keys are allowed per call (split it into several calls)");
        }
    }

    private byte[] encode(String key, Object value) {
        if (value == null) {
            throw new IllegalArgumentException("cannot put a null value at key \"" + key + "\"; use delete(key) to remove it");
        }
        byte[] bytes = codec.encodeValue(value);
        if (bytes.length > runtime.maxValueBytes) {
            throw new IllegalArgumentException("value for key \"" + key + "\" is " + bytes.length
                    + " bytes encoded; values are limited to " + runtime.maxValueBytes + " bytes");
        }
        return bytes;
    }

    private static int utf8Length(String s) {
        if (s.length() * 3 <= MAX_KEY_BYTES) return s.length(); // cannot exceed the limit: skip counting
        return s.getBytes(StandardCharsets.UTF_8).length;
    }

    private void checkUsable() {
        host.checkHolder("storage");
        if (broken != null) {
            throw new ObjectResetException("object " + object + " was reset: " + broken.getMessage(), broken);
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
            Entry e = cache.get(key);
            if (e != null) {
                runtime.metrics.cacheHits.mark();
                e.lastAccess = runtime.cacheBudget.tick();
                byte[] v = e.value;
                if (options.noCache() && e.dirtySeq == 0) {
                    long freed = removeEntry(key, e);
                    runtime.cacheBudget.charge(-freed);
                }
                return v;
            }
            if (deleteAllSeq > durableSeq) {
                runtime.metrics.cacheHits.mark();
                return null;
            }
            runtime.metrics.cacheMisses.mark();
            epoch = cacheEpoch;
        }
        byte[] loaded = loadOutsideLock(options, () -> runtime.engine.get(object, key));
        if (!options.noCache()) {
            long added = 0;
            synchronized (lock) {
                if (broken == null && cacheEpoch == epoch && !cache.containsKey(key) && deleteAllSeq <= durableSeq) {
                    Entry e = new Entry();
                    e.value = loaded;
                    e.lastAccess = runtime.cacheBudget.tick();
                    cache.put(key, e);
                    added = size(key, loaded);
                    cachedBytes += added;
                }
            }
            if (added > 0) runtime.cacheBudget.charge(added);
        }
        return loaded;
    }

    /**
     * Runs an engine read. Without {@code allowConcurrency} the gate stays closed (this thread
     * holds it). With it, the event yields for the duration and no new flush starts meanwhile.
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
    public <T> Map<String, T> list(ListOptions options, Class<T> type, StorageOptions storageOptions) {
        if (options == null) throw new IllegalArgumentException("list options must not be null; use ListOptions.ALL");
        for (String k : new String[] {options.start(), options.startAfter(), options.end(), options.prefix()}) {
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
            java.util.NavigableMap<String, Entry> view = cache;
            if (range.start() != null) view = view.tailMap(range.start(), range.startInclusive());
            if (range.end() != null) view = view.headMap(range.end(), false);
            for (Map.Entry<String, Entry> e : view.entrySet()) {
                if (e.getValue().dirtySeq != 0) overlay.put(e.getKey(), e.getValue().value);
            }
            engineHidden = deleteAllSeq > durableSeq;
            epoch = cacheEpoch;
        }
        List<Map.Entry<String, byte[]>> rows = List.of();
        if (!engineHidden) {
            long deletions = overlay.values().stream().filter(v -> v == null).count();
            KeyRange engineRange = range.limit() == 0 ? range : range.withLimit((int) Math.min(Integer.MAX_VALUE, range.limit() + deletions));
            rows = loadOutsideLock(storageOptions, () -> runtime.engine.list(object, engineRange));
        }
        TreeMap<String, byte[]> merged = new TreeMap<>(KeyRange.ORDER);
        for (Map.Entry<String, byte[]> r : rows) merged.put(r.getKey(), r.getValue());
        overlay.forEach((k, v) -> {
            if (v == null) merged.remove(k);
            else merged.put(k, v);
        });
        Map<String, T> out = new LinkedHashMap<>();
        for (Map.Entry<String, byte[]> e : (range.reverse() ? merged.descendingMap() : merged).entrySet()) {
            if (range.limit() > 0 && out.size() >= range.limit()) break;
            out.put(e.getKey(), codec.decodeValue(e.getValue(), type));
        }
        if (!storageOptions.noCache() && !rows.isEmpty()) populate(rows, epoch);
        return Collections.unmodifiableMap(out);
    }

    private void populate(List<Map.Entry<String, byte[]>> rows, long epoch) {
        long added = 0;
        synchronized (lock) {
            if (broken != null || cacheEpoch != epoch || deleteAllSeq > durableSeq) return;
            for (Map.Entry<String, byte[]> r : rows) {
                if (!cache.containsKey(r.getKey())) {
                    Entry e = new Entry();
                    e.value = r.getValue();
                    e.lastAccess = runtime.cacheBudget.tick();
                    cache.put(r.getKey(), e);
                    long s = size(r.getKey(), r.getValue());
                    cachedBytes += s;
                    added += s;
                }
            }
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
                Entry e = cache.get(key);
                if (e == null) {
                    e = new Entry();
                    cache.put(key, e);
                    delta += size(key, value);
                } else {
                    delta += size(key, value) - size(key, e.value);
                }
                e.value = value;
                e.dirtySeq = seq;
                e.noCache = options.noCache();
                e.lastAccess = runtime.cacheBudget.tick();
                open.writes.put(key, value);
                open.maxSeq = seq;
                long bytes = size(key, value);
                open.bytes += bytes;
                unflushedBytes += bytes;
            }
            if (!options.allowUnconfirmed()) confirmSeq = writeSeq;
            cachedBytes += delta;
            overLimit = unflushedBytes > runtime.maxUnflushedBytes && txns.isEmpty();
        }
        if (delta != 0) runtime.cacheBudget.charge(delta);
        if (overLimit) awaitBackpressure();
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
                wait = new CompletableFuture<>();
                held.add(new Held(ready != null ? ready.maxSeq : writeSeq, wait, null, null));
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
            released = cachedBytes;
            cache.clear();
            cachedBytes = 0;
            cacheEpoch++;
            open.deleteAll = true;
            open.writes = new LinkedHashMap<>();
            open.maxSeq = seq;
            if (!options.allowUnconfirmed()) confirmSeq = seq;
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
        if (at == null) throw new IllegalArgumentException("alarm time must not be null; use deleteAlarm() to remove it");
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
            confirmSeq = seq;
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
     * Leaves the alarm handler. Unless the handler changed the alarm itself, the stored alarm is
     * kept ({@code keepStored}, a retry follows) or deleted.
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
                Entry e = cache.get(key);
                f.undo.put(key, e == null ? null : e.copy());
            }
        }
    }

    private void recordUndoAll() {
        for (TxnFrame f : txns) {
            if (f.cacheSnapshot == null) {
                TreeMap<String, Entry> snap = new TreeMap<>(KeyRange.ORDER);
                cache.forEach((k, e) -> snap.put(k, e.copy()));
                f.undo.forEach((k, e) -> {
                    if (e == null) snap.remove(k);
                    else snap.put(k, e.copy());
                });
                f.cacheSnapshot = snap;
            }
        }
    }

    private void rollback(TxnFrame frame) {
        long before;
        long after;
        synchronized (lock) {
            txns.remove(frame);
            before = cachedBytes;
            if (frame.cacheSnapshot != null) {
                cache.clear();
                cache.putAll(frame.cacheSnapshot);
            } else {
                frame.undo.forEach((k, e) -> {
                    if (e == null) cache.remove(k);
                    else cache.put(k, e);
                });
            }
            for (Entry e : cache.values()) {
                if (e.dirtySeq != 0 && e.dirtySeq <= durableSeq) e.dirtySeq = 0;
            }
            cacheEpoch++;
            open = frame.open;
            confirmSeq = frame.confirmSeq;
            deleteAllSeq = frame.deleteAllSeq;
            unflushedBytes = frame.unflushedBytes;
            alarm = frame.alarm;
            alarmLoaded = frame.alarmLoaded;
            alarmVersion = frame.alarmVersion;
            long total = 0;
            for (Map.Entry<String, Entry> e : cache.entrySet()) total += size(e.getKey(), e.getValue().value);
            cachedBytes = total;
            after = total;
        }
        runtime.cacheBudget.charge(after - before);
    }

    @Override
    public void sync() {
        CompletableFuture<Object> wait = new CompletableFuture<>();
        synchronized (lock) {
            checkUsable();
            if (!txns.isEmpty()) throw new IllegalStateException("sync() is not allowed inside storage.transaction(...)");
            sealOpen();
            maybeStartFlush();
            if (writeSeq <= durableSeq) return;
            held.add(new Held(writeSeq, wait, null, null));
        }
        wait.join();
    }

    /** A future completing when every write issued before now that holds outputs is durable. */
    CompletableFuture<Object> whenConfirmed() {
        CompletableFuture<Object> f = new CompletableFuture<>();
        synchronized (lock) {
            if (broken != null) {
                f.completeExceptionally(new ObjectResetException("object " + object + " was reset: " + broken.getMessage(), broken));
            } else if (confirmSeq <= durableSeq) {
                f.complete(null);
            } else {
                held.add(new Held(confirmSeq, f, null, null));
            }
        }
        return f;
    }

    // ---------------------------------------------------------------- output gate and flushes

    long confirmationPoint() {
        synchronized (lock) {
            return confirmSeq;
        }
    }

    /** The current event yields: its writes become a batch, flushed now if none is in flight. */
    void onYield() {
        synchronized (lock) {
            if (!txns.isEmpty() || broken != null) return;
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
        if (flushing || ready == null || concurrentReads > 0 || broken != null) return;
        Pending batch = ready;
        ready = null;
        flushing = true;
        flushDone = new CompletableFuture<>();
        long started = System.nanoTime();
        StorageEngine.Batch b = new StorageEngine.Batch(object, batch.deleteAll, batch.writes, batch.alarm);
        runtime.committer.submit(new GroupCommitter.Flush() {
            @Override
            public StorageEngine.Batch batch() {
                return b;
            }

            @Override
            public void done(Throwable failure) {
                runtime.metrics.flushLatency.update(System.nanoTime() - started, TimeUnit.NANOSECONDS);
                runtime.metrics.batchSize.update(b.size());
                onFlushed(batch, failure);
            }
        });
    }

    private void onFlushed(Pending batch, Throwable failure) {
        List<Held> release = new ArrayList<>();
        CompletableFuture<Void> done;
        long released = 0;
        synchronized (lock) {
            flushing = false;
            done = flushDone;
            if (failure != null && broken == null) {
                // from now on nothing more may reach storage: a later batch must never commit
                // without this one. breakAll (via host.reset below) fails what is held.
                broken = failure;
            }
            if (broken == null) {
                durableSeq = batch.maxSeq;
                unflushedBytes -= batch.bytes;
                for (String key : batch.writes.keySet()) {
                    Entry e = cache.get(key);
                    if (e != null && e.dirtySeq != 0 && e.dirtySeq <= durableSeq) {
                        e.dirtySeq = 0;
                        if (e.noCache) {
                            released += removeEntry(key, e);
                        }
                    }
                }
                while (!held.isEmpty() && held.peek().seq <= durableSeq) release.add(held.poll());
                maybeStartFlush();
            }
        }
        if (released > 0) runtime.cacheBudget.charge(-released);
        if (failure == null && batch.alarm != null) {
            runtime.alarms.committed(host, batch.alarm.at());
        }
        for (Held h : release) complete(h);
        done.complete(null);
        if (failure != null) {
            host.reset(failure);
        } else {
            host.flushed();
        }
    }

    private static void complete(Held h) {
        if (h.error != null) h.future.completeExceptionally(h.error);
        else h.future.complete(h.result);
    }

    /** Releases a reply once every write before {@code seq} is durable. */
    void release(long seq, CompletableFuture<Object> reply, Object result, Throwable error) {
        Held h = new Held(seq, reply, result, error);
        synchronized (lock) {
            if (broken != null) {
                h = new Held(seq, reply, null, new ObjectResetException("object " + object + " was reset before this call's writes were durable: "
                        + broken.getMessage(), broken));
            } else if (seq > durableSeq) {
                held.add(h);
                return;
            }
        }
        complete(h);
    }

    /** Fails everything held and drops the cache; returns when the in-flight flush (if any) ends. */
    CompletableFuture<Void> breakAll(Throwable cause) {
        List<Held> failed;
        long released;
        CompletableFuture<Void> done;
        synchronized (lock) {
            if (dropped) return flushDone;
            dropped = true;
            if (broken == null) broken = cause;
            failed = new ArrayList<>(held);
            held.clear();
            open = new Pending();
            ready = null;
            released = cachedBytes;
            cache.clear();
            cachedBytes = 0;
            cacheEpoch++;
            done = flushing ? flushDone : CompletableFuture.completedFuture(null);
        }
        runtime.cacheBudget.charge(-released);
        for (Held h : failed) {
            h.future.completeExceptionally(new ObjectResetException("object " + object
                    + " was reset before this call's writes were durable: " + cause.getMessage(), cause));
        }
        return done;
    }

    boolean isQuiescent() {
        synchronized (lock) {
            return !flushing && ready == null && open.isEmpty() && held.isEmpty() && txns.isEmpty();
        }
    }

    void dropCache() {
        long released;
        synchronized (lock) {
            released = cachedBytes;
            cache.clear();
            cachedBytes = 0;
            cacheEpoch++;
        }
        runtime.cacheBudget.charge(-released);
    }

    // ---------------------------------------------------------------- cache budget

    private static long size(String key, byte[] value) {
        return ENTRY_OVERHEAD + 2L * key.length() + (value == null ? 0 : value.length);
    }

    private long removeEntry(String key, Entry e) {
        cache.remove(key);
        cacheEpoch++;
        long s = size(key, e.value);
        cachedBytes -= s;
        return s;
    }

    /** Adds this object's clean entries to {@code out} as eviction candidates. */
    void evictionCandidates(List<CacheBudget.Candidate> out) {
        synchronized (lock) {
            for (Map.Entry<String, Entry> e : cache.entrySet()) {
                if (e.getValue().dirtySeq == 0) out.add(new CacheBudget.Candidate(this, e.getKey(), e.getValue().lastAccess));
            }
        }
    }

    /** Evicts {@code key} if still clean and not touched since {@code lastAccess}; bytes freed. */
    long evict(String key, long lastAccess) {
        synchronized (lock) {
            Entry e = cache.get(key);
            if (e == null || e.dirtySeq != 0 || e.lastAccess != lastAccess) return 0;
            return removeEntry(key, e);
        }
    }
}
