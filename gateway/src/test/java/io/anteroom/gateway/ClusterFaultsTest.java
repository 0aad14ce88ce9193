package io.anteroom.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.anteroom.testkit.ChildProcess;
import io.anteroom.testkit.HistoryChecker;
import io.anteroom.testkit.HistoryChecker.Op;
import io.anteroom.testkit.NetworkLab;
import io.anteroom.testkit.SlowFsync;
import io.anteroom.testkit.Tmpfs;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Issue 40's partition and disk-fault suite, with real processes on a private network of namespaces
 * ({@link PartitionedCluster}): five coordinator peers c1-c5 (each a host of its own, mutual TLS,
 * each data directory on a tmpfs of its own, each peer's syncs slowable through {@link SlowFsync}),
 * two gateways (dublin, nairobi) each on a host of its own, and on a host {@code client} a {@link
 * CounterLoad} that draws numbers from a room counter object through the peers, as a gateway does.
 * One cluster for the whole suite, the faults one after the other, each healed before the next;
 * each fault has a room of its own (T = 10, N = 1000/min, {@code failMode: degrade}, S = 30 min)
 * where five users were admitted through dublin at the start, and where from the fault on a
 * newcomer arrives every 0.5 s for 20 s, alternating between the gateways, each asking every 2 s
 * until 30 s after the fault began (S outlasts the run: the distinct users at the origin are the
 * users holding admission).
 *
 * <p>Each fault's history goes through the {@link HistoryChecker}: the counter calls invoked in its
 * window (numbers unique and never reissued after a confirmation, no confirmed write lost), the
 * failover (a call invoked after a majority can talk is confirmed within 3 s), and its room's users
 * (at most T, or T plus the degraded gateway's share where {@code docs/room.md} documents one: a
 * partial outage). The last test checks the whole run's calls. Each prints the checker's figures.
 * Numbers, lost writes, T and the failover limit are asserted; the failover limit not on an
 * overloaded machine, unless {@code -Dfaults.strictFailover=true} (see {@link #STRICT_FAILOVER}).
 *
 * <p>Needs root and iproute2 (skipped with the reason otherwise). The disk-full fault needs a tmpfs
 * mount, the slow-fsync fault a C compiler, the delay-and-loss fault {@code tc netem}: each is
 * skipped with its reason where the machine lacks it. Logs in {@code target/cluster-faults-logs}.
 */
@Tag("slow")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterFaultsTest {
  private static final int T = 10;
  private static final int FIRST = 5;
  private static final List<String> PEERS = List.of("c1", "c2", "c3", "c4", "c5");
  private static final List<String> DATA_CENTERS = List.of("dublin", "nairobi");
  private static final List<String> ROOMS =
      List.of("gwcut", "isolated", "minority", "flapping", "netem", "twodown", "slowsync", "full");
  private static final Duration FAULT = Duration.ofSeconds(10);
  private static final Duration ARRIVALS = Duration.ofSeconds(20);
  private static final Duration VISITS = Duration.ofSeconds(30);
  private static final Duration NEWCOMER_EVERY = Duration.ofMillis(500);
  private static final Duration RETRY_EVERY = Duration.ofSeconds(2);
  private static final long DISK_BYTES = 256L << 20;
  private static final long SLOW_SYNC_MILLIS = 500;
  private static final Path LOGS = Path.of("target", "cluster-faults-logs").toAbsolutePath();

  /**
   * Whether a failover over 3 s fails the test also where it is reported, not asserted ({@link
   * Fault#failoverNotAsserted}: today only on an overloaded machine, {@link #OVERLOADED_PER_CORE}).
   * Everywhere else the failover limit is asserted, as are numbers, lost writes and T in every
   * fault. Each fault's line gives its figures either way.
   */
  private static final boolean STRICT_FAILOVER = Boolean.getBoolean("faults.strictFailover");

  /**
   * The second of a minute at which every fault starts (it waits for it): the hardest place for the
   * room's limit. About 17 s later, when the {@code W} after the recovery ends, the users each
   * gateway queued meanwhile enter together, in the minute's last seconds, and the next minute's
   * pools come from states that cannot count them yet: the other data center's late admissions must
   * be subtracted there ({@code docs/room.md}, "Late admissions carried by the counters"). Runs
   * that began a fault at seconds 35-38 without that rule held 11 and 12 users for T = 10
   * (docs/cluster.md, runs 24 and after).
   */
  private static final Duration START_SECOND = Duration.ofSeconds(36);

  /**
   * {@code -Dfaults.only=isolated,minority}: run only the faults of these rooms ({@link #ROOMS});
   * the others are skipped, saying so. Default: every fault.
   */
  private static final Set<String> ONLY =
      Stream.of(System.getProperty("faults.only", "").split(","))
          .map(String::strip)
          .filter(s -> !s.isEmpty())
          .collect(java.util.stream.Collectors.toUnmodifiableSet());

  /**
   * The load average per core above which the machine counts as overloaded: the failover limit is
   * then reported with the load, not asserted (unless {@link #STRICT_FAILOVER}). Measured: on an
   * idle machine every fault failed over within 3 s (run 4, docs/cluster.md; the slow fsync since
   * run 9, and the 10.8-12 s of runs 10 and 11 were a follower deaf to the leader, fixed); at a
   * load average of about 15 per core (other builds) the same build took 4-18 s in four of them,
   * the peers' and callers' threads waiting for a core. Numbers, lost writes and T are asserted
   * whatever the load.
   */
  private static final double OVERLOADED_PER_CORE = 4;

  private final long suiteStart = System.nanoTime();
  private final List<String> summary = new CopyOnWriteArrayList<>();
  private final AtomicInteger users = new AtomicInteger();
  private Optional<String> noTmpfs = Optional.empty();
  private Optional<String> noSlowFsync = Optional.empty();
  private Path dir;
  private TestOrigin origin;
  private PartitionedCluster cluster;
  private ChildProcess load;
  private Path loadFile;
  private HttpClient client;
  private ScheduledExecutorService clock;

  @BeforeAll
  void startTheCluster() throws Exception {
    Optional<String> unavailable = NetworkLab.unavailable();
    unavailable.ifPresent(r -> System.out.println("ClusterFaultsTest skipped: " + r));
    Assumptions.assumeTrue(unavailable.isEmpty(), () -> unavailable.orElseThrow());
    for (String room : ONLY) {
      if (!ROOMS.contains(room)) {
        throw new IllegalArgumentException(
            "-Dfaults.only: no fault has the room " + room + "; the rooms are " + ROOMS);
      }
    }
    deleteRecursively(LOGS);
    Files.createDirectories(LOGS);
    dir = Files.createTempDirectory("cluster-faults");
    noTmpfs = Tmpfs.unavailable();
    noSlowFsync = SlowFsync.unavailable();
    SlowFsync slow = noSlowFsync.isEmpty() ? SlowFsync.build(dir.resolve("slowfsync")) : null;
    StringBuilder rooms = new StringBuilder("[");
    for (String room : ROOMS) {
      if (rooms.length() > 1) rooms.append(", ");
      rooms.append(
          "{ id: %s, path: /%s/, totalActiveUsers: %d, newUsersPerMinute: 1000,"
                  .formatted(room, room, T)
              + " sessionDurationMinutes: 30, failMode: degrade }");
    }
    rooms.append(']');
    origin = new TestOrigin();
    client = Browser.newClient();
    clock = Executors.newScheduledThreadPool(2);
    cluster =
        PartitionedCluster.start(
            dir.resolve("cluster"),
            LOGS,
            origin,
            DATA_CENTERS,
            rooms.toString(),
            new PartitionedCluster.Options(PEERS, true, noTmpfs.isEmpty() ? DISK_BYTES : 0, slow));
    note("cluster and gateways up after " + msSince(suiteStart) + " ms");
    loadFile = LOGS.resolve("counter-calls.txt");
    List<String> args =
        new ArrayList<>(
            List.of(
                loadFile.toString(),
                cluster.secretFile().toString(),
                "4",
                "20",
                cluster.trustFile().toString()));
    args.addAll(cluster.coordinatorUrls());
    List<String> loadJvm = new ArrayList<>(List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
    if (PartitionedCluster.TRACE_CALLS) {
      Path logConfig = dir.resolve("counter-load-logback.xml");
      Files.writeString(
          logConfig,
          """
          <configuration>
            <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
              <encoder><pattern>%d{HH:mm:ss.SSS} %-5level %logger{0} - %msg%n</pattern></encoder>
            </appender>
            <logger name="io.netty" level="WARN"/>
            <logger name="io.vertx" level="WARN"/>
          """
              + PartitionedCluster.TRACE_CALLS_LOGGER
              + """
                <root level="INFO"><appender-ref ref="OUT"/></root>
              </configuration>
              """);
      loadJvm.add("-Dlogback.configurationFile=" + logConfig);
    }
    load =
        ChildProcess.java(CounterLoad.class.getName())
            .name("counter-load")
            .launcher(cluster.lab().launcher(cluster.host("client")))
            .jvmArgs(loadJvm.toArray(String[]::new))
            .args(args.toArray(String[]::new))
            .log(LOGS.resolve("counter-load.log"))
            .start();
    // five users admitted in every room through dublin, counted by both gateways
    PartitionedCluster.Gateway dublin = cluster.gateway("dublin");
    for (String room : ROOMS) {
      for (int i = 0; i < FIRST; i++) {
        Browser b = new Browser(client, dublin.url(), new LinkedHashMap<>());
        String path = "/" + room + "/u/" + users.incrementAndGet();
        await(path + " admitted")
            .atMost(PartitionedCluster.PATIENCE)
            .until(() -> Browser.reachedOrigin(b.getAsync(path).join()));
      }
    }
    load.awaitLine(l -> l.equals("counter load running"), PartitionedCluster.PATIENCE);
    for (PartitionedCluster.Gateway g : cluster.gateways()) {
      for (String room : ROOMS) {
        await(g.dataCenter() + " counts the first users of " + room)
            .atMost(PartitionedCluster.PATIENCE)
            .pollInterval(Duration.ofMillis(500))
            .ignoreExceptions()
            .until(() -> estimatedActive(g, room) >= FIRST);
      }
    }
    note("both gateways count the first users of every room; setup took " + msSince(suiteStart));
  }

  @AfterAll
  void stopEverything() throws Exception {
    if (clock != null) clock.shutdownNow();
    if (load != null) load.close();
    if (cluster != null) cluster.close();
    if (client != null) client.close();
    if (origin != null) origin.close();
    if (dir != null) deleteRecursively(dir);
    System.out.println("ClusterFaultsTest summary (T = " + T + "):");
    summary.forEach(s -> System.out.println("  " + s));
    System.out.println(
        "ClusterFaultsTest: the suite took " + msSince(suiteStart) / 1000 + " s in all");
  }

  /**
   * The gateway dublin cannot reach the leader, everything else can: the leader keeps its
   * followers, dublin's calls time out and its rooms degrade while nairobi's draw on. A partial
   * outage: the room may exceed T by dublin's share ({@code docs/room.md}).
   */
  @Test
  @Order(1)
  void aGatewayCutFromTheLeaderOnly() throws Exception {
    fault(
        "gwcut",
        "a gateway cut from the leader only",
        f -> {
          String leader = leader();
          f.partialOutage("dublin");
          f.note("dublin cut from leader " + leader);
          cluster.lab().partition(List.of(cluster.host("dublin")), List.of(cluster.host(leader)));
          f.majority();
          f.hold(FAULT);
          cluster.lab().heal();
        });
  }

  /**
   * The leader cannot reach its followers; the gateways and the counter's callers reach everyone.
   * The four followers elect a leader; the old one must not confirm anything meanwhile.
   */
  @Test
  @Order(2)
  void theLeaderIsolatedFromItsFollowers() throws Exception {
    fault(
        "isolated",
        "the leader isolated from its followers",
        f -> {
          String leader = leader();
          f.note("leader " + leader + " cut from the other peers");
          cluster.lab().partition(List.of(cluster.host(leader)), hosts(others(leader)));
          f.majority();
          f.hold(FAULT);
          cluster.lab().heal();
        });
  }

  /**
   * Two sides: the leader, one follower and dublin (a minority) against three peers, nairobi and
   * the counter's callers (a majority). The majority elects a leader and serves nairobi; dublin
   * reaches only the minority, which cannot commit: a partial outage at dublin.
   */
  @Test
  @Order(3)
  void aMinorityAndAMajoritySide() throws Exception {
    fault(
        "minority",
        "a minority side (leader, one follower, dublin) and a majority side",
        f -> {
          String leader = leader();
          String follower = others(leader).get(0);
          List<NetworkLab.Host> minority =
              List.of(cluster.host(leader), cluster.host(follower), cluster.host("dublin"));
          List<NetworkLab.Host> majority = new ArrayList<>();
          for (String id : others(leader)) if (!id.equals(follower)) majority.add(cluster.host(id));
          majority.add(cluster.host("nairobi"));
          majority.add(cluster.host("client"));
          f.partialOutage("dublin");
          f.note("minority " + leader + ", " + follower + ", dublin; majority the rest");
          cluster.lab().partition(minority, majority);
          f.majority();
          f.hold(FAULT);
          cluster.lab().heal();
        });
  }

  /**
   * The leader's link goes down and up every 1.5 s for 12 s (whole link: peers, gateways and
   * callers alike). Every time it goes down, the other four can talk: each time, a call is
   * confirmed within 3 s.
   */
  @Test
  @Order(4)
  void aFlappingLink() throws Exception {
    fault(
        "flapping",
        "a flapping link (the leader's, 1.5 s down, 1.5 s up, 4 times)",
        f -> {
          String first = leader();
          f.note("flapping the link of " + first);
          NetworkLab.Host h = cluster.host(first);
          for (int i = 0; i < 4; i++) {
            cluster.lab().cut(h);
            f.majority();
            f.hold(Duration.ofMillis(1500));
            cluster.lab().restore(h);
            f.hold(Duration.ofMillis(1500));
          }
        });
  }

  /**
   * The leader's link delayed 200 ms (with jitter) and 10 % of its packets lost, for the fault's 10
   * s ({@code tc netem}; skipped with the reason where the kernel has none). Calls slower than a
   * gateway's timeout at one gateway but not the other are a partial outage.
   */
  @Test
  @Order(5)
  void aSlowAndLossyLinkToTheLeader() throws Exception {
    Optional<String> noNetem = NetworkLab.netemUnavailable();
    noNetem.ifPresent(
        r -> {
          String line = "a slow and lossy link to the leader: SKIPPED, " + r;
          summary.add(line);
          System.out.println("ClusterFaultsTest " + line);
        });
    Assumptions.assumeTrue(noNetem.isEmpty(), () -> noNetem.orElseThrow());
    fault(
        "netem",
        "a slow and lossy link to the leader (netem 200 ms, 10 % loss)",
        f -> {
          String leader = leader();
          f.partialOutage("dublin");
          f.note("netem on the link of " + leader);
          cluster.lab().netem(cluster.host(leader), Duration.ofMillis(200), 10);
          f.majority();
          f.hold(FAULT);
          cluster.lab().netem(cluster.host(leader), null, 0);
        });
  }

  /**
   * Two of the five peers lose their links, the leader among them: the other three are a majority
   * and elect a leader.
   */
  @Test
  @Order(6)
  void fivePeersLosingTwo() throws Exception {
    fault(
        "twodown",
        "a 5-peer cluster losing two peers (the leader and a follower)",
        f -> {
          String leader = leader();
          String follower = others(leader).get(0);
          f.note("cut the links of " + leader + " and " + follower);
          cluster.lab().cut(cluster.host(leader));
          cluster.lab().cut(cluster.host(follower));
          f.majority();
          f.hold(FAULT);
          cluster.lab().restore(cluster.host(leader));
          cluster.lab().restore(cluster.host(follower));
        });
  }

  /**
   * Every fsync and fdatasync of the leader waits 500 ms for the fault's 10 s ({@link SlowFsync}:
   * this kernel has no device-mapper delay target; skipped with the reason where no C compiler
   * builds the library). The followers' syncs make the majority; calls slower than a gateway's
   * timeout at one gateway but not the other are a partial outage.
   */
  @Test
  @Order(7)
  void aPeerWhoseFsyncIsSlow() throws Exception {
    noSlowFsync.ifPresent(
        r -> {
          String line = "a peer whose fsync is slow: SKIPPED, " + r;
          summary.add(line);
          System.out.println("ClusterFaultsTest " + line);
        });
    Assumptions.assumeTrue(noSlowFsync.isEmpty(), () -> noSlowFsync.orElseThrow());
    fault(
        "slowsync",
        "the leader's fsync slow (" + SLOW_SYNC_MILLIS + " ms each)",
        f -> {
          String leader = leader();
          f.partialOutage("dublin");
          f.note("fsync of " + leader + " takes " + SLOW_SYNC_MILLIS + " ms more");
          SlowFsync.delay(cluster.fsyncControl(leader), SLOW_SYNC_MILLIS);
          f.majority();
          f.hold(FAULT);
          SlowFsync.delay(cluster.fsyncControl(leader), 0);
        });
  }

  /**
   * The leader's data disk fills up (its tmpfs, to the last byte): its log and its copy cannot be
   * written. Once a write fails, the peer stops its division of the shard (one line) and the other
   * four, a majority, elect a leader. After the fault the disk is emptied: the peer starts the
   * division again by itself and catches up (the calm wait after the fault needs it: every peer
   * must name the leader).
   */
  @Test
  @Order(8)
  void aPeerWhoseDiskIsFull() throws Exception {
    noTmpfs.ifPresent(
        r -> {
          String line = "a peer whose disk is full: SKIPPED, " + r;
          summary.add(line);
          System.out.println("ClusterFaultsTest " + line);
        });
    Assumptions.assumeTrue(noTmpfs.isEmpty(), () -> noTmpfs.orElseThrow());
    fault(
        "full",
        "the leader's disk full",
        f -> {
          String leader = leader();
          Tmpfs disk = cluster.disk(leader);
          long filled = disk.fill();
          f.majority();
          f.note(
              "filled the disk of %s (%d MB written, %d bytes left)"
                  .formatted(leader, filled >> 20, disk.usable()));
          f.hold(FAULT);
          disk.free();
          ChildProcess p = cluster.coordinator(leader);
          assertThat(p.alive()).as(leader + " still runs").isTrue();
          f.note(leader + " still runs; its lines of the fault: " + shardLines(p));
        });
  }

  /** The whole run's counter calls, checked together. */
  @Test
  @Order(100)
  void theWholeRunsCounterCallsHoldEveryPromise() throws Exception {
    HistoryChecker.Figures f = new HistoryChecker().addAll(ops(0, Long.MAX_VALUE)).check();
    String line = "the whole run: " + f;
    summary.add(line);
    System.out.println("ClusterFaultsTest " + line);
    assertThat(f.violations()).as(line).isEmpty();
  }

  // ---- one fault ----

  /** What a fault does, given its recorder. */
  private interface Injection {
    void run(Fault f) throws Exception;
  }

  /** A fault's record: majority marks, a partial outage's share, notes. */
  private final class Fault {
    final String what;
    final String room;
    final List<Long> marks = new ArrayList<>();
    int share;
    String why = "";
    String failoverExempt;

    Fault(String what, String room) {
      this.what = what;
      this.room = room;
    }

    /** A majority of the peers can talk from now on. */
    void majority() {
      marks.add(System.currentTimeMillis());
    }

    /**
     * A partial outage at {@code dataCenter}: the room may exceed T by that gateway's share, at
     * most the free slots of its state ({@code docs/room.md}).
     */
    void partialOutage(String dataCenter) throws Exception {
      share = Math.max(0, T - estimatedActive(cluster.gateway(dataCenter), room));
      why =
          "a partial outage at %s: its share, at most the %d free slots of its state (docs/room.md)"
              .formatted(dataCenter, share);
    }

    /**
     * The failover limit cannot hold in this fault, for the reason given (measured and documented
     * in docs/cluster.md): the failover is reported, not asserted, unless {@code
     * -Dfaults.strictFailover=true}.
     */
    void failoverNotAsserted(String reason) {
      failoverExempt = reason;
    }

    /** The fault lasts {@code d} more. */
    void hold(Duration d) throws InterruptedException {
      Thread.sleep(d); // the fault's length, not a wait for anything
    }

    void note(String line) {
      ClusterFaultsTest.this.note(what + ": " + line);
    }
  }

  private void fault(String room, String what, Injection injection) throws Exception {
    Assumptions.assumeTrue(cluster != null, "the cluster did not start");
    Assumptions.assumeTrue(
        ONLY.isEmpty() || ONLY.contains(room),
        () -> what + ": not selected (-Dfaults.only=" + String.join(",", ONLY) + ")");
    String behindAtStart = awaitCalm(what + ": before");
    // the fault's place in the minute, not a wait for anything
    Thread.sleep(Math.floorMod(START_SECOND.toMillis() - System.currentTimeMillis(), 60_000L));
    Fault f = new Fault(what, room);
    var os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    double perCore = os.getSystemLoadAverage() / os.getAvailableProcessors();
    long start = System.currentTimeMillis();
    long startNanos = System.nanoTime();
    AtomicBoolean visiting = new AtomicBoolean(true);
    AtomicInteger inFlight = new AtomicInteger();
    List<ScheduledFuture<?>> tasks = new CopyOnWriteArrayList<>();
    AtomicInteger arrivals = new AtomicInteger();
    // the visits end VISITS after the fault began, also when the calm after it takes longer
    tasks.add(clock.schedule(() -> visiting.set(false), VISITS.toMillis(), TimeUnit.MILLISECONDS));
    tasks.add(
        clock.scheduleAtFixedRate(
            () -> {
              if (System.nanoTime() - startNanos >= ARRIVALS.toNanos()) return;
              PartitionedCluster.Gateway g =
                  cluster.gateways().get(arrivals.getAndIncrement() % DATA_CENTERS.size());
              Browser b = new Browser(client, g.url(), new LinkedHashMap<>());
              String path = "/" + room + "/u/" + users.incrementAndGet();
              AtomicBoolean mine = new AtomicBoolean();
              tasks.add(
                  clock.scheduleAtFixedRate(
                      () -> {
                        if (!visiting.get() || !mine.compareAndSet(false, true)) return;
                        inFlight.incrementAndGet();
                        b.getAsync(path)
                            .whenComplete(
                                (r, e) -> {
                                  mine.set(false);
                                  inFlight.decrementAndGet();
                                });
                      },
                      0,
                      RETRY_EVERY.toMillis(),
                      TimeUnit.MILLISECONDS));
            },
            0,
            NEWCOMER_EVERY.toMillis(),
            TimeUnit.MILLISECONDS));
    try {
      injection.run(f);
      awaitCalm(what + ": after");
      long left = VISITS.toMillis() - msSince(startNanos);
      if (left > 0) Thread.sleep(left); // the newcomers' visits end VISITS after the fault began
    } finally {
      visiting.set(false);
      for (ScheduledFuture<?> t : tasks) t.cancel(false);
    }
    await("every newcomer's request answered")
        .atMost(Duration.ofSeconds(60))
        .until(() -> inFlight.get() == 0);
    long end = System.currentTimeMillis();
    HistoryChecker h = new HistoryChecker().addAll(ops(start, end));
    f.marks.forEach(h::majorityCanTalkAt);
    h.room(room, usersAtOrigin(room), T, f.share, f.why);
    HistoryChecker.Figures figures = h.check();
    String line =
        what
            + ": "
            + figures
            + " (%d s; load average %.1f per core at the fault's start)"
                .formatted((end - start) / 1000, perCore)
            + (behindAtStart.isEmpty() ? "" : " [at the fault's start: " + behindAtStart + "]");
    if (f.failoverExempt == null && perCore > OVERLOADED_PER_CORE) {
      f.failoverNotAsserted(
          "the machine is overloaded (load average %.1f per core at the fault's start, over %.0f)"
              .formatted(perCore, OVERLOADED_PER_CORE));
    }
    boolean failoverAsserted = STRICT_FAILOVER || f.failoverExempt == null;
    if (!failoverAsserted) {
      line +=
          " [failover reported, not asserted in this fault: "
              + f.failoverExempt
              + "; -Dfaults.strictFailover=true asserts it]";
    }
    summary.add(line);
    System.out.println("ClusterFaultsTest " + line);
    assertThat(failoverAsserted ? figures.violations() : figures.safetyViolations())
        .as(line + "; logs in " + LOGS)
        .isEmpty();
  }

  /**
   * How far behind the leader's commit index a follower may be, in entries, and count as taking its
   * entries (the counter load commits about a hundred entries a second).
   */
  private static final long CAUGHT_UP_ENTRIES = 100;

  /** How long the calm wait gives the followers to catch up before it reports the ones behind. */
  private static final Duration CATCH_UP = Duration.ofSeconds(30);

  /**
   * How long the calm wait asks every peer to name the leader before it settles for every peer but
   * one (a follower stuck in pre-votes never names one: run 13, and the slow suite of 2026-11-30
   * 05:52 UTC, where c2, 15,494 entries behind after the slow-fsync fault, kept the disk-full fault
   * from starting for 3 minutes).
   */
  private static final Duration EVERY_PEER = Duration.ofSeconds(60);

  /**
   * Every peer answers {@code /health} 200 naming the same leader, and no gateway's room is
   * degraded (after {@link #EVERY_PEER}, every peer but one: the one is reported); then up to
   * {@link #CATCH_UP} for every follower to be within {@link #CAUGHT_UP_ENTRIES} of the leader's
   * commit index. Returns the followers still behind, with their lag (empty if none): a follower
   * that names the leader (it hears its heartbeats) but takes none of its entries counts for no
   * majority, so a fault that then cuts two other peers of five leaves none (run 11,
   * docs/cluster.md). They are reported, in the timeline and the fault's line, not asserted: run 13
   * met a follower stuck this way from the start (on Ratis 3.2.2; its cause is not known, and 3.3.0
   * has the same code there).
   */
  private String awaitCalm(String when) {
    Set<String> silent = new java.util.concurrent.ConcurrentSkipListSet<>();
    try {
      await(when + ": every peer knows the leader and no room is degraded")
          .atMost(EVERY_PEER)
          .pollInterval(Duration.ofMillis(200))
          .ignoreExceptions()
          .until(() -> calm(0, silent));
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      // a follower stuck in pre-votes (2026-11-30, Ratis 3.2.2: likely a leader's appender that
      // failed and never restarted, RATIS-2487/2499, fixed in 3.3.0) named no leader however long
      // one waited: the others, a majority, carry the next fault; it is reported, not asserted
      await(when + ": every peer but one knows the leader and no room is degraded")
          .atMost(PartitionedCluster.PATIENCE)
          .pollInterval(Duration.ofMillis(200))
          .ignoreExceptions()
          .until(() -> calm(1, silent));
    }
    String leader = leaderOrNone();
    Map<String, Long> behind = new java.util.concurrent.ConcurrentSkipListMap<>();
    boolean caughtUp = false;
    try {
      await(when + ": every follower within " + CAUGHT_UP_ENTRIES + " entries of the leader")
          .atMost(CATCH_UP)
          .pollInterval(Duration.ofMillis(200))
          .ignoreExceptions()
          .until(
              () -> {
                behind.clear();
                Map<String, Long> lag = cluster.health(leader).followerLag();
                for (String id : others(leader)) {
                  Long l = lag.get(id);
                  if (l == null || l > CAUGHT_UP_ENTRIES) behind.put(id, l == null ? -1 : l);
                }
                return behind.isEmpty();
              });
      caughtUp = true;
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      if (behind.isEmpty()) behind.put("(the leader's lag figures could not be read)", -1L);
    }
    String laggards =
        caughtUp
            ? ""
            : "followers behind the leader after "
                + CATCH_UP.toSeconds()
                + " s (entries): "
                + behind
                + " (they count for no majority until they catch up)";
    String stuck =
        silent.isEmpty()
            ? ""
            : "; naming no leader after "
                + EVERY_PEER.toSeconds()
                + " s: "
                + silent
                + " (a follower stuck as in run 13: reported, not asserted)";
    note(
        when
            + ": calm (every peer names "
            + leader
            + ", no room degraded"
            + (caughtUp ? ", every follower caught up" : "; " + laggards)
            + stuck
            + ")");
    return laggards;
  }

  /**
   * Whether every peer but {@code mayNameNone} answers {@code /health} 200 naming one same leader,
   * and no gateway's room is degraded; {@code silent} gets the peers that named none.
   */
  private boolean calm(int mayNameNone, Set<String> silent) throws Exception {
    silent.clear();
    Set<String> leaders = new LinkedHashSet<>();
    for (String id : PEERS) {
      PartitionedCluster.ShardView v;
      try {
        v = cluster.health(id);
      } catch (java.io.IOException e) {
        silent.add(id); // it does not answer
        continue;
      }
      if (v.status() != 200 || v.leader() == null) {
        silent.add(id);
      } else {
        leaders.add(v.leader());
      }
    }
    if (leaders.size() != 1 || silent.size() > mayNameNone) return false;
    for (PartitionedCluster.Gateway g : cluster.gateways()) {
      for (String room : ROOMS) {
        if (cluster.roomStatus(g, room).get("degraded").asBoolean()) return false;
      }
    }
    return true;
  }

  /** The leader the first peer that names one names, or "?". */
  private String leaderOrNone() {
    for (String id : PEERS) {
      try {
        String leader = cluster.health(id).leader();
        if (leader != null) return leader;
      } catch (Exception e) {
        // that peer does not answer: ask the next
      }
    }
    return "?";
  }

  /** The current leader, as the peers' {@code /health} names it. */
  private String leader() throws Exception {
    String leader = leaderOrNone();
    assertThat(leader).as("a leader").isNotEqualTo("?");
    return leader;
  }

  private List<String> others(String peer) {
    return PEERS.stream().filter(p -> !p.equals(peer)).toList();
  }

  private List<NetworkLab.Host> hosts(List<String> names) {
    return names.stream().map(cluster::host).toList();
  }

  /** The distinct users of {@code room} the origin saw. */
  private int usersAtOrigin(String room) {
    Set<String> seen = new LinkedHashSet<>();
    String prefix = " /" + room + "/u/";
    for (String r : origin.received) {
      int i = r.indexOf(prefix);
      if (i >= 0) seen.add(r.substring(i + prefix.length()));
    }
    return seen.size();
  }

  /** The counter calls invoked in [from, to]. */
  private List<Op> ops(long from, long to) throws IOException {
    List<Op> out = new ArrayList<>();
    for (String line : Files.readAllLines(loadFile)) {
      String[] w = line.split(" ");
      if (w.length < 3) continue; // a line being written
      long invoked;
      long completed;
      try {
        invoked = Long.parseLong(w[0]);
        completed = Long.parseLong(w[1]);
      } catch (NumberFormatException e) {
        continue;
      }
      if (invoked < from || invoked > to) continue;
      switch (w[2]) {
        case "OK" -> {
          if (w.length >= 5) {
            out.add(Op.ok(invoked, completed, Long.parseLong(w[3]), Long.parseLong(w[4])));
          }
        }
        case "FAILED" -> out.add(Op.failed(invoked, completed));
        default -> out.add(Op.unknown(invoked, completed));
      }
    }
    return out;
  }

  private int estimatedActive(PartitionedCluster.Gateway g, String room) throws Exception {
    return cluster.roomStatus(g, room).get("estimatedTotalActiveUsers").asInt();
  }

  /** The peer's lines about its shards stopping and starting again. */
  private static String shardLines(ChildProcess p) {
    return String.join(
        " | ",
        p.lines().stream()
            .filter(l -> l.contains("stops on this peer") || l.contains("started again"))
            .toList());
  }

  private void note(String what) {
    String line =
        String.format("%s %7d ms: %s", java.time.Instant.now(), msSince(suiteStart), what);
    System.out.println("ClusterFaultsTest " + line);
    try {
      Files.writeString(
          LOGS.resolve("timeline.txt"),
          line + "\n",
          java.nio.file.StandardOpenOption.CREATE,
          java.nio.file.StandardOpenOption.APPEND);
    } catch (IOException e) {
      // the timeline is a convenience
    }
  }

  private static long msSince(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
  }

  private static void deleteRecursively(Path p) throws IOException {
    if (!Files.exists(p)) return;
    try (Stream<Path> files = Files.walk(p)) {
      for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(f);
      }
    }
  }
}
