package io.anteroom.gateway;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.anteroom.objects.http.SharedSecret;
import io.anteroom.testkit.ChildProcess;
import io.anteroom.testkit.NetworkLab;
import io.anteroom.testkit.SlowFsync;
import io.anteroom.testkit.TestCertificates;
import io.anteroom.testkit.Tmpfs;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The waiting room's deployment on a private network of namespaces ({@link NetworkLab}), every part
 * a process started from the {@code Main} an operator runs: three {@code anteroom coordinator
 * --cluster} peers c1, c2, c3, each a host of its own (10.231.0.1-3: Raft on port 7071 with mutual
 * TLS, the object server on https port 7070, {@code /health} on 7072), and gateways (one per data
 * center) together on a host {@code gw} (10.231.0.4), listing the three peers; the origin runs in
 * the test and the gateways reach it as {@code http://127.0.0.1:8000}. The test reaches the
 * gateways' public and admin ports, and the peers' status ports (through {@code gw}, so a cut peer
 * is out of reach there too), at 127.0.0.1 addresses of its own ({@link #gateway}, {@link
 * #health}).
 *
 * <p>A peer's link is cut with {@link #cut} and restored with {@link #restore}: it then reaches
 * neither the other peers nor the gateways. Logs: one file per process in the directory given. For
 * partition tests of the cluster (issue 40's suite) as much as of the room.
 */
final class PartitionedCluster implements AutoCloseable {
  static final Duration PATIENCE = Duration.ofSeconds(180);
  static final List<String> PEERS = List.of("c1", "c2", "c3");
  static final int OBJECT_PORT = 7070;
  static final int RAFT_PORT = 7071;
  static final int STATUS_PORT = 7072;
  static final int ORIGIN_PORT = 8000;
  static final String ADMIN_TOKEN = "partition-test-admin-token";
  private static final Pattern LEADS =
      Pattern.compile("peer (\\S+) leads shard 0 \\(term (\\d+)\\)");
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A gateway process and where the test reaches it. */
  record Gateway(
      String dataCenter, ChildProcess process, InetSocketAddress site, InetSocketAddress admin) {
    String url() {
      return "http://127.0.0.1:" + site.getPort();
    }
  }

  /**
   * What to start: the peers' ids (3 or 5), whether each gateway gets a host of its own (named
   * after its data center) rather than sharing {@code gw}, and per peer a tmpfs data directory of
   * {@code diskBytes} ({@link Tmpfs}) and syncs slowed through a control file ({@link SlowFsync});
   * with a host per gateway, the test reaches the peers' status ports through a host {@code
   * client}, where a {@link CounterLoad} can run.
   */
  record Options(List<String> peers, boolean hostPerGateway, long diskBytes, SlowFsync slowFsync) {
    static final Options ISSUE_43 = new Options(PEERS, false, 0, null);
  }

  private final NetworkLab lab;
  private final Path logs;
  private final Options options;
  private final Map<String, Tmpfs> disks = new LinkedHashMap<>();
  private final Map<String, ChildProcess.Builder> peerBuilders = new LinkedHashMap<>();
  private final Map<String, Integer> starts = new LinkedHashMap<>();
  private Path dir;
  private final Map<String, NetworkLab.Host> hosts = new LinkedHashMap<>();
  private final Map<String, ChildProcess> coordinators = new LinkedHashMap<>();
  private final Map<String, InetSocketAddress> status = new LinkedHashMap<>();
  private final List<Gateway> gateways = new ArrayList<>();
  private final HttpClient client = Browser.newClient();

  private PartitionedCluster(NetworkLab lab, Path logs, Options options) {
    this.lab = lab;
    this.logs = logs;
    this.options = options;
  }

  /**
   * Starts the peers and, once a leader leads, one gateway per data center with {@code rooms} (the
   * YAML list of the gateways' {@code rooms:} key) in front of {@code origin}; returns once every
   * gateway reports to the coordinator. {@code dir} holds data, certificates and configuration.
   */
  static PartitionedCluster start(
      Path dir, Path logs, TestOrigin origin, List<String> dataCenters, String rooms)
      throws Exception {
    return start(dir, logs, origin, dataCenters, rooms, Options.ISSUE_43);
  }

  /** As above, with {@code options}. */
  static PartitionedCluster start(
      Path dir, Path logs, TestOrigin origin, List<String> dataCenters, String rooms, Options o)
      throws Exception {
    Files.createDirectories(logs);
    Files.createDirectories(dir);
    NetworkLab lab = NetworkLab.create(logs);
    PartitionedCluster c = new PartitionedCluster(lab, logs, o);
    c.dir = dir;
    try {
      for (String id : o.peers()) c.hosts.put(id, lab.host(id));
      NetworkLab.Host observer;
      if (o.hostPerGateway()) {
        for (String dc : dataCenters) c.hosts.put(dc, lab.host(dc));
        observer = lab.host("client");
        c.hosts.put("client", observer);
      } else {
        observer = lab.host("gw");
        c.hosts.put("gw", observer);
      }
      Path secret = dir.resolve("coordinator.secret");
      Files.writeString(secret, SharedSecret.generate("k1").encoded() + "\n");
      List<Path> certificates = c.startCoordinators(dir, secret);
      c.awaitLeader(-1);
      for (String id : o.peers()) {
        c.status.put(
            id,
            lab.expose(observer, new InetSocketAddress(c.hosts.get(id).address(), STATUS_PORT)));
      }
      c.startGateways(dir, secret, certificates, dataCenters, rooms, origin);
      return c;
    } catch (Exception | Error e) {
      try {
        c.close();
      } catch (RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /**
   * The peers' certificates by address, made once per JVM (keytool takes seconds on a busy machine,
   * and every lab numbers its hosts alike).
   */
  private static final Map<String, TestCertificates.Pem> CERTIFICATES = new LinkedHashMap<>();

  private static final Path CERTIFICATE_DIR = Path.of("target", "partition-peer-certificates");

  private static synchronized Map<String, TestCertificates.Pem> certificates(
      Map<String, String> addresses) throws Exception {
    Path certs = null;
    Map<String, Future<TestCertificates.Pem>> made = new LinkedHashMap<>();
    try (ExecutorService keytools = Executors.newFixedThreadPool(addresses.size())) {
      for (var e : addresses.entrySet()) {
        String key = e.getKey() + "@" + e.getValue();
        if (CERTIFICATES.containsKey(key)) continue;
        if (certs == null) {
          certs = Files.createTempDirectory(Files.createDirectories(CERTIFICATE_DIR), "jvm-");
        }
        Path dir = certs;
        made.put(
            key,
            keytools.submit(() -> TestCertificates.forAddresses(dir, e.getKey(), e.getValue())));
      }
    }
    for (var e : made.entrySet()) CERTIFICATES.put(e.getKey(), e.getValue().get());
    Map<String, TestCertificates.Pem> out = new LinkedHashMap<>();
    addresses.forEach((id, a) -> out.put(id, CERTIFICATES.get(id + "@" + a)));
    return out;
  }

  /** Starts c1-c3; returns their certificates (what a gateway trusts). */
  private List<Path> startCoordinators(Path dir, Path secret) throws Exception {
    Map<String, String> addresses = new LinkedHashMap<>();
    for (String id : options.peers()) addresses.put(id, hosts.get(id).address());
    Map<String, TestCertificates.Pem> pems = certificates(addresses);
    StringBuilder trust = new StringBuilder();
    for (TestCertificates.Pem pem : pems.values())
      trust.append(Files.readString(pem.certificate()));
    Path peerTrust = dir.resolve("peers.pem");
    Files.writeString(peerTrust, trust);
    StringBuilder yaml = new StringBuilder("name: room\npeers:\n");
    for (String id : options.peers()) {
      String a = hosts.get(id).address();
      yaml.append(
          "  - id: %s\n    raft: %s:%d\n    http: https://%s:%d\n"
              .formatted(id, a, RAFT_PORT, a, OBJECT_PORT));
    }
    Path file = dir.resolve("cluster.yaml");
    Files.writeString(file, yaml);
    Path logConfig = dir.resolve("coordinator-logback.xml");
    Files.writeString(
        logConfig,
        TRACE_CALLS
            ? COORDINATOR_LOGGING.replace("  <root", TRACE_CALLS_LOGGER + "  <root")
            : COORDINATOR_LOGGING);
    for (String id : options.peers()) {
      NetworkLab.Host h = hosts.get(id);
      if (options.diskBytes() > 0) disks.put(id, Tmpfs.mount(dir.resolve(id), options.diskBytes()));
      ChildProcess.Builder b =
          ChildProcess.java(Main.class.getName())
              .name(id)
              .launcher(lab.launcher(h))
              .jvmArgs("-XX:+UseSerialGC", "-Dlogback.configurationFile=" + logConfig)
              .args(
                  "coordinator",
                  "--cluster",
                  file.toString(),
                  "--id",
                  id,
                  "--data-dir",
                  dir.resolve(id).toString(),
                  "--secret-file",
                  secret.toString(),
                  "--tls-cert",
                  pems.get(id).certificate().toString(),
                  "--tls-key",
                  pems.get(id).privateKey().toString(),
                  "--peer-trust",
                  peerTrust.toString(),
                  "--status-listen",
                  h.address() + ":" + STATUS_PORT);
      if (options.slowFsync() != null) options.slowFsync().apply(b, fsyncControl(id));
      peerBuilders.put(id, b);
      startPeer(id);
    }
    for (var c : coordinators.entrySet()) {
      c.getValue()
          .awaitLine(l -> l.startsWith("anteroom coordinator " + c.getKey() + " of"), PATIENCE);
    }
    return pems.values().stream().map(TestCertificates.Pem::certificate).toList();
  }

  /** Starts peer {@code id} (again), its log in {@code <id>.log}, {@code <id>-2.log}, ... */
  private void startPeer(String id) {
    int n = starts.merge(id, 1, Integer::sum);
    ChildProcess.Builder b = peerBuilders.get(id);
    b.log(logs.resolve(n == 1 ? id + ".log" : id + "-" + n + ".log"));
    coordinators.put(id, b.start());
  }

  /**
   * Stops peer {@code id} (SIGKILL, if still alive) and starts it again on the same data; returns
   * once it serves its object server.
   */
  void restartPeer(String id) {
    ChildProcess old = coordinators.get(id);
    if (old.alive()) old.killHard();
    startPeer(id);
    coordinators
        .get(id)
        .awaitLine(l -> l.startsWith("anteroom coordinator " + id + " of"), PATIENCE);
  }

  /** The file that sets peer {@code id}'s sync delay ({@link SlowFsync#delay}). */
  Path fsyncControl(String id) {
    return dir.resolve(id + ".fsync-delay");
  }

  /** Peer {@code id}'s data disk (with {@link Options#diskBytes}). */
  Tmpfs disk(String id) {
    return disks.get(id);
  }

  /** The peers' ids. */
  List<String> peers() {
    return options.peers();
  }

  /** The lab's host named {@code name} (a peer's id, a data center, {@code client}). */
  NetworkLab.Host host(String name) {
    return hosts.get(name);
  }

  NetworkLab lab() {
    return lab;
  }

  /** The peers' object servers, as the gateways list them. */
  List<String> coordinatorUrls() {
    return options.peers().stream()
        .map(id -> "https://" + hosts.get(id).address() + ":" + OBJECT_PORT)
        .toList();
  }

  /** The secret and the peers' trust file, as the gateways have them. */
  Path secretFile() {
    return dir.resolve("coordinator.secret");
  }

  Path trustFile() {
    return dir.resolve("peers.pem");
  }

  /**
   * The product's log format and its filter of Ratis' stack traces for a stopped shard, with Ratis'
   * elections and leader changes (its server's INFO lines, off in the product) for the partition's
   * story.
   */
  /**
   * With {@code -Dfaults.traceCalls=true}, the peers (and the fault suite's counter load) log every
   * object call's timing at DEBUG: the connection (new or pooled) and the reply on the caller, the
   * runtime's time and every 421 on the peer. One line per call: for finding where a failover's
   * time goes, not for every run.
   */
  static final boolean TRACE_CALLS = Boolean.getBoolean("faults.traceCalls");

  /** The loggers {@link #TRACE_CALLS} turns to DEBUG. */
  static final String TRACE_CALLS_LOGGER =
      "  <logger name=\"io.anteroom.objects.http\" level=\"DEBUG\"/>\n"
          + "  <logger name=\"io.anteroom.objects.ObjectHost\" level=\"DEBUG\"/>\n"
          + "  <logger name=\"io.anteroom.objects.ratis.ReplicatedStorageEngine\""
          + " level=\"DEBUG\"/>\n";

  private static final String COORDINATOR_LOGGING =
      """
      <configuration>
        <turboFilter class="io.anteroom.gateway.log.StoppedShards"/>
        <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
          <encoder><pattern>%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level %logger{0} - %msg%n</pattern></encoder>
        </appender>
        <logger name="io.netty" level="WARN"/>
        <logger name="io.vertx" level="WARN"/>
        <logger name="org.apache.ratis" level="WARN"/>
        <logger name="org.apache.ratis.server.impl" level="INFO"/>
        <logger name="org.apache.ratis.server.RaftServer$Division" level="INFO"/>
        <root level="INFO"><appender-ref ref="OUT"/></root>
      </configuration>
      """;

  private void startGateways(
      Path dir,
      Path secret,
      List<Path> certificates,
      List<String> dataCenters,
      String rooms,
      TestOrigin origin)
      throws IOException {
    String list = String.join(",", coordinatorUrls());
    if (!options.hostPerGateway()) {
      lab.reach(hosts.get("gw"), ORIGIN_PORT, new InetSocketAddress("127.0.0.1", origin.port()));
    }
    // the product's logging, with every admission's basis (CoordinatedRoomGate.ADMISSIONS_LOGGER)
    Path gatewayLogging = dir.resolve("gateway-logback.xml");
    try (var in = PartitionedCluster.class.getResourceAsStream("/logback.xml")) {
      Files.writeString(
          gatewayLogging,
          new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)
              .replace(
                  "  <root",
                  "  <logger name=\""
                      + io.anteroom.door.admission.CoordinatedRoomGate.ADMISSIONS_LOGGER
                      + "\" level=\"DEBUG\"/>\n  <root"));
    }
    for (int i = 0; i < dataCenters.size(); i++) {
      String dc = dataCenters.get(i);
      NetworkLab.Host gw = hosts.get(options.hostPerGateway() ? dc : "gw");
      if (options.hostPerGateway()) {
        lab.reach(gw, ORIGIN_PORT, new InetSocketAddress("127.0.0.1", origin.port()));
      }
      int port = 8081 + i;
      int admin = 9081 + i;
      Path config = dir.resolve(dc + ".yaml");
      Files.writeString(
          config,
          """
          listen: 127.0.0.1:%d
          origin: http://127.0.0.1:%d
          dataDir: %s
          admin: { listen: 127.0.0.1:%d, token: %s }
          ticketKeys: [ { id: 1, secret: AAAAAAAAAAAAAAAAAAAAAA== } ]
          rooms: %s
          """
              .formatted(port, ORIGIN_PORT, dir.resolve(dc), admin, ADMIN_TOKEN, rooms));
      List<String> args =
          new ArrayList<>(
              List.of(
                  "gateway",
                  "--coordinator",
                  list,
                  "--datacenter",
                  dc,
                  "--config",
                  config.toString(),
                  "--coordinator-secret-file",
                  secret.toString()));
      for (Path c : certificates) {
        args.add("--coordinator-trust");
        args.add(c.toString());
      }
      ChildProcess p =
          ChildProcess.java(Main.class.getName())
              .name(dc)
              .launcher(lab.launcher(gw))
              .jvmArgs("-XX:+UseSerialGC", "-Dlogback.configurationFile=" + gatewayLogging)
              .args(args.toArray(String[]::new))
              .log(logs.resolve(dc + ".log"))
              .start();
      gateways.add(
          new Gateway(
              dc,
              p,
              lab.expose(gw, new InetSocketAddress("127.0.0.1", port)),
              lab.expose(gw, new InetSocketAddress("127.0.0.1", admin))));
    }
    for (Gateway g : gateways) {
      await(g.dataCenter() + " ready")
          .atMost(PATIENCE)
          .pollInterval(Duration.ofMillis(200))
          .until(() -> ready(g));
    }
  }

  /** Whether {@code g} answers ready; fails at once if it exited (its output in the message). */
  private boolean ready(Gateway g) throws Exception {
    if (!g.process().alive()) {
      throw new AssertionError(
          g.dataCenter() + " exited:\n" + String.join("\n", g.process().lines()));
    }
    try {
      return adminGet(g, "/ready").statusCode() == 200;
    } catch (java.io.IOException e) {
      return false; // not listening yet
    }
  }

  List<Gateway> gateways() {
    return gateways;
  }

  Gateway gateway(String dataCenter) {
    return gateways.stream()
        .filter(g -> g.dataCenter().equals(dataCenter))
        .findFirst()
        .orElseThrow();
  }

  ChildProcess coordinator(String id) {
    return coordinators.get(id);
  }

  /** Cuts peer {@code id}'s link (to the other peers and to the gateways). */
  void cut(String id) {
    lab.cut(hosts.get(id));
  }

  void restore(String id) {
    lab.restore(hosts.get(id));
  }

  /** Peer {@code id}'s TCP connections ({@link NetworkLab#sockets}). */
  String sockets(String id) {
    return lab.sockets(hosts.get(id));
  }

  /** Where the processes' logs are. */
  Path logs() {
    return logs;
  }

  /** Peer {@code id}'s {@code GET /health} (200 or 503, JSON either way). */
  HttpResponse<String> healthResponse(String id) throws Exception {
    InetSocketAddress a = status.get(id);
    return client.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + a.getPort() + "/health"))
            .timeout(Duration.ofSeconds(2))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /**
   * Shard 0 as peer {@code id}'s {@code /health} shows it: role, leader, term, and on the leader
   * each follower's lag in entries.
   */
  ShardView health(String id) throws Exception {
    HttpResponse<String> r = healthResponse(id);
    JsonNode shard = JSON.readTree(r.body()).get("shards").get(0);
    JsonNode leader = shard.get("leader");
    Map<String, Long> lag = new java.util.TreeMap<>();
    JsonNode lags = shard.get("followerLag");
    if (lags != null) lags.properties().forEach(e -> lag.put(e.getKey(), e.getValue().asLong()));
    return new ShardView(
        r.statusCode(),
        shard.get("role").asText(),
        leader == null || leader.isNull() ? null : leader.asText(),
        shard.get("term").asLong(),
        Map.copyOf(lag));
  }

  /**
   * One peer's view of shard 0; {@code followerLag}: on the leader, per follower, its commit index
   * minus the one the follower last reported (empty on a follower).
   */
  record ShardView(
      int status, String role, String leader, long term, Map<String, Long> followerLag) {
    @Override
    public String toString() {
      return status
          + " "
          + role
          + " leader="
          + (leader == null ? "None" : leader)
          + " term="
          + term;
    }
  }

  /** The peer that last said it leads shard 0 in a term above {@code aboveTerm}, with the term. */
  Optional<Map.Entry<String, Long>> leader(long aboveTerm) {
    Map.Entry<String, Long> best = null;
    for (var c : coordinators.entrySet()) {
      if (!c.getValue().alive()) continue;
      long term = -1;
      boolean leads = false;
      for (String line : c.getValue().lines()) {
        Matcher m = LEADS.matcher(line);
        if (m.find()) {
          term = Long.parseLong(m.group(2));
          leads = true;
        } else if (line.contains("no longer leads shard 0")) {
          leads = false;
        }
      }
      if (leads && term > aboveTerm && (best == null || term > best.getValue())) {
        best = Map.entry(c.getKey(), term);
      }
    }
    return Optional.ofNullable(best);
  }

  Map.Entry<String, Long> awaitLeader(long aboveTerm) {
    return await("a leader of shard 0 in a term above " + aboveTerm)
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(20))
        .until(() -> leader(aboveTerm), Optional::isPresent)
        .orElseThrow();
  }

  HttpResponse<String> adminGet(Gateway g, String path) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + g.admin().getPort() + path))
            .header("Authorization", "Bearer " + ADMIN_TOKEN)
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** Room {@code room}'s status at gateway {@code g} ({@code /api/rooms/<room>/status}). */
  JsonNode roomStatus(Gateway g, String room) throws Exception {
    HttpResponse<String> r = adminGet(g, "/api/rooms/" + room + "/status");
    if (r.statusCode() != 200) throw new IllegalStateException(r.statusCode() + " " + r.body());
    return JSON.readTree(r.body());
  }

  /** Stops the gateways (SIGTERM), then the peers, then removes the network. */
  @Override
  public void close() {
    for (Gateway g : gateways) g.process().stop(Duration.ofSeconds(20));
    for (ChildProcess c : coordinators.values()) c.close();
    client.close();
    lab.close();
    for (Tmpfs d : disks.values()) {
      try {
        d.close();
      } catch (RuntimeException e) {
        System.out.println("PartitionedCluster: unmounting " + d.dir() + ": " + e.getMessage());
      }
    }
  }
}
