package io.anteroom.objects.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.anteroom.objects.ObjectId;
import io.anteroom.objects.Stubs;
import io.anteroom.objects.http.RoutingObjectTransport;
import io.anteroom.objects.http.SharedSecret;
import io.anteroom.objects.ratis.ReplicatedRuntimeTest.Counter;
import io.anteroom.objects.ratis.ReplicatedRuntimeTest.CounterObject;
import io.anteroom.testkit.FreePorts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Online membership changes ({@link ClusterAdmin}) of {@link ClusterNode}s in this JVM, under a
 * load of counter draws through the routing transport: a peer added, the leader removed, a dead
 * peer replaced; every confirmed number is unique (none lost, none issued twice), new peers catch
 * up from an empty directory by snapshot and log, and a peer restarted with a stale cluster file
 * takes the membership of its log. Prints the throughput dip of each change against the steady
 * throughput before it (docs/benchmarks.md).
 */
class MembershipTest {
  private static final SharedSecret SECRET = SharedSecret.generate("membership-test");
  private static final int CALLERS = 8;

  @TempDir Path dir;
  private final Map<String, ClusterNode> nodes = new LinkedHashMap<>();
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) toClose.get(i).close();
    for (ClusterNode n : nodes.values()) n.close();
  }

  /** Five peer slots n0..n4 with their ports; the file of the first {@code count}. */
  private static final class Slots {
    final int[] ports = FreePorts.take(10); // one call: ten distinct ports
    final int[] raft = java.util.Arrays.copyOfRange(ports, 0, 5);
    final int[] http = java.util.Arrays.copyOfRange(ports, 5, 10);

    ClusterFile file(int count) {
      return file(count, 1);
    }

    ClusterFile file(int count, int shards) {
      StringBuilder yaml = new StringBuilder("name: members\nshards: " + shards + "\npeers:\n");
      for (int i = 0; i < count; i++) {
        yaml.append("  - id: n")
            .append(i)
            .append("\n    raft: 127.0.0.1:")
            .append(raft[i])
            .append("\n    http: http://127.0.0.1:")
            .append(http[i])
            .append('\n');
      }
      return ClusterFile.parse(yaml.toString(), "cluster file of " + count);
    }
  }

  private ClusterNode start(ClusterFile file, String id) {
    return start(file, id, false);
  }

  /** A new peer of a running cluster: it waits to be added. */
  private ClusterNode join(ClusterFile file, String id) {
    return start(file, id, true);
  }

  private ClusterNode start(ClusterFile file, String id, boolean join) {
    ClusterNode node =
        ClusterNode.builder(file, id, dir.resolve(id))
            .options(
                TestCluster.testOptions()
                    .localStorage(PeerOptions.LocalStorage.MEMORY)
                    .snapshotEveryEntries(50)
                    .join(join)
                    .build())
            .objects(runtime -> runtime.namespace("counter", Counter.class, CounterObject::new))
            .server(server -> server.export("counter").secret(SECRET))
            .events(line -> {})
            .start();
    nodes.put(id, node);
    return node;
  }

  private void kill(String id) {
    nodes.remove(id).close();
  }

  private ClusterNode awaitServing() {
    return await("a node serves shard 0")
        .atMost(TestCluster.PATIENCE)
        .until(
            () -> nodes.values().stream().filter(n -> n.serves(0)).findFirst().orElse(null),
            n -> n != null);
  }

  /** Callers drawing numbers from the counter "c" through every coordinator URL, recorded. */
  private final class Load implements AutoCloseable {
    final ConcurrentLinkedQueue<long[]> confirmed = new ConcurrentLinkedQueue<>(); // {n, nanos}
    final AtomicLong failed = new AtomicLong();
    final AtomicBoolean running = new AtomicBoolean(true);
    final List<Thread> threads = new ArrayList<>();

    Load(ClusterFile all) {
      RoutingObjectTransport transport =
          RoutingObjectTransport.builder(all.coordinators())
              .secret(SECRET)
              .timeout(Duration.ofSeconds(5))
              .build();
      toClose.add(transport);
      Counter counter =
          Stubs.create(Counter.class, "counter", ObjectId.fromName("counter", "c"), transport);
      for (int i = 0; i < CALLERS; i++) {
        threads.add(
            Thread.ofVirtual()
                .start(
                    () -> {
                      while (running.get()) {
                        try {
                          long n = counter.next();
                          confirmed.add(new long[] {n, System.nanoTime()});
                        } catch (RuntimeException e) {
                          failed.incrementAndGet(); // may or may not have run: not confirmed
                        }
                      }
                    }));
      }
    }

    long count() {
      return confirmed.size();
    }

    void awaitMore(long n) {
      long target = count() + n;
      await(n + " more confirmed draws")
          .atMost(TestCluster.PATIENCE)
          .until(() -> count() >= target);
    }

    @Override
    public void close() throws InterruptedException {
      running.set(false);
      for (Thread t : threads) t.join();
    }
  }

  /** The throughput around one change: the figures of docs/benchmarks.md. */
  private record Dip(
      String change,
      long tookMs,
      double baseline,
      double lowest,
      long belowHalfMs,
      long longestGapMs) {
    @Override
    public String toString() {
      return String.format(
          "%-24s took %5d ms; baseline %4.0f draws/s, lowest 200 ms window %4.0f/s (%3.0f %%),"
              + " below half for %5d ms, longest gap between confirmations %5d ms",
          change, tookMs, baseline, lowest, 100 * lowest / baseline, belowHalfMs, longestGapMs);
    }
  }

  /**
   * From the confirmations: the steady rate in the {@code 2 s} before {@code start}, and from
   * {@code start} to {@code end} + 1 s the lowest rate over 200 ms windows, the total time in 100
   * ms steps below half the baseline, and the longest gap between two confirmations.
   */
  private static Dip dip(String change, List<long[]> all, long start, long end) {
    long before = start - 2_000_000_000L;
    double baseline = all.stream().filter(c -> c[1] >= before && c[1] < start).count() / 2.0;
    long until = end + 1_000_000_000L;
    List<Long> times =
        all.stream().map(c -> c[1]).filter(t -> t >= start && t <= until).sorted().toList();
    double lowest = Double.MAX_VALUE;
    long below = 0;
    for (long w = start; w + 200_000_000L <= until; w += 100_000_000L) {
      long from = w;
      long n = times.stream().filter(t -> t >= from && t < from + 200_000_000L).count();
      double rate = n / 0.2;
      lowest = Math.min(lowest, rate);
      if (rate < baseline / 2) below += 100;
    }
    long gap = 0;
    long last = start;
    for (long t : times) {
      gap = Math.max(gap, t - last);
      last = t;
    }
    gap = Math.max(gap, until - last);
    return new Dip(change, (end - start) / 1_000_000, baseline, lowest, below, gap / 1_000_000);
  }

  /**
   * Three shards on n0, n1, n2 are led by n0, n1, n2. Once n1 is replaced by n3 (not in the file
   * the others started with), the shards spread over the live members n0, n2, n3: shard 1 goes to
   * n2 and shard 2 to n3. With the file's peers, shard 1 would wait for n1 (gone) and shard 2 stay
   * with n2.
   */
  @Test
  @Tag("slow")
  void preferredShardLeadersFollowTheLiveMembershipAfterAPeerIsReplaced() throws Exception {
    Slots slots = new Slots();
    ClusterFile three = slots.file(3, 3);
    for (String id : List.of("n0", "n1", "n2")) start(three, id);
    awaitLeaders(Map.of(0, "n0", 1, "n1", 2, "n2"));
    join(slots.file(4, 3), "n3");
    try (ClusterAdmin admin = ClusterAdmin.connect(three.config(), null)) {
      admin.replace("n1", slots.file(4, 3).peer("n3"));
    }
    kill("n1");
    for (int s = 0; s < 3; s++) {
      assertThat(ClusterNode.preferredLeader(nodes.get("n0").peer(), s))
          .as("shard " + s + "'s preferred leader")
          .contains(List.of("n0", "n2", "n3").get(s));
    }
    awaitLeaders(Map.of(0, "n0", 1, "n2", 2, "n3"));

    // n0's /health shows the live membership of every shard: ids, addresses, roles, the leader
    ClusterFile four = slots.file(4, 3);
    try (ClusterStatusServer status = ClusterStatusServer.start(nodes.get("n0"), "127.0.0.1", 0);
        java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient()) {
      var health =
          new com.fasterxml.jackson.databind.ObjectMapper()
              .readTree(
                  client
                      .send(
                          java.net.http.HttpRequest.newBuilder(
                                  java.net.URI.create(
                                      "http://127.0.0.1:" + status.port() + "/health"))
                              .build(),
                          java.net.http.HttpResponse.BodyHandlers.ofString())
                      .body());
      for (int s = 0; s < 3; s++) {
        var shard = health.get("shards").get(s);
        String leader = List.of("n0", "n2", "n3").get(s);
        assertThat(shard.get("leader").asText()).isEqualTo(leader);
        List<String> members = new ArrayList<>();
        for (var m : shard.get("members")) {
          String id = m.get("id").asText();
          members.add(id);
          assertThat(m.get("raft").asText()).isEqualTo(four.peer(id).address());
          assertThat(m.get("http").asText()).isEqualTo(four.http().get(id).toString());
          assertThat(m.get("role").asText())
              .as("shard " + s + ", " + id)
              .isEqualTo(id.equals(leader) ? "LEADER" : "FOLLOWER");
        }
        assertThat(members).containsExactly("n0", "n2", "n3");
      }
    }
  }

  /** Waits until each shard of {@code leaders} is served by the node named there. */
  private void awaitLeaders(Map<Integer, String> leaders) {
    await("shards served by " + leaders)
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .until(
            () ->
                leaders.entrySet().stream()
                    .allMatch(e -> nodes.get(e.getValue()).serves(e.getKey())));
  }

  @Test
  void underLoadAPeerIsAddedTheLeaderRemovedAndADeadPeerReplacedWithoutLosingOrRepeatingANumber()
      throws Exception {
    Slots slots = new Slots();
    ClusterFile three = slots.file(3);
    for (int i = 0; i < 3; i++) start(three, "n" + i);
    awaitServing();
    List<Object[]> changes = new ArrayList<>(); // {name, start, end}
    List<long[]> history;
    try (Load load = new Load(slots.file(5));
        ClusterAdmin admin = ClusterAdmin.connect(three.config(), null)) {
      load.awaitMore(400); // past several snapshots: the log start moved on
      Thread.sleep(2_000); // a steady baseline for the first change // NOPMD measurement window

      // grow: n3 from an empty directory, with the file that lists it
      join(slots.file(4), "n3");
      long t0 = System.nanoTime();
      List<ClusterAdmin.ShardMembers> added = admin.add(slots.file(4).peer("n3"));
      long t1 = System.nanoTime();
      assertThat(added.getFirst().ids()).containsExactly("n0", "n1", "n2", "n3");
      changes.add(new Object[] {"add n3", t0, t1});
      load.awaitMore(200);
      Thread.sleep(2_000); // NOPMD measurement window

      // shrink: remove the leader itself, then stop it
      String leader = admin.members().getFirst().leader();
      t0 = System.nanoTime();
      List<ClusterAdmin.ShardMembers> removed = admin.remove(leader);
      t1 = System.nanoTime();
      assertThat(removed.getFirst().ids()).hasSize(3).doesNotContain(leader);
      kill(leader);
      changes.add(new Object[] {"remove the leader " + leader, t0, t1});
      load.awaitMore(200);
      Thread.sleep(2_000); // NOPMD measurement window

      // replace: a follower dies; n4, on an empty directory, takes its place
      String current = admin.members().getFirst().leader();
      String dead =
          removed.getFirst().ids().stream()
              .filter(id -> !id.equals(current) && !id.equals("n3"))
              .findFirst()
              .orElseThrow();
      kill(dead);
      join(slots.file(5), "n4");
      t0 = System.nanoTime();
      List<ClusterAdmin.ShardMembers> replaced = admin.replace(dead, slots.file(5).peer("n4"));
      t1 = System.nanoTime();
      assertThat(replaced.getFirst().ids()).hasSize(3).contains("n3", "n4").doesNotContain(dead);
      changes.add(new Object[] {"replace dead " + dead + " by n4", t0, t1});
      load.awaitMore(200);
      Thread.sleep(2_000); // NOPMD measurement window
      load.close();
      history = List.copyOf(load.confirmed);
      System.out.printf(
          "membership changes under load (%d callers, %d confirmed draws, %d not confirmed):%n",
          CALLERS, history.size(), load.failed.get());
      for (Object[] c : changes) {
        System.out.println(dip((String) c[0], history, (Long) c[1], (Long) c[2]));
      }

      // every member has every entry; the new ones started from a snapshot (empty directory)
      long committed = nodes.get(current).peer().engine(0).commitIndex();
      for (String id : replaced.getFirst().ids()) {
        await(id + " applies up to " + committed)
            .atMost(TestCluster.PATIENCE)
            .until(() -> nodes.get(id).peer().engine(0).appliedIndex() >= committed);
      }
      assertThat(nodes.get("n3").peer().engine(0).logStartIndex())
          .as("n3's log starts after a snapshot it installed")
          .isGreaterThan(1);
      assertThat(nodes.get("n4").peer().engine(0).logStartIndex())
          .as("n4's log starts after a snapshot it installed")
          .isGreaterThan(1);
      assertThat(nodes.get("n4").peer().members(0))
          .extracting(ClusterConfig.Peer::id)
          .containsExactlyElementsOf(replaced.getFirst().ids());
    }

    // the history: every confirmed number unique, and the counter goes on above all of them
    Set<Long> seen = new HashSet<>();
    long max = -1;
    for (long[] c : history) {
      assertThat(seen.add(c[0])).as("number %d confirmed twice", c[0]).isTrue();
      max = Math.max(max, c[0]);
    }
    RoutingObjectTransport transport =
        RoutingObjectTransport.builder(slots.file(5).coordinators())
            .secret(SECRET)
            .timeout(Duration.ofSeconds(10))
            .build();
    toClose.add(transport);
    Counter counter =
        Stubs.create(Counter.class, "counter", ObjectId.fromName("counter", "c"), transport);
    assertThat(counter.next()).as("the next number, after every confirmed one").isGreaterThan(max);
  }

  /**
   * A peer restarted with the cluster file it started with, after the membership changed: it takes
   * the membership of its log (it knows and redirects to the added peer), and says so once.
   */
  @Test
  void aPeerRestartedWithAStaleClusterFileTakesTheMembershipOfItsLog() throws Exception {
    Slots slots = new Slots();
    ClusterFile three = slots.file(3);
    for (int i = 0; i < 3; i++) start(three, "n" + i);
    awaitServing();
    join(slots.file(4), "n3");
    try (ClusterAdmin admin = ClusterAdmin.connect(three.config(), null)) {
      admin.replace("n2", slots.file(4).peer("n3"));
    }
    kill("n2");
    String restarted = "n0";
    kill(restarted);
    ch.qos.logback.classic.Logger logger =
        (ch.qos.logback.classic.Logger) LoggerFactory.getLogger(RatisPeer.class);
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    logger.addAppender(lines);
    try {
      ClusterNode node = start(three, restarted); // the file still lists n2, not n3
      assertThat(node.peer().members(0))
          .extracting(ClusterConfig.Peer::id)
          .containsExactly("n0", "n1", "n3");
      assertThat(node.peer().httpOf("n3"))
          .as("the added peer's object server, carried by the membership")
          .contains(slots.file(4).http().get("n3"));
      assertThat(lines.list)
          .extracting(ILoggingEvent::getFormattedMessage)
          .filteredOn(l -> l.contains("membership from its log"))
          .singleElement()
          .asString()
          .contains("peer n0: shard 0's membership from its log is")
          .contains("n3 (127.0.0.1:" + slots.raft[3] + ")")
          .contains("the log wins");
    } finally {
      logger.detachAppender(lines);
    }
    awaitServing();
  }

  @Test
  void aChangeThatMakesNoSenseIsRefusedWithAClearMessageAndChangesNothing() {
    Slots slots = new Slots();
    ClusterFile three = slots.file(3);
    for (int i = 0; i < 3; i++) start(three, "n" + i);
    awaitServing();
    try (ClusterAdmin admin = ClusterAdmin.connect(three.config(), null)) {
      assertThatThrownBy(() -> admin.replace("n9", slots.file(4).peer("n3")))
          .hasMessageContaining("peer n9 is not a member (members: [n0, n1, n2])");
      assertThatThrownBy(() -> admin.add(new ClusterConfig.Peer("n3", "127.0.0.1", slots.raft[0])))
          .hasMessageContaining("raft address 127.0.0.1:" + slots.raft[0] + " is member n0's");
      assertThatThrownBy(() -> admin.replace("n1", slots.file(3).peer("n2")))
          .hasMessageContaining("peer n2 is a member already");
      assertThat(admin.members().getFirst().ids()).containsExactly("n0", "n1", "n2");
      assertThat(admin.remove("n9").getFirst().ids())
          .as("removing a peer that is not a member: nothing to do")
          .containsExactly("n0", "n1", "n2");
    }
  }
}
