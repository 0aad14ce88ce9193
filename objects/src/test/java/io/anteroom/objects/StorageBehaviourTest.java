package io.anteroom.objects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.anteroom.objects.Counters.Counter;
import io.anteroom.objects.Counters.CounterObject;
import io.anteroom.objects.storage.InMemoryStorageEngine;
import io.anteroom.objects.storage.StorageEngine;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Group commit, backpressure, sync, cache budget, blockConcurrencyWhile, SQLite durability. */
class StorageBehaviourTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @Test
  void groupCommitCombinesTheWaitingBatchesOfManyObjectsIntoOneCommit() throws Exception {
    try (Fixture f = new Fixture()) {
      Namespace<Counter> ns = f.runtime.namespace("counter", Counter.class, CounterObject::new);
      InMemoryStorageEngine.Hold commits = f.engine.holdCommits();
      CompletableFuture<Long> first = f.async(() -> ns.get("first").next());
      commits.awaitBlocked(); // the writer is inside a commit carrying "first"
      List<CompletableFuture<Long>> others = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        int n = i;
        others.add(f.async(() -> ns.get("o" + n).next()));
      }
      await().atMost(WAIT).until(() -> f.runtime.committer.queued() == 50);
      commits.release();
      first.get();
      for (CompletableFuture<Long> o : others) assertThat(o.get()).isZero();
      List<List<StorageEngine.Batch>> all = f.engine.commits();
      assertThat(all).hasSize(2);
      assertThat(all.get(1)).hasSize(50); // one transaction, one fsync for 50 objects
      assertThat(
              f.runtime
                  .metrics()
                  .histogram("objects.storage.batches-per-commit")
                  .getSnapshot()
                  .getMax())
          .isEqualTo(50);
    }
  }

  @Test
  void aFailedGroupCommitResetsEveryObjectItCarried() throws Exception {
    try (Fixture f = new Fixture()) {
      Namespace<Counter> ns = f.runtime.namespace("counter", Counter.class, CounterObject::new);
      for (int i = 0; i < 10; i++) ns.get("o" + i).next();
      InMemoryStorageEngine.Hold commits = f.engine.holdCommits();
      CompletableFuture<Long> first = f.async(() -> ns.get("o0").next());
      commits.awaitBlocked();
      List<CompletableFuture<Long>> others = new ArrayList<>();
      for (int i = 1; i < 10; i++) {
        int n = i;
        others.add(f.async(() -> ns.get("o" + n).next()));
      }
      await().atMost(WAIT).until(() -> f.runtime.committer.queued() == 9);
      f.engine.failNextCommits(2);
      commits.release();
      assertThatThrownBy(first::get).hasCauseInstanceOf(ObjectResetException.class);
      for (CompletableFuture<Long> o : others)
        assertThatThrownBy(o::get).hasCauseInstanceOf(ObjectResetException.class);
      assertThat(f.meter("resets")).isEqualTo(10);
      for (int i = 0; i < 10; i++)
        assertThat(ns.get("o" + i).next())
            .as("o%d re-issues the unreceived number", i)
            .isEqualTo(1);
    }
  }

  interface Bulk {
    void write(int count, int size);

    int written();
  }

  static final class BulkObject implements Bulk {
    private final AtomicInteger progress;
    private final Storage s;

    /** Counts each write in {@code progress} as it returns. */
    BulkObject(ObjectContext ctx, AtomicInteger progress) {
      this.progress = progress;
      this.s = ctx.storage();
    }

    @Override
    public void write(int count, int size) {
      for (int i = 0; i < count; i++) {
        s.put("k" + i, "x".repeat(size));
        progress.incrementAndGet();
      }
    }

    @Override
    public int written() {
      return s.list(ListOptions.ALL, String.class).size();
    }
  }

  @Test
  void backpressureMakesWritesWaitForTheFlushAboveTheUnflushedLimit() throws Exception {
    AtomicInteger progress = new AtomicInteger();
    try (Fixture f = new Fixture(b -> b.maxUnflushedBytes(1000))) {
      Bulk bulk =
          f.runtime.namespace("bulk", Bulk.class, ctx -> new BulkObject(ctx, progress)).get("b");
      InMemoryStorageEngine.Hold commits = f.engine.holdCommits();
      CompletableFuture<Void> call =
          f.async(
              () -> {
                bulk.write(10, 300);
                return null;
              });
      commits.awaitBlocked();
      // each entry counts ~370 bytes: the third write crosses 1000, seals, and waits for the flush
      await().atMost(WAIT).until(() -> progress.get() == 2);
      assertThat(call).isNotDone();
      assertThat(progress.get()).isEqualTo(2);
      commits.release();
      call.get();
      assertThat(progress.get()).isEqualTo(10);
      assertThat(bulk.written()).isEqualTo(10);
      assertThat(f.engine.commits().size()).isGreaterThan(1);
    }
  }

  interface Syncer {
    String writeSyncWrite();
  }

  static final class SyncerObject implements Syncer {
    private final Storage s;
    private final InMemoryStorageEngine engine;
    private final String key;

    SyncerObject(ObjectContext ctx, InMemoryStorageEngine engine) {
      this.s = ctx.storage();
      this.engine = engine;
      this.key = Runtime.objectKey(ctx.namespaceName(), ctx.id());
    }

    @Override
    public String writeSyncWrite() {
      s.put("a", 1, StorageOptions.DEFAULT.withAllowUnconfirmed());
      boolean before = engine.rows(key).containsKey("a");
      s.sync();
      boolean after = engine.rows(key).containsKey("a");
      s.put("b", 2);
      return before + " " + after + " " + engine.rows(key).containsKey("b");
    }
  }

  @Test
  void syncWaitsUntilEveryEarlierWriteIsDurable() {
    try (Fixture f = new Fixture()) {
      Syncer syncer =
          f.runtime
              .namespace("syncer", Syncer.class, ctx -> new SyncerObject(ctx, f.engine))
              .get("s");
      assertThat(syncer.writeSyncWrite()).isEqualTo("false true false");
    }
  }

  interface Kv {
    void put(String key, String value);

    String get(String key);
  }

  static final class KvObject implements Kv {
    private final Storage s;

    KvObject(ObjectContext ctx) {
      this.s = ctx.storage();
    }

    @Override
    public void put(String key, String value) {
      s.put(key, value);
    }

    @Override
    public String get(String key) {
      return s.get(key, String.class).orElse(null);
    }
  }

  @Test
  void cacheEvictsLeastRecentlyUsedCleanEntriesAboveTheBudget() {
    try (Fixture f = new Fixture(b -> b.cacheBudgetBytes(4096))) {
      Namespace<Kv> ns = f.runtime.namespace("kv", Kv.class, KvObject::new);
      Kv kv = ns.get("k");
      for (int i = 0; i < 40; i++) {
        kv.put("key" + i, "v".repeat(100));
        kv.get("key0"); // keep key0 recently used
      }
      long cached = (Long) f.runtime.metrics().getGauges().get("objects.cache.bytes").getValue();
      assertThat(cached).isLessThanOrEqualTo(4096);
      long misses = f.meter("cache.misses");
      assertThat(kv.get("key0")).isEqualTo("v".repeat(100));
      assertThat(f.meter("cache.misses")).as("recently used: still cached").isEqualTo(misses);
      assertThat(kv.get("key1")).isEqualTo("v".repeat(100));
      assertThat(f.meter("cache.misses"))
          .as("least recently used: evicted, read again from storage")
          .isEqualTo(misses + 1);
    }
  }

  @Test
  void dirtyEntriesAreNeverEvicted() throws Exception {
    try (Fixture f = new Fixture(b -> b.cacheBudgetBytes(1024))) {
      Kv kv = f.runtime.namespace("kv", Kv.class, KvObject::new).get("k");
      kv.get("warm");
      InMemoryStorageEngine.Hold commits = f.engine.holdCommits();
      List<CompletableFuture<Void>> puts = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        int n = i;
        puts.add(
            f.async(
                () -> {
                  kv.put("key" + n, "v".repeat(200));
                  return null;
                }));
      }
      commits.awaitBlocked();
      await().atMost(WAIT).until(() -> f.meter("events") >= 21);
      // 20 x 200 bytes are unflushed: far above the budget, all still cached
      assertThat((Long) f.runtime.metrics().getGauges().get("objects.cache.bytes").getValue())
          .isGreaterThan(4000);
      commits.release();
      for (CompletableFuture<Void> p : puts) p.get();
      assertThat(kv.get("key19")).isEqualTo("v".repeat(200));
    }
  }

  // ------------------------------------------------------------------ blockConcurrencyWhile

  interface Guarded {
    String run(String mode);

    int instance();
  }

  static final class GuardedObject implements Guarded {
    private final ObjectContext ctx;
    private final int number;

    /** Numbers itself with the next value of {@code instances} (1 for the first instance). */
    GuardedObject(ObjectContext ctx, AtomicInteger instances) {
      this.ctx = ctx;
      this.number = instances.incrementAndGet();
    }

    @Override
    public String run(String mode) {
      return switch (mode) {
        case "nested" ->
            ctx.blockConcurrencyWhile(
                () -> "outer(" + ctx.blockConcurrencyWhile(() -> "inner") + ")");
        case "throw" -> {
          ctx.storage().put("unconfirmed", true);
          yield ctx.blockConcurrencyWhile(
              () -> {
                throw new IllegalStateException("init failed");
              });
        }
        case "hang" ->
            ctx.blockConcurrencyWhile(
                () -> {
                  new CompletableFuture<Void>().join();
                  return "never";
                });
        default -> throw new IllegalArgumentException(mode);
      };
    }

    @Override
    public int instance() {
      return number;
    }
  }

  @Test
  void blockConcurrencyWhileNests() {
    AtomicInteger instances = new AtomicInteger();
    try (Fixture f = new Fixture()) {
      Guarded g =
          f.runtime
              .namespace("guarded", Guarded.class, ctx -> new GuardedObject(ctx, instances))
              .get("g");
      assertThat(g.run("nested")).isEqualTo("outer(inner)");
    }
  }

  @Test
  void blockConcurrencyWhileThatThrowsResetsTheInstance() {
    AtomicInteger instances = new AtomicInteger();
    try (Fixture f = new Fixture()) {
      Namespace<Guarded> ns =
          f.runtime.namespace("guarded", Guarded.class, ctx -> new GuardedObject(ctx, instances));
      Guarded g = ns.get("g");
      int before = g.instance();
      assertThatThrownBy(() -> g.run("throw"))
          .isInstanceOf(ObjectResetException.class)
          .hasMessageContaining("init failed");
      assertThat(g.instance()).isNotEqualTo(before);
      assertThat(f.meter("resets")).isEqualTo(1);
      assertThat(f.engine.rows(Runtime.objectKey("guarded", ns.idFromName("g"))))
          .doesNotContainKey("unconfirmed");
    }
  }

  @Test
  void blockConcurrencyWhileTimesOutAfterThirtySecondsAndResets() throws Exception {
    AtomicInteger instances = new AtomicInteger();
    try (Fixture f = new Fixture()) {
      Guarded g =
          f.runtime
              .namespace("guarded", Guarded.class, ctx -> new GuardedObject(ctx, instances))
              .get("g");
      int before = g.instance();
      CompletableFuture<String> hanging = f.async(() -> g.run("hang"));
      await().atMost(WAIT).until(() -> f.time.pending() >= 2); // the sweep and the timeout
      f.time.advance(Duration.ofSeconds(29));
      assertThat(hanging).isNotDone();
      f.time.advance(Duration.ofSeconds(1));
      assertThatThrownBy(hanging::get)
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(ObjectResetException.class)
          .hasMessageContaining("30000 ms timeout");
      assertThat(g.instance()).isNotEqualTo(before);
    }
  }

  // ------------------------------------------------------------------ SQLite

  @Test
  void sqliteReopenSeesConfirmedData(@TempDir Path dir) {
    try (Runtime runtime = Runtime.builder().dataDir(dir).build()) {
      Namespace<Counter> ns = runtime.namespace("counter", Counter.class, CounterObject::new);
      for (int i = 0; i < 25; i++) ns.get("a").next();
      ns.get("b").next();
      Kv kv = runtime.namespace("kv", Kv.class, KvObject::new).get("k");
      kv.put("ünïcødé 🙂", "välue");
    }
    try (Runtime runtime = Runtime.builder().dataDir(dir).build()) {
      Namespace<Counter> ns = runtime.namespace("counter", Counter.class, CounterObject::new);
      assertThat(ns.get("a").current()).isEqualTo(25);
      assertThat(ns.get("b").current()).isEqualTo(1);
      assertThat(runtime.namespace("kv", Kv.class, KvObject::new).get("k").get("ünïcødé 🙂"))
          .isEqualTo("välue");
    }
  }
}
