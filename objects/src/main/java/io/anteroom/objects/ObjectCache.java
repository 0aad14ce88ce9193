package io.anteroom.objects;

import io.anteroom.objects.storage.KeyRange;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The cache of one live object: the current value (or known absence) of the keys it has read or
 * written, in key order, and its share of the runtime-wide {@link Budget}.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>A write updates its entry at once and marks it dirty with the write's sequence number; an
 *       entry becomes clean only once a batch containing that write is durable ({@link
 *       #markClean}). Dirty entries are never evicted, so a key missing from the cache has no
 *       unflushed write and the engine's value is current (the owner handles a pending {@code
 *       deleteAll}).
 *   <li>{@code epoch} changes whenever the cache changes shape other than by a fill (removal,
 *       clear, rollback): a value read from the engine is filled in only if the epoch is still the
 *       one seen before the read, so a fill never overwrites a newer state.
 *   <li>{@code noCache} entries are dropped once clean (or at a read while clean); it never changes
 *       what a read returns.
 *   <li>{@code bytes} is the sum of {@link #size} over the entries. Growth is charged to the budget
 *       by the owner <em>after</em> leaving the lock (eviction takes other caches' locks); a shrink
 *       may be refunded under it.
 * </ul>
 *
 * <p>Locking: every method takes {@code lock}, the owning {@link ObjectStorage}'s lock (it is
 * reentrant), so that the storage can combine several calls with its batches and output gate into
 * one atomic step.
 */
final class ObjectCache {
  private static final long ENTRY_OVERHEAD = 64;

  private final Object lock;
  private final Budget budget;
  private final TreeMap<String, Entry> entries = new TreeMap<>(KeyRange.ORDER);
  private long bytes;
  private long epoch;

  ObjectCache(Object lock, Budget budget) {
    this.lock = lock;
    this.budget = budget;
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

  /** The memory an entry is charged for. */
  static long size(String key, byte[] value) {
    return ENTRY_OVERHEAD + 2L * key.length() + (value == null ? 0 : value.length);
  }

  long epoch() {
    synchronized (lock) {
      return epoch;
    }
  }

  /**
   * The entry of {@code key} (null on a miss), touched as used; a clean entry read with {@code
   * noCache} is dropped (its bytes refunded) but returned.
   */
  Entry read(String key, boolean noCache) {
    synchronized (lock) {
      Entry e = entries.get(key);
      if (e == null) return null;
      e.lastAccess = budget.tick();
      if (noCache && e.dirtySeq == 0) {
        long freed = remove(key, e);
        budget.charge(-freed);
      }
      return e;
    }
  }

  /**
   * Fills in {@code key} with a value read from the engine if the cache did not change shape since
   * {@code seenEpoch} and the key is not cached; returns the bytes to charge.
   */
  long fill(String key, byte[] value, long seenEpoch) {
    synchronized (lock) {
      if (epoch != seenEpoch || entries.containsKey(key)) return 0;
      Entry e = new Entry();
      e.value = value;
      e.lastAccess = budget.tick();
      entries.put(key, e);
      long added = size(key, value);
      bytes += added;
      return added;
    }
  }

  /** As {@link #fill} for the rows of a scan; returns the bytes to charge. */
  long fill(List<Map.Entry<String, byte[]>> rows, long seenEpoch) {
    synchronized (lock) {
      if (epoch != seenEpoch) return 0;
      long added = 0;
      for (Map.Entry<String, byte[]> r : rows) {
        if (!entries.containsKey(r.getKey())) {
          Entry e = new Entry();
          e.value = r.getValue();
          e.lastAccess = budget.tick();
          entries.put(r.getKey(), e);
          long s = size(r.getKey(), r.getValue());
          bytes += s;
          added += s;
        }
      }
      return added;
    }
  }

  /** Adds the dirty entries in {@code range} to {@code out} (value null: deleted). */
  void dirtyIn(KeyRange range, Map<String, byte[]> out) {
    synchronized (lock) {
      NavigableMap<String, Entry> view = entries;
      if (range.start() != null) view = view.tailMap(range.start(), range.startInclusive());
      if (range.end() != null) view = view.headMap(range.end(), false);
      for (Map.Entry<String, Entry> e : view.entrySet()) {
        if (e.getValue().dirtySeq != 0) out.put(e.getKey(), e.getValue().value);
      }
    }
  }

  /**
   * Applies write {@code seq} ({@code value} null: delete) as a dirty entry; returns the change of
   * bytes to charge.
   */
  long write(String key, byte[] value, long seq, boolean noCache) {
    synchronized (lock) {
      long delta;
      Entry e = entries.get(key);
      if (e == null) {
        e = new Entry();
        entries.put(key, e);
        delta = size(key, value);
      } else {
        delta = size(key, value) - size(key, e.value);
      }
      e.value = value;
      e.dirtySeq = seq;
      e.noCache = noCache;
      e.lastAccess = budget.tick();
      bytes += delta;
      return delta;
    }
  }

  /**
   * The batch carrying writes to {@code keys} is durable up to {@code durableSeq}: their entries
   * become clean, and clean {@code noCache} entries go. Returns the bytes to refund.
   */
  long markClean(Iterable<String> keys, long durableSeq) {
    synchronized (lock) {
      long released = 0;
      for (String key : keys) {
        Entry e = entries.get(key);
        if (e != null && e.dirtySeq != 0 && e.dirtySeq <= durableSeq) {
          e.dirtySeq = 0;
          if (e.noCache) {
            released += remove(key, e);
          }
        }
      }
      return released;
    }
  }

  /** Empties the cache; returns the bytes to refund. */
  long clear() {
    synchronized (lock) {
      long released = bytes;
      entries.clear();
      bytes = 0;
      epoch++;
      return released;
    }
  }

  // ---------------------------------------------------------------- transactions

  /** A copy of {@code key}'s entry, null if not cached (to undo a write). */
  Entry copyOf(String key) {
    synchronized (lock) {
      Entry e = entries.get(key);
      return e == null ? null : e.copy();
    }
  }

  /** A copy of every entry (to undo a {@code deleteAll}). */
  TreeMap<String, Entry> snapshot() {
    synchronized (lock) {
      TreeMap<String, Entry> snap = new TreeMap<>(KeyRange.ORDER);
      entries.forEach((k, e) -> snap.put(k, e.copy()));
      return snap;
    }
  }

  /**
   * Rolls back to {@code snapshot} if not null, else undoes {@code undo} (value null: the key was
   * not cached); entries whose writes are durable up to {@code durableSeq} are clean. Returns the
   * change of bytes to charge.
   */
  long rollback(TreeMap<String, Entry> snapshot, Map<String, Entry> undo, long durableSeq) {
    synchronized (lock) {
      long before = bytes;
      if (snapshot != null) {
        entries.clear();
        entries.putAll(snapshot);
      } else {
        undo.forEach(
            (k, e) -> {
              if (e == null) entries.remove(k);
              else entries.put(k, e);
            });
      }
      for (Entry e : entries.values()) {
        if (e.dirtySeq != 0 && e.dirtySeq <= durableSeq) e.dirtySeq = 0;
      }
      epoch++;
      long total = 0;
      for (Map.Entry<String, Entry> e : entries.entrySet()) {
        total += size(e.getKey(), e.getValue().value);
      }
      bytes = total;
      return total - before;
    }
  }

  // ---------------------------------------------------------------- eviction

  private long remove(String key, Entry e) {
    entries.remove(key);
    epoch++;
    long s = size(key, e.value);
    bytes -= s;
    return s;
  }

  /** Adds this cache's clean entries to {@code out} as eviction candidates. */
  void evictionCandidates(List<Budget.Candidate> out) {
    synchronized (lock) {
      for (Map.Entry<String, Entry> e : entries.entrySet()) {
        if (e.getValue().dirtySeq == 0) {
          out.add(new Budget.Candidate(this, e.getKey(), e.getValue().lastAccess));
        }
      }
    }
  }

  /** Evicts {@code key} if still clean and not touched since {@code lastAccess}; bytes freed. */
  long evict(String key, long lastAccess) {
    synchronized (lock) {
      Entry e = entries.get(key);
      if (e == null || e.dirtySeq != 0 || e.lastAccess != lastAccess) return 0;
      return remove(key, e);
    }
  }

  /**
   * The runtime-wide soft memory budget of the object caches.
   *
   * <p>Invariants: {@code bytes} is the sum of every live object's cached bytes (caches charge and
   * refund themselves). Above the budget, one thread at a time evicts the least recently used
   * <em>clean</em> entries across all caches down to 90% of the budget; dirty entries are never
   * evicted, so the budget is soft. Recency is an approximate global tick.
   */
  static final class Budget {
    record Candidate(ObjectCache cache, String key, long lastAccess) {}

    private final long budget;
    private final Supplier<Iterable<ObjectCache>> caches;
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong clock = new AtomicLong();
    private final AtomicBoolean evicting = new AtomicBoolean();

    Budget(long budget, Supplier<Iterable<ObjectCache>> caches) {
      this.budget = budget;
      this.caches = caches;
    }

    long tick() {
      return clock.incrementAndGet();
    }

    long bytes() {
      return bytes.get();
    }

    /**
     * Records a change of cached bytes; above the budget, evicts (never call with a cache's lock
     * held for delta > 0).
     */
    void charge(long delta) {
      long now = bytes.addAndGet(delta);
      if (delta > 0 && now > budget && evicting.compareAndSet(false, true)) {
        try {
          evict();
        } finally {
          evicting.set(false);
        }
      }
    }

    private void evict() {
      List<Candidate> candidates = new ArrayList<>();
      for (ObjectCache c : caches.get()) c.evictionCandidates(candidates);
      candidates.sort(Comparator.comparingLong(Candidate::lastAccess));
      long target = budget - budget / 10;
      for (Candidate c : candidates) {
        if (bytes.get() <= target) break;
        long freed = c.cache().evict(c.key(), c.lastAccess());
        if (freed > 0) bytes.addAndGet(-freed);
      }
    }
  }
}
