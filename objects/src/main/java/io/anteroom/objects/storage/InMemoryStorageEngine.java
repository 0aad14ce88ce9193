package io.anteroom.objects.storage;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link StorageEngine} in memory, for tests, with fault injection.
 *
 * <p>Invariants: all data is guarded by {@code this}; a commit is applied entirely under that lock
 * or not at all, so {@link #crashImage()} (the "disk" at the instant of a crash) always shows whole
 * commits. Injected faults act before anything is applied.
 *
 * <pre>{@code
 * InMemoryStorageEngine engine = new InMemoryStorageEngine();
 * engine.failNextCommits(1);                       // the next flush fails: the object resets
 * try (Hold reads = engine.holdReads()) { ... }    // reads wait until the hold is released
 * Hold commits = engine.holdCommits();             // commits wait: "crash between batches"
 * InMemoryStorageEngine afterCrash = engine.crashImage();
 * }</pre>
 */
public final class InMemoryStorageEngine implements StorageEngine {
  private final TreeMap<String, TreeMap<String, byte[]>> data = new TreeMap<>();
  private final Map<String, Instant> alarms = new HashMap<>();

  /** The most recent commits (bounded, so that long simulations do not grow without end). */
  private final java.util.ArrayDeque<List<Batch>> commitLog = new java.util.ArrayDeque<>();

  private static final int COMMIT_LOG_LIMIT = 10_000;
  private final AtomicInteger failingCommits = new AtomicInteger();
  private volatile Hold readHold;
  private volatile Hold commitHold;

  /** An empty engine. */
  public InMemoryStorageEngine() {}

  @Override
  public byte[] get(String object, String key) {
    awaitHold(readHold);
    synchronized (this) {
      checkOpen();
      TreeMap<String, byte[]> rows = data.get(object);
      return rows == null ? null : rows.get(key);
    }
  }

  @Override
  public List<Map.Entry<String, byte[]>> list(String object, KeyRange range) {
    awaitHold(readHold);
    synchronized (this) {
      checkOpen();
      List<Map.Entry<String, byte[]>> out = new ArrayList<>();
      TreeMap<String, byte[]> rows = data.get(object);
      if (rows == null || range.isEmpty()) return out;
      NavigableMap<String, byte[]> view = rows;
      if (range.start() != null) view = view.tailMap(range.start(), range.startInclusive());
      if (range.end() != null) view = view.headMap(range.end(), false);
      if (range.reverse()) view = view.descendingMap();
      for (Map.Entry<String, byte[]> e : view.entrySet()) {
        if (range.limit() > 0 && out.size() >= range.limit()) break;
        out.add(Map.entry(e.getKey(), e.getValue()));
      }
      return out;
    }
  }

  @Override
  public synchronized Optional<Instant> getAlarm(String object) {
    checkOpen();
    return Optional.ofNullable(alarms.get(object));
  }

  @Override
  public synchronized Map<String, Instant> alarms() {
    checkOpen();
    return Map.copyOf(alarms);
  }

  @Override
  public void commit(List<Batch> batches) {
    awaitHold(commitHold);
    synchronized (this) {
      checkOpen();
      if (failingCommits.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0) {
        throw new IllegalStateException(
            "injected flush failure (InMemoryStorageEngine.failNextCommits)");
      }
      for (Batch b : batches) {
        apply(b);
      }
      if (commitLog.size() == COMMIT_LOG_LIMIT) commitLog.removeFirst();
      commitLog.add(List.copyOf(batches));
    }
  }

  private void apply(Batch b) {
    TreeMap<String, byte[]> rows =
        data.computeIfAbsent(b.object(), k -> new TreeMap<>(KeyRange.ORDER));
    if (b.deleteAll()) rows.clear();
    for (Map.Entry<String, byte[]> w : b.writes().entrySet()) {
      if (w.getValue() == null) rows.remove(w.getKey());
      else rows.put(w.getKey(), w.getValue().clone());
    }
    if (rows.isEmpty()) data.remove(b.object());
    if (b.alarm() != null) {
      if (b.alarm().at() == null) alarms.remove(b.object());
      else alarms.put(b.object(), b.alarm().at());
    }
  }

  /** Keeps the data: a new runtime over this engine sees it, like reopening a file. */
  @Override
  public void close() {}

  private void checkOpen() {
    // an in-memory engine stays readable after close so that tests can "reopen" it
  }

  // ---- fault injection and inspection ----

  /** The next {@code n} commits fail (nothing of them is applied). */
  public void failNextCommits(int n) {
    failingCommits.set(n);
  }

  /** Reads wait until the returned hold is released (or closed). */
  public Hold holdReads() {
    Hold h = new Hold();
    readHold = h;
    return h;
  }

  /** Commits wait until the returned hold is released (or closed). */
  public Hold holdCommits() {
    Hold h = new Hold();
    commitHold = h;
    return h;
  }

  /**
   * A new engine holding exactly what was committed so far: what a restarted process would find
   * after a crash at this instant. Commits waiting on a {@link #holdCommits() hold} are not in it.
   */
  public synchronized InMemoryStorageEngine crashImage() {
    InMemoryStorageEngine copy = new InMemoryStorageEngine();
    data.forEach(
        (object, rows) -> {
          TreeMap<String, byte[]> c = new TreeMap<>(KeyRange.ORDER);
          rows.forEach((k, v) -> c.put(k, v.clone()));
          copy.data.put(object, c);
        });
    copy.alarms.putAll(alarms);
    return copy;
  }

  /** The commits so far (the last 10,000), each the list of batches it made durable together. */
  public synchronized List<List<Batch>> commits() {
    return List.copyOf(commitLog);
  }

  /** The keys and values stored for {@code object} (committed state). */
  public synchronized Map<String, byte[]> rows(String object) {
    TreeMap<String, byte[]> rows = data.get(object);
    return rows == null ? Map.of() : new TreeMap<>(rows);
  }

  private void awaitHold(Hold h) {
    if (h != null) h.pass();
  }

  /** A hold on reads or commits; {@link #release()} (or {@link #close()}) lets them continue. */
  public final class Hold implements AutoCloseable {
    private final CountDownLatch released = new CountDownLatch(1);
    private final Semaphore blocked = new Semaphore(0);

    void pass() {
      if (released.getCount() == 0) return;
      blocked.release();
      try {
        released.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while held by InMemoryStorageEngine", e);
      }
    }

    /** Waits until one operation is waiting on this hold. */
    public void awaitBlocked() throws InterruptedException {
      blocked.acquire();
    }

    /** Lets every held and future operation through. */
    public void release() {
      released.countDown();
    }

    @Override
    public void close() {
      release();
    }
  }
}
