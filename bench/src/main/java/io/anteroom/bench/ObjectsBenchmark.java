package io.anteroom.bench;

import com.codahale.metrics.MetricRegistry;
import io.anteroom.coordinator.CoordinatorServer;
import io.anteroom.coordinator.server.CoordinatorPeer;
import io.anteroom.host.ObjectCoordination;
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
import io.anteroom.objects.ratis.PeerOptions;
import io.anteroom.objects.ratis.PeerTls;
import io.anteroom.objects.ratis.ReplicatedStorageEngine;
import io.anteroom.testkit.TestCertificates;
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
 *       64 callers each; the cluster's leader and followers share this machine's cores. The cluster
 *       scenarios also report the Raft log entries committed per second and the calls each carried.
 *   <li>{@code ratis-reference}: the reference of the one-object cluster scenarios ({@link
 *       RatisReference}): three Ratis servers in this JVM with an in-memory counter, each call one
 *       Ratis request, no HTTP, runtime or SQLite: what replication alone costs on this machine.
 *   <li>{@code cluster-tls}, {@code cluster-spread-tls}: the same two loads with the peers' Raft
 *       ports speaking mutual TLS (a self-signed certificate per peer), as a cluster across
 *       machines must; the others run plain text, which only a loopback cluster may.
 *   <li>{@code cluster-processes}, {@code cluster-pinned}: the one-object load on three peers in
 *       separate processes ({@link ClusterPeerMain}); pinned, the leader and the callers share the
 *       first CPU and both followers the second, against {@code http-pinned}, the single node with
 *       server and callers on the first CPU. CPU per operation counts every process.
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
      names = "--warmup-max",
      converter = DurationConverter.class,
      description =
          "Warm up for at least --warmup and then on, in slices of 5 s, until the JIT compiled for"
              + " under 5 %% of a slice (the JVM's total compilation time), at most this long."
              + " Default: a fixed --warmup. The capped rooms scenarios always warm on until no"
              + " peer's compilers ran for 2 %% of a slice (at most this long, or 180 s), then"
              + " again once the peers are capped (5 to 90 s).")
  Duration warmupMax;

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
              + " http-spread, cluster-1, cluster, ratis-reference (Ratis alone: an in-memory counter"
              + " on three servers, no Anteroom), cluster-spread, cluster-tls, cluster-spread-tls"
              + " (the cluster's peers speaking mutual TLS, as across machines), http-pinned,"
              + " cluster-processes, cluster-pinned, rooms-1shard, rooms-3shards (100 rooms' draws on"
              + " 3 peers with 1 or 3 shards), rooms-1shard-capped, rooms-3shards-capped (the same,"
              + " each peer a process held to --peer-cpu of a CPU, as on three small machines). "
              + "Default: ${DEFAULT-VALUE}.")
  List<String> scenarios;

  @Option(
      names = "--peer-cpu",
      defaultValue = "0.3",
      description =
          "The CPU each peer process of the rooms-*-capped scenarios may use, as a fraction of one"
              + " CPU (a cgroup's CPU quota; needs root): three peers held to 0.3 each use 0.9 of"
              + " the machine's CPUs, the callers the rest. Default: ${DEFAULT-VALUE}.")
  double peerCpu;

  @Option(
      names = "--rooms-gateways",
      defaultValue = "1",
      description =
          "The gateways of the rooms-*-capped scenarios: each a link of its own to the three peers"
              + " (its own connections, "
              + HTTP_CONNECTIONS
              + " to each peer, as a gateway has) with "
              + HTTP_CONNECTIONS
              + " callers, so that the peers see more calls at once than one"
              + " gateway sends. Default: ${DEFAULT-VALUE}.")
  int roomsGateways;

  @Option(
      names = "--rounds",
      defaultValue = "1",
      description =
          "Runs the HTTP and cluster scenarios (http, cluster-1, cluster, http-spread,"
              + " cluster-spread) this many times, in this order in odd rounds and reversed in"
              + " even ones, after an unmeasured round 0 (the JIT's first pass), and prints each"
              + " round's cluster / single-node ratios and their median: ratios of neighbours in"
              + " time, so that the machine's drift over minutes cancels."
              + " Default: ${DEFAULT-VALUE}.")
  int rounds;

  /** The scenarios that {@code --rounds} repeats, in their listed order. */
  private static final List<String> ROUND_SCENARIOS =
      List.of(
          "http",
          "cluster-1",
          "cluster",
          "ratis-reference",
          "cluster-tls",
          "http-spread",
          "cluster-spread",
          "cluster-spread-tls",
          "rooms-1shard",
          "rooms-3shards",
          "rooms-1shard-capped",
          "rooms-3shards-capped");

  /**
   * The same scenarios without {@code --rounds}: every single-node scenario before every cluster
   * scenario, the order of the runs recorded before the option existed (so their commands still
   * measure what they measured).
   */
  private static final List<String> SINGLE_RUN_ORDER =
      List.of(
          "http",
          "http-spread",
          "cluster-1",
          "cluster",
          "ratis-reference",
          "cluster-spread",
          "cluster-tls",
          "cluster-spread-tls",
          "rooms-1shard",
          "rooms-3shards",
          "rooms-1shard-capped",
          "rooms-3shards-capped");

  private final List<LoadRun.Measurement> results = new ArrayList<>();

  /** Per round: scenario name to its confirmed ops/s (the HTTP and cluster scenarios). */
  private final List<Map<String, Double>> roundRates = new ArrayList<>();

  public static void main(String[] args) {
    System.exit(new CommandLine(new ObjectsBenchmark()).execute(args));
  }

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    if (rounds < 1) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--rounds " + rounds + ": use 1 (each scenario once) or more (alternating rounds)");
    }
    if (roomsGateways < 1) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--rooms-gateways " + roomsGateways + ": use 1 (one gateway's link) or more");
    }
    if (!(peerCpu > 0)) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--peer-cpu " + peerCpu + ": give the share of one CPU each peer may use, above 0");
    }
    if (warmupMax != null && warmupMax.compareTo(warmup) <= 0) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--warmup-max "
              + warmupMax.toMillis()
              + "ms is not above --warmup "
              + warmup.toMillis()
              + "ms: the warm-up runs for at least --warmup and at most --warmup-max; give a longer"
              + " --warmup-max, or leave it out for a fixed --warmup");
    }
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
      // with rounds, a round 0 first whose figures are dropped: otherwise the scenario that runs
      // first in this JVM is measured before the JIT has compiled the code all of them share
      for (int round = rounds == 1 ? 1 : 0; round <= rounds; round++) {
        List<String> order = new ArrayList<>(rounds == 1 ? SINGLE_RUN_ORDER : ROUND_SCENARIOS);
        if (round % 2 == 0) java.util.Collections.reverse(order);
        int firstResult = results.size();
        Map<String, Double> rates = new LinkedHashMap<>();
        for (String scenario : order) {
          if (!scenarios.contains(scenario)) continue;
          Path d = dir.resolve(rounds == 1 ? scenario : scenario + "-" + round);
          int before = results.size();
          switch (scenario) {
            case "http" -> http(d);
            case "http-spread" -> httpSpread(d);
            case "cluster-1" -> cluster(d, 1, 1, false);
            case "cluster" -> cluster(d, 1, 3, false);
            case "cluster-tls" -> cluster(d, 1, 3, true);
            case "ratis-reference" -> ratisReference(d);
            case "cluster-spread" -> cluster(d, objects, 3, false);
            case "cluster-spread-tls" -> cluster(d, objects, 3, true);
            case "rooms-1shard" -> rooms(d, 1);
            case "rooms-3shards" -> rooms(d, 3);
            case "rooms-1shard-capped" -> roomsCapped(d, 1);
            case "rooms-3shards-capped" -> roomsCapped(d, 3);
            default -> throw new IllegalStateException("not a round scenario: " + scenario);
          }
          rates.put(scenario, results.get(before).opsPerSecond());
        }
        if (round == 0) {
          results.subList(firstResult, results.size()).clear();
          System.err.println("round 0 (the JIT's warm-up pass) done; its figures are dropped");
        } else {
          roundRates.add(rates);
        }
      }
      if (scenarios.contains("http-pinned")) httpPinned(dir.resolve("http-pinned"));
      if (scenarios.contains("cluster-processes"))
        clusterProcesses(dir.resolve("cluster-processes"), false);
      if (scenarios.contains("cluster-pinned"))
        clusterProcesses(dir.resolve("cluster-pinned"), true);
    } finally {
      if (temporary) deleteRecursively(dir);
    }
    System.out.println(table(results));
    if (rounds > 1) System.out.println(roundRatios(roundRates));
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
    http(dir, null);
  }

  /**
   * With {@code cpu}: warmed on every CPU, then this whole JVM (server and callers) pinned to
   * {@code cpu}, warmed a third as long again and measured there.
   */
  private void http(Path dir, Integer cpu) throws Exception {
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
        long fsyncs0;
        LoadRun.Measurement m;
        try {
          if (cpu != null) {
            pin(ProcessHandle.current().pid(), cpu);
            LoadRun.run("warm-up", HTTP_CONNECTIONS, warmup.dividedBy(3), maxOps, call);
          }
          fsyncs0 = metrics.meter(FSYNCS).getCount();
          m =
              LoadRun.run(
                  cpu == null
                      ? "HTTP: naive counter, remote stubs, " + HTTP_CONNECTIONS + " connections"
                      : "single node over HTTP, one object, server and callers on CPU " + cpu,
                  HTTP_CONNECTIONS,
                  duration,
                  maxOps,
                  call);
        } finally {
          if (cpu != null) pin(ProcessHandle.current().pid(), null);
        }
        record(
            m.withNotes(perCall(m, metrics.meter(FSYNCS).getCount() - fsyncs0, "fsyncs", "fsync")));
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
   * on) serving {@code count} counters, called over HTTP through a routing transport listing all of
   * them. One peer is the leader's own work (log, state machine, read index) without followers.
   * With {@code tls}, their Raft ports speak mutual TLS ({@link PeerTls}) with a self-signed
   * certificate per peer, each trusting all three, as a cluster across machines must
   * (docs/cluster.md).
   */
  private void cluster(Path dir, int count, int peers, boolean tls) throws Exception {
    ClusterFile file = ClusterFile.parse(clusterYaml(peers, "b"), "bench cluster");
    Map<String, PeerOptions> options = peerOptions(file, dir.resolve("tls"), tls);
    List<ClusterNode> nodes = new ArrayList<>();
    try {
      for (var peer : file.config().peers()) {
        nodes.add(
            ClusterNode.builder(file, peer.id(), dir.resolve(peer.id()))
                .options(options.get(peer.id()))
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
        ReplicatedStorageEngine leader =
            nodes.stream().filter(n -> n.serves(0)).findFirst().orElseThrow().peer().engine(0);
        spreadOver(
            "cluster of "
                + peers
                + (tls ? " (mutual TLS)" : "")
                + ": "
                + (count == 1 ? "naive counter, one object" : count + " objects"),
            counters,
            null,
            leader::commitIndex);
      }
    } finally {
      for (ClusterNode n : nodes) n.close();
    }
  }

  /** Rooms of the {@code rooms-*} scenarios. */
  static final int ROOMS = 100;

  /**
   * {@value #ROOMS} rooms on the room objects of a 3-peer replicated coordinator ({@code anteroom
   * coordinator --cluster}'s assembly: {@link CoordinatorPeer#start}, SQLite copies, default Raft
   * options, in this JVM) with {@code shards} shards; once every shard is served by its preferred
   * leader (with 3 shards, three different peers), 64 callers draw from the Anywhere counter of a
   * random room through a gateway's link ({@link ObjectCoordination#remote} over all three peers):
   * each call one confirmed counter grant.
   */
  private void rooms(Path dir, int shards) throws Exception {
    ClusterFile file =
        ClusterFile.parse(
            clusterYaml(3, "s").replace("shards: 1\n", "shards: " + shards + "\n"), "rooms");
    List<ClusterNode> nodes = new ArrayList<>();
    try {
      for (var peer : file.config().peers()) {
        var uri = file.http().get(peer.id());
        nodes.add(
            CoordinatorPeer.start(
                CoordinatorPeer.Options.builder(
                        file,
                        peer.id(),
                        dir.resolve(peer.id()),
                        CoordinatorServer.Options.builder(uri.getHost(), uri.getPort()).build())
                    .peer(PeerOptions.defaults())
                    .events(line -> System.err.println("rooms: " + line))
                    .build()));
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
      while (!spread(nodes, file, shards)) {
        if (System.nanoTime() > deadline)
          throw new IllegalStateException("the shards' preferred leaders do not serve in 120 s");
        Thread.sleep(50); // polling for the elections and hand-overs, before any measurement
      }
      ObjectCoordination link =
          ObjectCoordination.remote(file.coordinators(), Duration.ofSeconds(30), null, List.of());
      try {
        List<Counter> draws = roomDraws(link);
        spreadOver(
            "rooms: " + ROOMS + " rooms, confirmed draws, 3 peers, " + shards + " shard(s)",
            draws,
            null,
            () -> {
              long entries = 0; // every shard's log, at its leader now
              for (int s = 0; s < shards; s++) {
                for (ClusterNode n : nodes) {
                  if (n.serves(s)) {
                    entries += n.peer().engine(s).commitIndex();
                    break;
                  }
                }
              }
              return entries;
            });
      } finally {
        link.close();
      }
    } finally {
      for (ClusterNode n : nodes) n.close();
    }
  }

  /**
   * {@link #rooms}, with each peer a process of its own ({@link ClusterPeerMain} {@code rooms})
   * held to {@link #peerCpu} of a CPU by a cgroup's CPU quota: three small machines on one, so that
   * three shards' leaders do not take each other's CPU as they do in {@code rooms-3shards} (where
   * the three peers share this machine's two CPUs with the callers). The callers' JVM is not held.
   * Skipped, with the reason printed, where no cgroup CPU controller can be written (not root).
   */
  private void roomsCapped(Path dir, int shards) throws Exception {
    CpuCaps caps = CpuCaps.open(peerCpu);
    if (caps == null) {
      System.err.println(
          "rooms-"
              + shards
              + "shard(s)-capped: skipped, no writable cgroup CPU controller (needs root and"
              + " /sys/fs/cgroup/cpu or cgroup v2's cpu.max)");
      return;
    }
    Files.createDirectories(dir);
    Path clusterYaml =
        Files.writeString(
            dir.resolve("cluster.yaml"),
            clusterYaml(3, "c").replace("shards: 1\n", "shards: " + shards + "\n"));
    ClusterFile file = ClusterFile.load(clusterYaml);
    Map<String, Process> peers = new LinkedHashMap<>();
    Map<Integer, String> leads = new java.util.concurrent.ConcurrentHashMap<>();
    Map<String, Integer> statusPorts = new java.util.concurrent.ConcurrentHashMap<>();
    java.util.concurrent.atomic.AtomicBoolean stopping =
        new java.util.concurrent.atomic.AtomicBoolean();
    List<String> ids = file.config().peers().stream().map(p -> p.id()).toList();
    try {
      for (String id : ids) {
        peers.put(
            id,
            startPeer(
                id,
                List.of(clusterYaml.toString(), id, dir.resolve(id).toString(), "rooms"),
                stopping,
                line -> {
                  int at = line.indexOf(ClusterPeerMain.STATUS);
                  if (at >= 0)
                    statusPorts.put(
                        id,
                        Integer.parseInt(
                            line.substring(at + ClusterPeerMain.STATUS.length()).strip()));
                  for (int s = 0; s < shards; s++) {
                    if (line.contains(ClusterNode.NO_LONGER_LEADS + s)) leads.remove(s, id);
                    else if (line.contains(ClusterNode.LEADS + s)) leads.put(s, id);
                  }
                }));
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
      while (!ledByPreferred(leads, ids, shards)) {
        if (System.nanoTime() > deadline)
          throw new IllegalStateException(
              "the shards' preferred leaders do not lead in 180 s: " + leads);
        Thread.sleep(100); // polling for the elections and hand-overs, before any measurement
      }
      int gateways = roomsGateways;
      int callers = gateways * HTTP_CONNECTIONS;
      List<ObjectCoordination> links = new ArrayList<>();
      for (int g = 0; g < gateways; g++) {
        links.add(
            ObjectCoordination.remote(
                file.coordinators(), Duration.ofSeconds(30), null, List.of()));
      }
      try {
        // each link is told its rooms, as each gateway is
        List<List<Counter>> drawsByGateway = links.stream().map(l -> roomDraws(l)).toList();
        LoadRun.Call call =
            caller -> {
              List<Counter> draws = drawsByGateway.get(caller % gateways);
              int i = ThreadLocalRandom.current().nextInt(draws.size());
              return (long) i << 40 | draws.get(i).next();
            };
        // uncapped first, until the peers' compilers are quiet: the peers' JIT compiles as on
        // machines that have run for a while (held to a share of a CPU, the compiler threads would
        // take minutes of the measurement)
        warmPeers(
            peers,
            call,
            "warm-up",
            warmup,
            warmupMax != null ? warmupMax : max(warmup, Duration.ofSeconds(180)),
            callers);
        peers.forEach((id, p) -> caps.hold(id, p.pid()));
        // and capped, until quiet again: held to their share, the peers' compilers can start over
        // (32 % of the peers' CPU in one window measured right after 5 s capped, 2026-11-30)
        warmPeers(
            peers, call, "warm-up, capped", Duration.ofSeconds(5), Duration.ofSeconds(90), callers);
        long jit0 = peersCompilerNanos(peers);
        Map<String, Long> cpu0 = cpuByPeer(peers);
        long entries0 = committedEntries(statusPorts, shards);
        LoadRun.Measurement m =
            LoadRun.run(
                "rooms: "
                    + ROOMS
                    + " rooms, confirmed draws, 3 peer processes held to "
                    + peerCpu
                    + " CPU each, "
                    + shards
                    + " shard(s)"
                    + (gateways > 1 ? ", " + gateways + " gateways" : ""),
                callers,
                duration,
                maxOps,
                call);
        Map<String, Long> cpu1 = cpuByPeer(peers);
        long jit = peersCompilerNanos(peers) - jit0;
        long entries = committedEntries(statusPorts, shards) - entries0;
        long peersCpu =
            cpu1.values().stream().mapToLong(Long::longValue).sum()
                - cpu0.values().stream().mapToLong(Long::longValue).sum();
        record(
            m.withNotes(
                perPeerCpu(cpu0, cpu1, m.ops(), duration, shards, new java.util.TreeMap<>(leads))
                    + String.format(
                        Locale.ROOT,
                        "; %d log entries over the shards, %.1f draws per entry; the peers' JIT"
                            + " compilers %.1f%% of their CPU",
                        entries,
                        m.ops() / (double) Math.max(1, entries),
                        100.0 * jit / Math.max(1, peersCpu))));
      } finally {
        links.forEach(ObjectCoordination::close);
      }
    } finally {
      stopPeers(peers.values(), stopping);
      caps.close(); // the groups, once their processes are gone
    }
  }

  /**
   * {@value #ROOMS} rooms configured through {@code link} (limits far above the load), and for each
   * a call drawing one confirmed number from its Anywhere counter (unique per room: the minute in
   * the high bits). A draw for a minute the counter has left (a call sent just before a minute's
   * end, answered after another caller's draw of the next minute) is refused with no number; it
   * draws again for the next minute, as a gateway's next request would.
   */
  private static List<Counter> roomDraws(ObjectCoordination link) {
    List<Counter> draws = new ArrayList<>(ROOMS);
    for (int i = 0; i < ROOMS; i++) {
      String room = "room" + i;
      link.configure(
              io.anteroom.room.RoomConfig.builder(room)
                  .totalActiveUsers(1_000_000)
                  .newUsersPerMinute(1_000_000)
                  .sessionDurationMinutes(10)
                  .build())
          .toCompletableFuture()
          .join();
      draws.add(
          () -> {
            long minute = java.time.Instant.now().getEpochSecond() / 60;
            for (int attempt = 0; ; attempt++) {
              io.anteroom.room.Grant g =
                  link.take(io.anteroom.room.CounterKey.anywhere(room, minute), 1L << 40, null)
                      .toCompletableFuture()
                      .join();
              if (g.granted()) return (minute % 1024) << 30 | g.number(); // unique per room
              // refused with no number: the counter is in a later minute already
              if (g.number() >= 0 || attempt > 0)
                throw new IllegalStateException("not granted: " + g);
              minute = Math.max(minute + 1, java.time.Instant.now().getEpochSecond() / 60);
            }
          });
    }
    return draws;
  }

  /** Whether each shard is led, with several shards each by its preferred leader. */
  private static boolean ledByPreferred(Map<Integer, String> leads, List<String> ids, int shards) {
    for (int s = 0; s < shards; s++) {
      String leader = leads.get(s);
      if (leader == null) return false;
      var preferred = ClusterNode.preferredLeader(shards, ids, s);
      if (preferred.isPresent() && !preferred.get().equals(leader)) return false;
    }
    return true;
  }

  /** Whether every shard is served, with several shards each by its preferred leader. */
  private static boolean spread(List<ClusterNode> nodes, ClusterFile file, int shards) {
    for (int s = 0; s < shards; s++) {
      var preferred = ClusterNode.preferredLeader(nodes.getFirst().peer(), s);
      boolean served = false;
      for (ClusterNode n : nodes) {
        if (n.serves(s) && preferred.map(p -> p.equals(n.peer().id())).orElse(true)) served = true;
      }
      if (!served) return false;
    }
    return true;
  }

  /**
   * The reference of the one-object cluster scenarios ({@link RatisReference}): the leanest
   * replicated counter on three Ratis servers in this JVM, each call one Ratis request.
   */
  private void ratisReference(Path dir) throws Exception {
    ClusterFile file = ClusterFile.parse(clusterYaml(3, "r"), "ratis reference");
    try (RatisReference reference = new RatisReference(dir, file.config())) {
      Counter counter = reference.counter();
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (true) {
        try {
          counter.next(); // the client finds the leader once one is elected
          break;
        } catch (RuntimeException e) {
          if (System.nanoTime() > deadline) throw new IllegalStateException("no leader in 60 s", e);
        }
      }
      spreadOver(
          "Ratis alone (reference): in-memory counter, 3 servers, one request per call",
          List.of(counter),
          null,
          reference::commitIndex);
    }
  }

  /**
   * Each peer's options: the defaults (plain text, as only a loopback cluster may run), or with
   * {@code tls} a self-signed certificate per peer in {@code certs} and a trust file of all of
   * them, as {@code --tls-cert}, {@code --tls-key} and {@code --peer-trust} give a peer.
   */
  static Map<String, PeerOptions> peerOptions(ClusterFile file, Path certs, boolean tls)
      throws IOException, InterruptedException {
    Map<String, PeerOptions> options = new LinkedHashMap<>();
    if (!tls) {
      file.config().peers().forEach(peer -> options.put(peer.id(), PeerOptions.defaults()));
      return options;
    }
    Map<String, TestCertificates.Pem> pems = new LinkedHashMap<>();
    StringBuilder trusted = new StringBuilder();
    for (var peer : file.config().peers()) {
      TestCertificates.Pem pem = TestCertificates.create(certs, peer.id());
      pems.put(peer.id(), pem);
      trusted.append(Files.readString(pem.certificate()));
    }
    Path trust = Files.writeString(certs.resolve("trusted.pem"), trusted);
    pems.forEach(
        (id, pem) ->
            options.put(
                id,
                PeerOptions.builder()
                    .tls(PeerTls.load(pem.certificate(), pem.privateKey(), trust))
                    .build()));
    return options;
  }

  private void spreadOver(String scenario, List<Counter> counters, MetricRegistry metrics)
      throws InterruptedException {
    spreadOver(scenario, counters, metrics, null);
  }

  /**
   * The single node over HTTP, one object, with this whole JVM (server and callers) on the first
   * CPU only: the baseline of {@code cluster-pinned}, whose leader and callers get that same CPU.
   */
  private void httpPinned(Path dir) throws Exception {
    http(dir, cpus().get(0));
  }

  /**
   * Three peers as separate processes ({@link ClusterPeerMain}), the naive counter on one object,
   * 64 callers in this JVM. With {@code pinned}, once a leader is elected, the leader and this JVM
   * run on the first CPU and both followers on the second, so the followers' work takes nothing
   * from the leader's CPU (as on three machines, but with both followers sharing one CPU). CPU per
   * operation counts this JVM and the three peers.
   */
  /**
   * The start of a peer process's command line: native access for SQLite, and this JVM's choice of
   * {@code sun.misc.Unsafe} for Netty ({@code unsafeMemoryAccess}, null when none was made), so
   * that the peers run as this JVM does, and as {@code bin/anteroom} runs a coordinator.
   */
  static List<String> peerCommand(String java, String unsafeMemoryAccess, String classPath) {
    List<String> command = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED"));
    if (unsafeMemoryAccess != null)
      command.add("--sun-misc-unsafe-memory-access=" + unsafeMemoryAccess);
    command.addAll(List.of("-cp", classPath, ClusterPeerMain.class.getName()));
    return command;
  }

  private void clusterProcesses(Path dir, boolean pinned) throws Exception {
    List<Integer> cpus = cpus();
    Files.createDirectories(dir);
    Path clusterYaml = Files.writeString(dir.resolve("cluster.yaml"), clusterYaml(3, "p"));
    ClusterFile file = ClusterFile.load(clusterYaml);
    Map<String, Process> peers = new LinkedHashMap<>();
    Map<String, String> leads = new java.util.concurrent.ConcurrentHashMap<>();
    java.util.concurrent.atomic.AtomicBoolean stopping =
        new java.util.concurrent.atomic.AtomicBoolean();
    try {
      for (var peer : file.config().peers()) {
        peers.put(
            peer.id(),
            startPeer(
                peer.id(),
                List.of(clusterYaml.toString(), peer.id(), dir.resolve(peer.id()).toString()),
                stopping,
                line -> {
                  if (line.contains(ClusterNode.LEADS + 0)) leads.put("0", peer.id());
                }));
      }
      try (RoutingObjectTransport transport =
          RoutingObjectTransport.builder(file.coordinators())
              .poolSize(HTTP_CONNECTIONS)
              .timeout(Duration.ofSeconds(30))
              .build()) {
        Counter counter =
            Stubs.create(Counter.class, "counter", ObjectId.fromName("counter", "one"), transport);
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (true) {
          try {
            counter.next(); // polling for the election, before any measurement
            break;
          } catch (RuntimeException notYet) {
            if (System.nanoTime() > deadline) throw notYet;
            Thread.sleep(100);
          }
        }
        String leader = leads.get("0");
        if (leader == null) throw new IllegalStateException("a call was served, but no peer leads");
        LoadRun.Call call = caller -> counter.next();
        warm(HTTP_CONNECTIONS, call); // on every CPU: four JVMs compile the same code
        try {
          if (pinned) {
            pin(ProcessHandle.current().pid(), cpus.get(0));
            for (var e : peers.entrySet())
              pin(e.getValue().pid(), e.getKey().equals(leader) ? cpus.get(0) : cpus.get(1));
          }
          if (pinned) LoadRun.run("warm-up", HTTP_CONNECTIONS, warmup.dividedBy(3), maxOps, call);
          long cpu0 = childrenCpuNanos(peers.values());
          LoadRun.Measurement m =
              LoadRun.run(
                  "cluster of 3 processes"
                      + (pinned
                          ? ", leader and callers on CPU "
                              + cpus.get(0)
                              + ", followers on CPU "
                              + cpus.get(1)
                          : "")
                      + ": one object",
                  HTTP_CONNECTIONS,
                  duration,
                  maxOps,
                  call);
          double children = (childrenCpuNanos(peers.values()) - cpu0) / 1e9;
          if (!leader.equals(leads.get("0")))
            throw new IllegalStateException("the leader changed during the measurement");
          record(
              new LoadRun.Measurement(
                  m.scenario(),
                  m.callers(),
                  m.ops(),
                  m.seconds(),
                  m.p50Micros(),
                  m.p99Micros(),
                  m.maxMicros(),
                  m.duplicates(),
                  m.cpuSeconds() + children,
                  String.format(
                      Locale.ROOT,
                      "CPU of the callers' JVM and the three peers; the peers' alone %.1f us/op",
                      children * 1e6 / Math.max(1, m.ops()))));
        } finally {
          if (pinned) pin(ProcessHandle.current().pid(), null);
        }
      }
    } finally {
      stopPeers(peers.values(), stopping);
    }
  }

  /**
   * Starts a peer process ({@link ClusterPeerMain} with {@code args}): each line of its output goes
   * to {@code onLine}, and its errors are printed until {@code stopping} (a stopping cluster's are
   * expected).
   */
  private static Process startPeer(
      String id,
      List<String> args,
      java.util.concurrent.atomic.AtomicBoolean stopping,
      java.util.function.Consumer<String> onLine)
      throws IOException {
    List<String> command =
        peerCommand(
            ProcessHandle.current().info().command().orElse("java"),
            System.getProperty("sun.misc.unsafe.memory.access"),
            System.getProperty("java.class.path"));
    command.addAll(args);
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    Thread.ofPlatform()
        .daemon()
        .start(
            () -> {
              try (var lines = p.inputReader()) {
                String line;
                while ((line = lines.readLine()) != null) {
                  onLine.accept(line);
                  if (!stopping.get() && (line.contains("ERROR") || line.contains("Exception")))
                    System.err.println(id + ": " + line);
                }
              } catch (IOException gone) {
                // the peer exited
              }
            });
    return p;
  }

  /** Stops the peer processes: each exits when its standard input closes. */
  private static void stopPeers(
      java.util.Collection<Process> peers, java.util.concurrent.atomic.AtomicBoolean stopping)
      throws IOException, InterruptedException {
    stopping.set(true);
    for (Process p : peers) {
      p.getOutputStream().close();
    }
    for (Process p : peers) {
      if (!p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) p.destroyForcibly().waitFor();
    }
  }

  /**
   * The log entries committed so far over every shard: each shard's highest commit index among the
   * peers (their {@code /metrics}, {@code anteroom_cluster_shard_commit_index}).
   */
  private static long committedEntries(Map<String, Integer> statusPorts, int shards)
      throws IOException, InterruptedException {
    long[] highest = new long[shards];
    try (var http = java.net.http.HttpClient.newHttpClient()) {
      for (int port : statusPorts.values()) {
        String metrics =
            http.send(
                    java.net.http.HttpRequest.newBuilder(
                            java.net.URI.create("http://127.0.0.1:" + port + "/metrics"))
                        .build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString())
                .body();
        for (String line : metrics.split("\n")) {
          if (!line.startsWith("anteroom_cluster_shard_commit_index{")) continue;
          int shardAt = line.indexOf("shard=\"");
          int shard = Integer.parseInt(line.substring(shardAt + 7, line.indexOf('"', shardAt + 7)));
          long index = (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
          if (shard < shards) highest[shard] = Math.max(highest[shard], index);
        }
      }
    }
    return java.util.Arrays.stream(highest).sum();
  }

  /** Each peer process's CPU time so far, by peer id. */
  private static Map<String, Long> cpuByPeer(Map<String, Process> peers) {
    Map<String, Long> cpu = new LinkedHashMap<>();
    peers.forEach((id, p) -> cpu.put(id, cpuNanos(p)));
    return cpu;
  }

  /** A child process's CPU time so far. */
  private static long cpuNanos(Process p) {
    return p.info().totalCpuDuration().orElseThrow().toNanos();
  }

  /**
   * The capped rooms scenario's CPU notes: the peers' CPU per draw, each peer's (and its share of
   * its cap), and with one shard the ceiling of as many shards as peers at these costs: if each of
   * the {@code n} peers then led one shard and followed the others at the same CPU per draw as the
   * one-shard leader ({@code L}) and followers ({@code F1}, {@code F2}, ...), the peers held to
   * their cap could draw at most {@code n × cap / (L + F1 + F2 + ...)} per second. A bound, not a
   * forecast: the shards split the group commit, and three shards cost more per draw than one in
   * every run measured (docs/benchmarks.md, runs E and F).
   */
  private String perPeerCpu(
      Map<String, Long> before,
      Map<String, Long> after,
      long ops,
      Duration window,
      int shards,
      Map<Integer, String> leads) {
    double draws = Math.max(1, ops);
    double seconds = window.toNanos() / 1e9;
    double total = 0;
    StringBuilder each = new StringBuilder();
    for (String id : after.keySet()) {
      double nanos = after.get(id) - before.get(id);
      total += nanos;
      each.append(
          String.format(
              Locale.ROOT,
              "%s%s %.0f us/draw (%.0f%% of its cap)",
              each.isEmpty() ? "" : ", ",
              id,
              nanos / 1e3 / draws,
              100 * nanos / 1e9 / seconds / peerCpu));
    }
    String notes =
        String.format(
            Locale.ROOT,
            "the peers' CPU %.1f us/draw: %s; leaders %s",
            total / 1e3 / draws,
            each,
            leads);
    if (shards == 1) {
      double ceiling = after.size() * peerCpu * 1e9 / (total / draws);
      notes +=
          String.format(
              Locale.ROOT,
              "; %d shards at these costs per draw: at most %.0f draws/s, %.2fx this run",
              after.size(),
              ceiling,
              ceiling / (draws / seconds));
    }
    return notes;
  }

  private static long childrenCpuNanos(java.util.Collection<Process> processes) {
    long total = 0;
    for (Process p : processes) {
      total += cpuNanos(p);
    }
    return total;
  }

  /** The CPUs this process could run on when it started (before any pinning). */
  private static final int ALL_CPUS = java.lang.Runtime.getRuntime().availableProcessors();

  /** The CPUs this process may run on (at least two, for the pinned scenarios). */
  private static List<Integer> cpus() {
    int n = ALL_CPUS;
    if (n < 2) throw new IllegalStateException("the pinned scenarios need two CPUs, found " + n);
    List<Integer> cpus = new ArrayList<>();
    for (int i = 0; i < n; i++) cpus.add(i);
    return cpus;
  }

  /** Pins every thread of {@code pid} to {@code cpu}; {@code null}: to every CPU again. */
  private static void pin(long pid, Integer cpu) throws IOException, InterruptedException {
    String list =
        cpu != null
            ? cpu.toString()
            : "0-" + (java.lang.Runtime.getRuntime().availableProcessors() - 1);
    Process p =
        new ProcessBuilder("taskset", "-a", "-p", "-c", list, Long.toString(pid))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    if (p.waitFor() != 0) throw new IllegalStateException("taskset failed for process " + pid);
  }

  /**
   * {@code logIndex}, if given, is the cluster leader's commit index: the note then says how many
   * Raft log entries the measurement committed per second and how many calls each carried.
   */
  private void spreadOver(
      String scenario,
      List<Counter> counters,
      MetricRegistry metrics,
      java.util.function.LongSupplier logIndex)
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
    long index0 = logIndex == null ? 0 : logIndex.getAsLong();
    LoadRun.Measurement m = LoadRun.run(scenario, HTTP_CONNECTIONS, duration, maxOps, call);
    if (logIndex != null) {
      m = m.withNotes(perCall(m, logIndex.getAsLong() - index0, "log entries", "entry"));
    }
    if (metrics != null) {
      m = m.withNotes(perCall(m, metrics.meter(FSYNCS).getCount() - fsyncs0, "fsyncs", "fsync"));
    }
    record(m);
  }

  /** "{@code count} things per second, calls per thing" over measurement {@code m}. */
  private static String perCall(LoadRun.Measurement m, long count, String things, String thing) {
    return String.format(
        Locale.ROOT,
        "%,.0f %s/s, %.1f calls per %s",
        count / m.seconds(),
        things,
        count == 0 ? 0.0 : (double) m.ops() / count,
        thing);
  }

  /** A one-shard cluster file of {@code peers} peers on free loopback ports, ids prefix + index. */
  static String clusterYaml(int peers, String prefix) throws IOException {
    StringBuilder yaml = new StringBuilder("name: bench\nshards: 1\npeers:\n");
    int[] ports = freePorts(2 * peers);
    for (int i = 0; i < peers; i++) {
      yaml.append("  - id: ")
          .append(prefix)
          .append(i)
          .append("\n    raft: 127.0.0.1:")
          .append(ports[2 * i])
          .append("\n    http: http://127.0.0.1:")
          .append(ports[2 * i + 1])
          .append('\n');
    }
    return yaml.toString();
  }

  /**
   * {@code n} distinct free loopback ports: all sockets are held open until every port is taken
   * (one socket at a time, the kernel may hand out a port just closed again: a run once ended in
   * "address appears twice" after 40 clusters).
   */
  static int[] freePorts(int n) throws IOException {
    List<java.net.ServerSocket> held = new ArrayList<>(n);
    try {
      int[] ports = new int[n];
      for (int i = 0; i < n; i++) {
        java.net.ServerSocket s =
            new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
        held.add(s);
        ports[i] = s.getLocalPort();
      }
      return ports;
    } finally {
      for (java.net.ServerSocket s : held) s.close();
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
    var jit = java.lang.management.ManagementFactory.getCompilationMXBean();
    if (warmupMax == null // call() refused a --warmup-max not above --warmup
        || jit == null
        || !jit.isCompilationTimeMonitoringSupported()) {
      if (!warmup.isZero()) {
        LoadRun.run("warm-up", n, warmup, maxOps, call);
      }
      return;
    }
    JitWarmUp rule = new JitWarmUp(warmup, warmupMax, Duration.ofSeconds(5), 0.05);
    Duration elapsed = Duration.ZERO;
    long compiled;
    do {
      long before = jit.getTotalCompilationTime();
      LoadRun.run("warm-up", n, rule.slice(), maxOps, call);
      compiled = jit.getTotalCompilationTime() - before;
      elapsed = elapsed.plus(rule.slice());
    } while (!rule.done(elapsed, compiled));
    System.err.printf(
        Locale.ROOT,
        "warm-up: %d s, the JIT compiled for %d ms in its last %d s%n",
        elapsed.toSeconds(),
        compiled,
        rule.slice().toSeconds());
  }

  /**
   * A warm-up of the capped scenarios' peers: at least {@code min}, then on in slices of 5 s until
   * no peer's JIT compilers ran for 2 % of a slice ({@link CompilerThreads}), at most {@code max}.
   * Warming by the benchmark JVM's own compilation time would say nothing of the peers': with a
   * fixed 20 s their compilers still took up to 42 % of a peer's half CPU in the measurement
   * (2026-11-30).
   */
  private void warmPeers(
      Map<String, Process> peers,
      LoadRun.Call call,
      String label,
      Duration min,
      Duration max,
      int callers)
      throws InterruptedException {
    JitWarmUp rule = new JitWarmUp(min, max, Duration.ofSeconds(5), 0.02);
    Duration elapsed = Duration.ZERO;
    long busiestMs;
    do {
      Map<String, Long> before = new LinkedHashMap<>();
      peers.forEach((id, p) -> before.put(id, compilerNanos(p)));
      LoadRun.run(label, callers, rule.slice(), maxOps, call);
      busiestMs = 0;
      for (var e : peers.entrySet()) {
        busiestMs =
            Math.max(busiestMs, (compilerNanos(e.getValue()) - before.get(e.getKey())) / 1_000_000);
      }
      elapsed = elapsed.plus(rule.slice());
    } while (!rule.done(elapsed, busiestMs));
    System.err.printf(
        Locale.ROOT,
        "%s: %d s, the busiest peer's JIT compiled for %d ms in the last %d s%n",
        label,
        elapsed.toSeconds(),
        busiestMs,
        rule.slice().toSeconds());
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  /**
   * A peer's compiler threads' CPU so far; 0 where /proc cannot tell (the rule then ends early).
   */
  private static long compilerNanos(Process p) {
    return CompilerThreads.cpuNanos(p.pid()).orElse(0);
  }

  private static long peersCompilerNanos(Map<String, Process> peers) {
    return peers.values().stream().mapToLong(ObjectsBenchmark::compilerNanos).sum();
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

  /**
   * Each round's ratios of the cluster scenarios to the single node's (one object: {@code
   * cluster-1}, {@code cluster} and {@code cluster-tls} to {@code http}; many objects: {@code
   * cluster-spread} and {@code cluster-spread-tls} to {@code http-spread}), and the median of each
   * over the rounds.
   */
  static String roundRatios(List<Map<String, Double>> rounds) {
    List<String[]> pairs =
        List.of(
            new String[] {"cluster-1", "http"},
            new String[] {"cluster", "http"},
            new String[] {"cluster-tls", "http"},
            new String[] {"ratis-reference", "http"},
            new String[] {"cluster-spread", "http-spread"},
            new String[] {"cluster-spread-tls", "http-spread"},
            new String[] {"rooms-3shards", "rooms-1shard"});
    StringBuilder sb = new StringBuilder("\n| round |");
    StringBuilder rule = new StringBuilder("|---|");
    List<String[]> present = new ArrayList<>();
    for (String[] p : pairs) {
      if (rounds.stream().allMatch(r -> r.containsKey(p[0]) && r.containsKey(p[1]))) {
        present.add(p);
        sb.append(' ').append(p[0]).append(" / ").append(p[1]).append(" |");
        rule.append("---:|");
      }
    }
    if (present.isEmpty()) return "";
    sb.append('\n').append(rule).append('\n');
    List<List<Double>> columns = new ArrayList<>();
    present.forEach(p -> columns.add(new ArrayList<>()));
    for (int i = 0; i < rounds.size(); i++) {
      Map<String, Double> r = rounds.get(i);
      sb.append("| ")
          .append(i + 1)
          .append(i % 2 == 0 ? " (single node first)" : " (cluster first)");
      sb.append(" |");
      for (int c = 0; c < present.size(); c++) {
        double ratio = r.get(present.get(c)[0]) / r.get(present.get(c)[1]);
        columns.get(c).add(ratio);
        sb.append(String.format(Locale.ROOT, " %.3f |", ratio));
      }
      sb.append('\n');
    }
    sb.append("| **median** |");
    for (List<Double> column : columns) {
      sb.append(String.format(Locale.ROOT, " **%.3f** |", median(column)));
    }
    return sb.append('\n').toString();
  }

  static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
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
