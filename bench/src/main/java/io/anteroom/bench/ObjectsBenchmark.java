package io.anteroom.bench;

import com.codahale.metrics.MetricRegistry;
import io.anteroom.objects.Namespace;
import io.anteroom.objects.ObjectId;
import io.anteroom.objects.ObjectTransport;
import io.anteroom.objects.Runtime;
import io.anteroom.objects.Stubs;
import io.anteroom.objects.http.HttpObjectServer;
import io.anteroom.objects.http.HttpObjectTransport;
import io.anteroom.objects.http.RemoteObjects;
import io.anteroom.objects.http.RoutingObjectTransport;
import io.anteroom.objects.ratis.ClusterFile;
import io.anteroom.objects.ratis.ClusterNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Benchmarks of the Durable Objects runtime against the hand-written baseline, printed as a
 * Markdown report on standard output (progress on standard error).
 *
 * <ul>
 *   <li>{@code counter}: the naive counter of the spec on one object, N in-process callers (virtual
 *       threads), each caller count measured right after the {@code baseline} (a lock around SQLite
 *       read + write + commit, fsync per operation) with the same callers, so the ratio of the two
 *       is taken under the same machine load.
 *   <li>{@code spread}: 1,000 objects, 64 callers each calling a random object: confirmed
 *       increments/s, fsyncs/s and batches per fsync from the runtime's metrics.
 *   <li>{@code cluster-1}: the naive counter on a one-peer "cluster": the same code path as {@code
 *       cluster} (Raft log with fsync, SQLite copy, read index) without followers, i.e. the
 *       leader's own work.
 *   <li>{@code http-spread}, {@code cluster}, {@code cluster-spread}: the single node over HTTP
 *       with {@code --objects} objects, and the same two loads (one object, many objects) on a
 *       3-peer replicated coordinator ({@code ClusterNode}s on loopback ports, SQLite copies, Raft
 *       log fsync) in this JVM, called through a {@code RoutingObjectTransport} listing all three,
 *       64 callers each; the cluster's leader and followers share this machine's cores.
 *   <li>{@code http}: the naive counter through remote stubs over 64 pooled HTTP connections
 *       (server and client in this JVM, 127.0.0.1); {@code http-noop} is the same HTTP path in
 *       front of an in-memory counter without runtime or storage: the cost of the HTTP layer alone.
 * </ul>
 *
 * <pre>
 * ./mvnw -q -DskipTests package -pl bench -am
 * java --enable-native-access=ALL-UNNAMED -cp "bench/target/classes:$(cat bench/target/classpath.txt)" \
 *     io.anteroom.bench.ObjectsBenchmark --duration 10s
 * </pre>
 */
@Command(
    name = "objects-benchmark",
    mixinStandardHelpOptions = true,
    description =
        "Naive durable counter on the runtime vs. a locked SQLite baseline; many objects; over HTTP.")
public final class ObjectsBenchmark implements Callable<Integer> {
  /** Connections (and callers) of the HTTP scenarios, as the spec asks. */
  static final int HTTP_CONNECTIONS = 64;

  private static final String FSYNCS = "objects.storage.fsyncs";
  private static final String FLUSHED_BATCHES = "objects.flush.batch-size";
  private static final String FLUSH_LATENCY = "objects.flush.latency";

  @Option(
      names = "--duration",
      defaultValue = "10s",
      converter = DurationConverter.class,
      description =
          "Measured time per scenario and caller count (e.g. 10s, 500ms). Default: ${DEFAULT-VALUE}.")
  Duration duration;

  // on 2 cores shared with other work the JIT needs ~10 s before HTTP figures settle
  @Option(
      names = "--warmup",
      defaultValue = "5s",
      converter = DurationConverter.class,
      description = "Unmeasured warm-up before each measurement. Default: ${DEFAULT-VALUE}.")
  Duration warmup;

  @Option(
      names = "--max-ops",
      defaultValue = "5000000",
      description = "Upper bound of operations per measurement. Default: ${DEFAULT-VALUE}.")
  long maxOps;

  @Option(
      names = "--callers",
      split = ",",
      defaultValue = "1,16,64,256",
      description = "Concurrent callers for the one-object counter. Default: ${DEFAULT-VALUE}.")
  List<Integer> callers;

  @Option(
      names = "--objects",
      defaultValue = "1000",
      description = "Objects of the spread scenario. Default: ${DEFAULT-VALUE}.")
  int objects;

  @Option(
      names = "--spread-callers",
      split = ",",
      defaultValue = "64,256",
      description =
          "Concurrent callers of the spread scenario (64 is the spec's; more shows how the group commit scales). "
              + "Default: ${DEFAULT-VALUE}.")
  List<Integer> spreadCallers;

  @Option(
      names = "--data-dir",
      description =
          "Where the SQLite files go (a fresh temporary directory by default; deleted after).")
  Path dataDir;

  @Option(
      names = "--scenarios",
      split = ",",
      defaultValue = "counter,spread,http,http-noop",
      description =
          "Scenarios to run, any of: counter (with its baseline), baseline (alone), spread, http, http-noop,"
              + " http-spread, cluster-1, cluster, cluster-spread. "
              + "Default: ${DEFAULT-VALUE}.")
  List<String> scenarios;

  private final List<LoadRun.Measurement> results = new ArrayList<>();

  public static void main(String[] args) {
    System.exit(new CommandLine(new ObjectsBenchmark()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    boolean temporary = dataDir == null;
    Path dir =
        temporary ? Files.createTempDirectory("anteroom-bench") : Files.createDirectories(dataDir);
    Map<Integer, double[]> ratios = new LinkedHashMap<>();
    try {
      for (int n : callers) {
        double base = 0, runtime = 0;
        if (scenarios.contains("counter") || scenarios.contains("baseline")) {
          base = baseline(dir.resolve("baseline-" + n), n).opsPerSecond();
        }
        if (scenarios.contains("counter")) {
          runtime = counter(dir.resolve("counter-" + n), n).opsPerSecond();
          ratios.put(n, new double[] {runtime, base});
        }
      }
      if (scenarios.contains("spread")) spread(dir.resolve("spread"));
      // the HTTP layer alone first: it also warms the HTTP code for the counter over HTTP
      if (scenarios.contains("http-noop")) httpNoop();
      if (scenarios.contains("http")) http(dir.resolve("http"));
      if (scenarios.contains("http-spread")) httpSpread(dir.resolve("http-spread"));
      if (scenarios.contains("cluster-1")) cluster(dir.resolve("cluster-1"), 1, 1);
      if (scenarios.contains("cluster")) cluster(dir.resolve("cluster"), 1, 3);
      if (scenarios.contains("cluster-spread")) cluster(dir.resolve("cluster-spread"), objects, 3);
    } finally {
      if (temporary) deleteRecursively(dir);
    }
    System.out.println(table(results));
    ratios.forEach(
        (n, r) ->
            System.out.printf(
                Locale.ROOT,
                "- %d callers: runtime / baseline = %,.0f / %,.0f ops/s = **%.1fx**%n",
                n,
                r[0],
                r[1],
                r[0] / r[1]));
    return results.stream().anyMatch(m -> m.duplicates() > 0) ? 1 : 0;
  }

  private LoadRun.Measurement baseline(Path dir, int n) throws Exception {
    Files.createDirectories(dir);
    try (SqliteLockedCounter counter = new SqliteLockedCounter(dir.resolve("baseline.db"))) {
      return measure(
          "baseline: lock + SQLite commit, fsync per op", n, caller -> counter.next("counter"));
    }
  }

  private LoadRun.Measurement counter(Path dir, int n) throws Exception {
    try (Runtime runtime = Runtime.builder().dataDir(dir).build()) {
      Counter counter = runtime.namespace("counter", Counter.class, NaiveCounter::new).get("one");
      return measure("runtime: naive counter, one object", n, caller -> counter.next());
    }
  }

  private void spread(Path dir) throws Exception {
    for (int n : spreadCallers) {
      try (Runtime runtime = Runtime.builder().dataDir(dir.resolve("callers-" + n)).build()) {
        Namespace<Counter> namespace =
            runtime.namespace("counter", Counter.class, NaiveCounter::new);
        List<Counter> counters = new ArrayList<>(objects);
        for (int i = 0; i < objects; i++) counters.add(namespace.get("object-" + i));
        MetricRegistry metrics = runtime.metrics();
        // token: object index in the high bits, its number in the low 40: unique iff no object
        // repeats a number
        LoadRun.Call call =
            caller -> {
              int i = ThreadLocalRandom.current().nextInt(objects);
              return (long) i << 40 | counters.get(i).next();
            };
        warm(n, call);
        long fsyncs0 = metrics.meter(FSYNCS).getCount();
        long batches0 = metrics.histogram(FLUSHED_BATCHES).getCount();
        LoadRun.Measurement m =
            LoadRun.run(objects + " objects, random object per call", n, duration, maxOps, call);
        long fsyncs = metrics.meter(FSYNCS).getCount() - fsyncs0;
        long batches = metrics.histogram(FLUSHED_BATCHES).getCount() - batches0;
        double flushMillis = metrics.timer(FLUSH_LATENCY).getSnapshot().getMedian() / 1e6;
        record(
            m.withNotes(
                String.format(
                    Locale.ROOT,
                    "%,.0f fsyncs/s, %.1f batches per fsync, flush p50 %.1f ms",
                    fsyncs / m.seconds(),
                    fsyncs == 0 ? 0.0 : (double) batches / fsyncs,
                    flushMillis)));
      }
    }
  }

  private void http(Path dir) throws Exception {
    try (Runtime runtime = Runtime.builder().dataDir(dir).build()) {
      runtime.namespace("counter", Counter.class, NaiveCounter::new);
      try (HttpObjectServer server =
              HttpObjectServer.builder(runtime.transport())
                  .namespaces(runtime::hasNamespace)
                  .start();
          RemoteObjects remote =
              RemoteObjects.over(
                  HttpObjectTransport.builder(server.uri()).poolSize(HTTP_CONNECTIONS).build())) {
        Counter counter = remote.get("counter", Counter.class, "one");
        MetricRegistry metrics = runtime.metrics();
        LoadRun.Call call = caller -> counter.next();
        warm(HTTP_CONNECTIONS, call);
        long fsyncs0 = metrics.meter(FSYNCS).getCount();
        LoadRun.Measurement m =
            LoadRun.run(
                "HTTP: naive counter, remote stubs, " + HTTP_CONNECTIONS + " connections",
                HTTP_CONNECTIONS,
                duration,
                maxOps,
                call);
        long fsyncs = metrics.meter(FSYNCS).getCount() - fsyncs0;
        record(
            m.withNotes(
                String.format(
                    Locale.ROOT,
                    "%,.0f fsyncs/s, %.1f calls per fsync",
                    fsyncs / m.seconds(),
                    fsyncs == 0 ? 0.0 : (double) m.ops() / fsyncs)));
      }
    }
  }

  /** The single node over HTTP, {@code objects} objects, a random one per call. */
  private void httpSpread(Path dir) throws Exception {
    try (Runtime runtime = Runtime.builder().dataDir(dir).build()) {
      runtime.namespace("counter", Counter.class, NaiveCounter::new);
      try (HttpObjectServer server =
              HttpObjectServer.builder(runtime.transport())
                  .namespaces(runtime::hasNamespace)
                  .start();
          RemoteObjects remote =
              RemoteObjects.over(
                  HttpObjectTransport.builder(server.uri()).poolSize(HTTP_CONNECTIONS).build())) {
        List<Counter> counters = new ArrayList<>(objects);
        for (int i = 0; i < objects; i++)
          counters.add(remote.get("counter", Counter.class, "o" + i));
        spreadOver("HTTP: single node, " + objects + " objects", counters, runtime.metrics());
      }
    }
  }

  /**
   * {@code peers} coordinators of a replicated cluster in this JVM (SQLite copies, Raft log fsync
   * on), called over HTTP through a routing transport listing all of them; {@code count} objects.
   * One peer is the leader's own work (log, state machine, read index) without followers.
   */
  private void cluster(Path dir, int count, int peers) throws Exception {
    StringBuilder yaml = new StringBuilder("name: bench\nshards: 1\npeers:\n");
    for (int i = 0; i < peers; i++) {
      yaml.append("  - id: b")
          .append(i)
          .append("\n    raft: 127.0.0.1:")
          .append(freePort())
          .append("\n    http: http://127.0.0.1:")
          .append(freePort())
          .append('\n');
    }
    ClusterFile file = ClusterFile.parse(yaml.toString(), "bench cluster");
    List<ClusterNode> nodes = new ArrayList<>();
    try {
      for (var peer : file.config().peers()) {
        nodes.add(
            ClusterNode.builder(file, peer.id(), dir.resolve(peer.id()))
                .objects(r -> r.namespace("counter", Counter.class, NaiveCounter::new))
                .server(s -> s.namespaces(ns -> ns.equals("counter")))
                .events(line -> System.err.println("cluster: " + line))
                .start());
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (nodes.stream().noneMatch(n -> n.serves(0))) {
        if (System.nanoTime() > deadline) throw new IllegalStateException("no leader in 60 s");
        Thread.sleep(20); // polling for the election, before any measurement
      }
      try (RoutingObjectTransport transport =
          RoutingObjectTransport.builder(file.coordinators())
              .poolSize(HTTP_CONNECTIONS)
              .timeout(Duration.ofSeconds(30))
              .build()) {
        List<Counter> counters = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
          counters.add(
              Stubs.create(
                  Counter.class,
                  "counter",
                  ObjectId.fromName("counter", count == 1 ? "one" : "o" + i),
                  transport));
        }
        spreadOver(
            "cluster of "
                + peers
                + ": "
                + (count == 1 ? "naive counter, one object" : count + " objects"),
            counters,
            null);
      }
    } finally {
      for (ClusterNode n : nodes) n.close();
    }
  }

  private void spreadOver(String scenario, List<Counter> counters, MetricRegistry metrics)
      throws InterruptedException {
    int count = counters.size();
    // token: object index in the high bits, its number in the low 40: unique iff no object
    // repeats a number
    LoadRun.Call call =
        caller -> {
          int i = count == 1 ? 0 : ThreadLocalRandom.current().nextInt(count);
          return (long) i << 40 | counters.get(i).next();
        };
    warm(HTTP_CONNECTIONS, call);
    long fsyncs0 = metrics == null ? 0 : metrics.meter(FSYNCS).getCount();
    LoadRun.Measurement m = LoadRun.run(scenario, HTTP_CONNECTIONS, duration, maxOps, call);
    if (metrics != null) {
      long fsyncs = metrics.meter(FSYNCS).getCount() - fsyncs0;
      m =
          m.withNotes(
              String.format(
                  Locale.ROOT,
                  "%,.0f fsyncs/s, %.1f calls per fsync",
                  fsyncs / m.seconds(),
                  fsyncs == 0 ? 0.0 : (double) m.ops() / fsyncs));
    }
    record(m);
  }

  private static int freePort() throws IOException {
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /**
   * The HTTP round trip alone: server and transport in front of an in-memory counter with no
   * storage at all, so the figure is what the HTTP layer alone allows on this machine.
   */
  private void httpNoop() throws Exception {
    AtomicLong counter = new AtomicLong();
    ObjectTransport noStorage =
        (namespace, id, method, args) ->
            CompletableFuture.completedFuture(
                ByteBuffer.allocate(Long.BYTES).putLong(counter.getAndIncrement()).array());
    ObjectId id = ObjectId.fromName("noop", "one");
    try (HttpObjectServer server = HttpObjectServer.builder(noStorage).export("noop").start();
        HttpObjectTransport transport =
            HttpObjectTransport.builder(server.uri()).poolSize(HTTP_CONNECTIONS).build()) {
      measure(
          "HTTP round trip alone, no runtime, no storage",
          HTTP_CONNECTIONS,
          caller ->
              ByteBuffer.wrap(transport.call("noop", id, "next", new byte[0]).join()).getLong());
    }
  }

  /** A warm-up (discarded) then the measurement, on the same state; the result is recorded. */
  private LoadRun.Measurement measure(String scenario, int n, LoadRun.Call call)
      throws InterruptedException {
    warm(n, call);
    return record(LoadRun.run(scenario, n, duration, maxOps, call));
  }

  private void warm(int n, LoadRun.Call call) throws InterruptedException {
    if (!warmup.isZero()) {
      LoadRun.run("warm-up", n, warmup, maxOps, call);
    }
  }

  private LoadRun.Measurement record(LoadRun.Measurement m) {
    System.err.printf(
        Locale.ROOT,
        "%-55s %4d callers: %,10.0f ops/s  p50 %,7d us  p99 %,7d us  dup %d  cpu %.1f us/op  %s%n",
        m.scenario(),
        m.callers(),
        m.opsPerSecond(),
        m.p50Micros(),
        m.p99Micros(),
        m.duplicates(),
        m.cpuMicrosPerOp(),
        m.notes());
    results.add(m);
    return m;
  }

  static String table(List<LoadRun.Measurement> results) {
    StringBuilder sb = new StringBuilder();
    sb.append(
        "| scenario | callers | ops | ops/s | p50 (ms) | p99 (ms) | max (ms) | duplicates | CPU µs/op | notes |\n");
    sb.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for (LoadRun.Measurement m : results) {
      sb.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %,d | %,.0f | %.2f | %.2f | %.1f | %d | %.1f | %s |%n",
              m.scenario(),
              m.callers(),
              m.ops(),
              m.opsPerSecond(),
              m.p50Micros() / 1000.0,
              m.p99Micros() / 1000.0,
              m.maxMicros() / 1000.0,
              m.duplicates(),
              m.cpuMicrosPerOp(),
              m.notes()));
    }
    return sb.toString();
  }

  private static void deleteRecursively(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** Accepts {@code 10s}, {@code 500ms}, {@code 2m} or ISO-8601 ({@code PT10S}). */
  static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      String v = value.trim().toLowerCase(Locale.ROOT);
      try {
        if (v.startsWith("pt")) return Duration.parse(v);
        if (v.endsWith("ms"))
          return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
        if (v.endsWith("s"))
          return Duration.ofMillis(
              Math.round(Double.parseDouble(v.substring(0, v.length() - 1)) * 1000));
        if (v.endsWith("m"))
          return Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)) * 60);
      } catch (RuntimeException e) {
        throw new CommandLine.TypeConversionException(
            notADuration(value) + " (" + e.getMessage() + ")");
      }
      throw new CommandLine.TypeConversionException(notADuration(value));
    }

    private static String notADuration(String value) {
      return "not a duration: '" + value + "'; use e.g. 10s, 500ms, 2m or PT10S";
    }
  }
}
