package io.anteroom.objects;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.objects.Counters.Counter;
import io.anteroom.objects.Counters.CounterObject;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A quick throughput report of the naive counter on SQLite against a lock + fsync-per-operation
 * baseline, printed to the test output (no timing assertion: the proper benchmark is in {@code
 * bench}). Run with: {@code ./mvnw -o -q -pl objects test -Pslow -Dtest=ThroughputReportTest
 * -Dsurefire.failIfNoSpecifiedTests=false} and read {@code
 * objects/target/surefire-reports/io.anteroom.objects.ThroughputReportTest-output.txt}.
 */
@Tag("slow")
class ThroughputReportTest {
  private static final int CALLERS = 64;
  private static final long SECONDS = 5;

  @Test
  void naiveCounterAgainstTheLockedSqliteBaseline(@TempDir Path dir) throws Exception {
    double baseline = baseline(dir.resolve("baseline.db"));
    System.out.printf(
        "baseline (lock + SQLite read/write/commit per op), %d callers: %.0f ops/s%n",
        CALLERS, baseline);
    for (int objects : new int[] {1, 1000}) {
      try (Runtime runtime = Runtime.builder().dataDir(dir.resolve("runtime-" + objects)).build()) {
        Namespace<Counter> ns = runtime.namespace("counter", Counter.class, CounterObject::new);
        run(runtime, ns, objects, 2); // warm-up
        double opsPerSecond = run(runtime, ns, objects, SECONDS);
        System.out.printf("  ratio to baseline: %.1fx%n", opsPerSecond / baseline);
      }
    }
  }

  private static double run(Runtime runtime, Namespace<Counter> ns, int objects, long seconds)
      throws Exception {
    Counter[] stubs = new Counter[objects];
    for (int i = 0; i < objects; i++) stubs[i] = ns.get("c" + i);
    Set<String> issued = ConcurrentHashMap.newKeySet();
    long[][] latencies = new long[CALLERS][];
    AtomicLong ops = new AtomicLong();
    long fsyncsBefore = runtime.metrics().meter("objects.storage.fsyncs").getCount();
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    List<Thread> threads = new ArrayList<>();
    for (int c = 0; c < CALLERS; c++) {
      int caller = c;
      threads.add(
          Thread.ofVirtual()
              .start(
                  () -> {
                    long[] mine = new long[1 << 20];
                    int n = 0;
                    while (System.nanoTime() < end) {
                      int o = objects == 1 ? 0 : ThreadLocalRandom.current().nextInt(objects);
                      long t = System.nanoTime();
                      long v = stubs[o].next();
                      if (n < mine.length) mine[n++] = System.nanoTime() - t;
                      if (!issued.add(o + ":" + v))
                        throw new AssertionError("duplicate " + v + " from object " + o);
                      ops.incrementAndGet();
                    }
                    latencies[caller] = Arrays.copyOf(mine, n);
                  }));
    }
    for (Thread t : threads) t.join();
    long[] all = Arrays.stream(latencies).flatMapToLong(Arrays::stream).sorted().toArray();
    assertThat(issued).hasSize((int) ops.get());
    double opsPerSecond = ops.get() / (double) seconds;
    long fsyncs = runtime.metrics().meter("objects.storage.fsyncs").getCount() - fsyncsBefore;
    System.out.printf(
        "%d object(s), %d callers, %ds: %.0f ops/s, p50 %.2f ms, p99 %.2f ms, %.0f fsyncs/s, %.1f ops per fsync, 0 duplicates%n",
        objects,
        CALLERS,
        seconds,
        opsPerSecond,
        all[all.length / 2] / 1e6,
        all[(int) (all.length * 0.99)] / 1e6,
        fsyncs / (double) seconds,
        ops.get() / (double) Math.max(1, fsyncs));
    return opsPerSecond;
  }

  private static double baseline(Path file) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file)) {
      try (Statement s = c.createStatement()) {
        s.execute("PRAGMA journal_mode=WAL");
        s.execute("PRAGMA synchronous=FULL");
        s.execute("CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER) WITHOUT ROWID");
      }
      c.setAutoCommit(false);
      PreparedStatement get = c.prepareStatement("SELECT v FROM kv WHERE k = 'counter'");
      PreparedStatement put =
          c.prepareStatement("INSERT OR REPLACE INTO kv (k, v) VALUES ('counter', ?)");
      ReentrantLock lock = new ReentrantLock();
      AtomicLong ops = new AtomicLong();
      long end = System.nanoTime() + SECONDS * 1_000_000_000L;
      List<Thread> threads = new ArrayList<>();
      for (int i = 0; i < CALLERS; i++) {
        threads.add(
            Thread.ofVirtual()
                .start(
                    () -> {
                      while (System.nanoTime() < end) {
                        lock.lock();
                        try {
                          long v;
                          try (ResultSet rs = get.executeQuery()) {
                            v = rs.next() ? rs.getLong(1) : 0;
                          }
                          put.setLong(1, v + 1);
                          put.executeUpdate();
                          c.commit();
                        } catch (java.sql.SQLException e) {
                          throw new IllegalStateException(e);
                        } finally {
                          lock.unlock();
                        }
                        ops.incrementAndGet();
                      }
                    }));
      }
      for (Thread t : threads) t.join();
      return ops.get() / (double) SECONDS;
    }
  }
}
