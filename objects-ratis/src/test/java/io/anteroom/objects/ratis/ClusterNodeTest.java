package io.anteroom.objects.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.anteroom.objects.ObjectId;
import io.anteroom.objects.ObjectTransport;
import io.anteroom.objects.Stubs;
import io.anteroom.objects.http.HttpObjectTransport;
import io.anteroom.objects.http.IncarnationWatch;
import io.anteroom.objects.http.RoutingObjectTransport;
import io.anteroom.objects.http.SharedSecret;
import io.anteroom.objects.ratis.ReplicatedRuntimeTest.Counter;
import io.anteroom.objects.ratis.ReplicatedRuntimeTest.CounterObject;
import io.anteroom.testkit.LocalPeers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.ratis.proto.RaftProtos;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three {@link ClusterNode}s in this JVM: the assembly of {@code anteroom coordinator --cluster}.
 */
class ClusterNodeTest {
  private static final SharedSecret SECRET = SharedSecret.generate("node-test");

  @TempDir Path dir;
  private final List<ClusterNode> nodes = new ArrayList<>();
  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final List<String> events = new CopyOnWriteArrayList<>();
  private final Map<String, ClusterNode> byId = new ConcurrentHashMap<>();

  /** For each "leads shard 0" line: whether its node already served shard 0 as it was written. */
  private final List<Boolean> servingAtLeadsLine = new CopyOnWriteArrayList<>();

  /** Makes the event sink throw on every "leads shard" line, after recording it. */
  private volatile boolean sinkFailsOnLeadsLines;

  private void event(String line) {
    events.add(line);
    for (String id : byId.keySet()) {
      if (line.startsWith("peer " + id + " " + ClusterNode.LEADS + "0 "))
        servingAtLeadsLine.add(byId.get(id).serves(0));
    }
    if (sinkFailsOnLeadsLines && line.contains(ClusterNode.LEADS))
      throw new IllegalStateException("the operator's sink is broken");
  }

  @AfterEach
  void stop() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) toClose.get(i).close();
    for (ClusterNode n : nodes) n.close();
  }

  private ClusterFile startCluster() {
    String yaml = "name: nodes\n" + LocalPeers.yaml("n", 0, 3);
    ClusterFile file = ClusterFile.parse(yaml, "test");
    for (ClusterConfig.Peer p : file.config().peers()) {
      nodes.add(
          ClusterNode.builder(file, p.id(), dir.resolve(p.id()))
              .options(
                  TestCluster.testOptions().localStorage(PeerOptions.LocalStorage.MEMORY).build())
              .objects(runtime -> runtime.namespace("counter", Counter.class, CounterObject::new))
              .server(server -> server.export("counter").secret(SECRET))
              .events(this::event)
              .start());
      byId.put(p.id(), nodes.get(nodes.size() - 1));
    }
    return file;
  }

  /** The counter "c" through a routing transport over every coordinator of {@code file}. */
  private Counter routedCounter(ClusterFile file) {
    return routedCounter(file, new IncarnationWatch());
  }

  /** As above, the replies' runtime instances noted in {@code watch}. */
  private Counter routedCounter(ClusterFile file, IncarnationWatch watch) {
    return counterThrough(
        RoutingObjectTransport.builder(file.coordinators())
            .secret(SECRET)
            .timeout(Duration.ofSeconds(20))
            .incarnations(watch)
            .build());
  }

  /** The counter "c" sent straight to {@code node}, whatever it leads. */
  private Counter directCounter(ClusterNode node) {
    return counterThrough(
        HttpObjectTransport.builder(node.uri())
            .secret(SECRET)
            .timeout(Duration.ofSeconds(10))
            .build());
  }

  private Counter counterThrough(ObjectTransport transport) {
    toClose.add(transport);
    return Stubs.create(Counter.class, "counter", ObjectId.fromName("counter", "c"), transport);
  }

  private ClusterNode awaitServing() {
    return await("a node serves shard 0")
        .atMost(TestCluster.PATIENCE)
        .until(
            () -> nodes.stream().filter(n -> n.serves(0)).findFirst().orElse(null), n -> n != null);
  }

  @Test
  void aRestartedPeerSaysOnceThatItFollowsTheShardsLeader() {
    ClusterFile file = startCluster();
    ClusterNode leader = awaitServing();
    ClusterNode follower = nodes.stream().filter(n -> n != leader).findFirst().orElseThrow();
    String id = follower.peer().id();
    String follows = "peer " + id + " " + ClusterNode.FOLLOWS + "0 (leader " + leader.peer().id();
    await("the follower's line")
        .atMost(TestCluster.PATIENCE)
        .until(() -> events.stream().anyMatch(l -> l.startsWith(follows)));

    follower.close();
    nodes.remove(follower);
    int before = events.size();
    ClusterNode restarted =
        ClusterNode.builder(file, id, dir.resolve(id))
            .options(
                TestCluster.testOptions().localStorage(PeerOptions.LocalStorage.MEMORY).build())
            .objects(runtime -> runtime.namespace("counter", Counter.class, CounterObject::new))
            .server(server -> server.export("counter").secret(SECRET))
            .events(this::event)
            .start();
    nodes.add(restarted);
    await("the restarted peer's line")
        .atMost(TestCluster.PATIENCE)
        .until(
            () ->
                events.subList(before, events.size()).stream()
                    .anyMatch(l -> l.startsWith(follows)));
    // calls made through it reach the leader: Ratis has told it of the leader more than once by now
    assertThat(routedCounter(file).next()).isNotNegative();
    assertThat(events.subList(before, events.size()))
        .as("the restarted peer's lines")
        .filteredOn(l -> l.startsWith("peer " + id + " "))
        .containsExactly(
            follows
                + ", term "
                + leader.peer().engine(0).term()
                + "): a follower, calls for its objects go to the leader");
  }

  @Test
  void aNodeWritesItsLeadsLineBeforeItServes() {
    startCluster();
    ClusterNode leader = awaitServing();
    // its line was written before serves() turned true, so it is there already
    assertThat(events).anyMatch(l -> l.startsWith("peer " + leader.peer().id() + " leads shard 0"));
    // a leader elected once every node is known here: its line is checked as it is written
    ClusterNode next = nodes.stream().filter(n -> n != leader).findFirst().orElseThrow();
    leader.peer().engine(0).transferLeadership(next.peer().id());
    await("the new leader serves").atMost(TestCluster.PATIENCE).until(() -> next.serves(0));
    assertThat(events).anyMatch(l -> l.startsWith("peer " + next.peer().id() + " leads shard 0"));
    assertThat(servingAtLeadsLine).isNotEmpty().containsOnly(false);
  }

  @Test
  void aLeaderReplacesItsConnectionsToAFollowerThatStoppedAnsweringAndOnlyToIt() throws Exception {
    startCluster();
    ClusterNode leader = awaitServing();
    List<ClusterNode> followers = nodes.stream().filter(n -> n != leader).toList();
    String silent = followers.get(0).peer().id();
    String answering = followers.get(1).peer().id();
    Object channelsBefore = leader.peer().channelsTo(silent);
    followers.get(0).close(); // stops answering the leader
    // replaced once the follower has been silent for the silence, and again while it stays so
    await(leader.peer().id() + " replaces its connections to " + silent + " twice")
        .atMost(TestCluster.PATIENCE)
        .until(() -> leader.peer().reconnectsTo(silent) >= 2);
    assertThat(leader.peer().channelsTo(silent)).isNotSameAs(channelsBefore);
    assertThat(leader.serves(0)).isTrue(); // a majority still answers
    assertThat(leader.peer().reconnectsTo(answering)).isZero();
  }

  /**
   * On Ratis' default chain of follower appends (3.2.2, 3.3.0: append-entries.compose), once one
   * append failed every later one failed too, so that follower took no entry from any leader again
   * (the fault suite's run 11: the two faults that left three peers of five, one of them that
   * follower, had no majority for their whole cut). Our peers append without the chain ({@link
   * RatisPeer}). Here one append to a follower's log fails (an entry of an older term than its last
   * one: the log refuses it before writing anything, as it refused the out-of-order entry in the
   * suite), then the other follower stops, so the leader needs that follower for every commit.
   */
  @Test
  void aFollowerWhoseLogRefusedOneAppendTakesTheLeadersNextEntries() throws Exception {
    ClusterFile file = startCluster();
    Counter counter = routedCounter(file);
    assertThat(counter.next()).isZero();
    ClusterNode leader = awaitServing();
    List<ClusterNode> followers = nodes.stream().filter(n -> n != leader).toList();
    ClusterNode refusing = followers.get(0);
    RaftServer.Division leaderShard = leader.peer().server().getDivision(leader.peer().groupId(0));
    RaftServer.Division followerShard =
        refusing.peer().server().getDivision(refusing.peer().groupId(0));
    await(refusing.peer().id() + " holds the leader's last entry")
        .atMost(TestCluster.PATIENCE)
        .until(
            () ->
                followerShard
                    .getRaftLog()
                    .getLastEntryTermIndex()
                    .equals(leaderShard.getRaftLog().getLastEntryTermIndex()));

    Throwable refused = appendAnEntryOfAnOlderTerm(leader.peer(), refusing.peer(), followerShard);
    assertThat(refused).hasMessageContaining("Entry term less than RaftLog's last term");

    followers.get(1).close(); // the leader's majority is now itself and the refusing follower
    assertThat(counter.next()).isEqualTo(1);
    assertThat(counter.next()).isEqualTo(2);
    long committed = leaderShard.getRaftLog().getLastCommittedIndex(); // needed its log
    assertThat(followerShard.getRaftLog().getLastEntryTermIndex().getIndex())
        .isGreaterThanOrEqualTo(committed);
  }

  /**
   * Sends {@code to} an AppendEntries request as from the leader {@code from}, following its last
   * entry with one entry of the term before it, and returns the failure (its log refuses it).
   */
  private static Throwable appendAnEntryOfAnOlderTerm(
      RatisPeer from, RatisPeer to, RaftServer.Division shard) throws Exception {
    TermIndex last = shard.getRaftLog().getLastEntryTermIndex();
    long term = shard.getInfo().getCurrentTerm();
    RaftProtos.AppendEntriesRequestProto request =
        RaftProtos.AppendEntriesRequestProto.newBuilder()
            .setServerRequest(
                RaftProtos.RaftRpcRequestProto.newBuilder()
                    .setRequestorId(RaftPeerId.valueOf(from.id()).toByteString())
                    .setReplyId(RaftPeerId.valueOf(to.id()).toByteString())
                    .setRaftGroupId(
                        RaftProtos.RaftGroupIdProto.newBuilder()
                            .setId(to.groupId(0).toByteString()))
                    .setCallId(Long.MAX_VALUE / 2))
            .setLeaderTerm(term)
            .setPreviousLog(last.toProto())
            .addEntries(
                RaftProtos.LogEntryProto.newBuilder()
                    .setTerm(last.getTerm() - 1)
                    .setIndex(last.getIndex() + 1))
            .setLeaderCommit(shard.getRaftLog().getLastCommittedIndex())
            .build();
    try {
      to.server().appendEntriesAsync(request).join();
    } catch (java.util.concurrent.CompletionException e) {
      Throwable t = e;
      while (t.getCause() != null && t instanceof java.util.concurrent.CompletionException)
        t = t.getCause();
      return t;
    }
    throw new AssertionError("the follower took an entry of an older term than its last one");
  }

  @Test
  void anEventSinkThatFailsDoesNotStopTheLeaderFromServing() {
    sinkFailsOnLeadsLines = true;
    ClusterFile file = startCluster();
    ClusterNode leader = awaitServing();
    assertThat(events).anyMatch(l -> l.startsWith("peer " + leader.peer().id() + " leads shard 0"));
    Counter counter = routedCounter(file);
    assertThat(counter.next()).isZero();
  }

  @Test
  void theLeaderServesTheOthersRedirectAndALeaderChangeClosesTheOldRuntime() throws Exception {
    ClusterFile file = startCluster();
    ClusterNode leader = awaitServing();
    assertThat(events).anyMatch(l -> l.contains("peer " + leader.peer().id() + " leads shard 0"));

    var watch = new IncarnationWatch();
    Counter counter = routedCounter(file, watch);
    assertThat(counter.next()).isZero();
    assertThat(counter.next()).isEqualTo(1);

    // a follower answers 421 naming the leader, without running the call
    ClusterNode follower = nodes.stream().filter(n -> n != leader).findFirst().orElseThrow();
    Counter viaFollower = directCounter(follower);
    assertThatThrownBy(viaFollower::next)
        .hasMessageContaining("421")
        .hasMessageContaining(leader.uri().toString());

    // the gRPC back-off reset reaches Ratis' channels (it is reflective: a Ratis upgrade may break
    // it)
    leader.peer().resetConnectBackoff();
    assertThat(leader.peer().canResetConnectBackoff()).isTrue();

    // health and metrics on the leader: every follower's lag is known
    ClusterStatus status = leader.status();
    assertThat(status.healthy()).isTrue();
    assertThat(status.shards().getFirst().role()).isEqualTo("LEADER");
    assertThat(status.shards().getFirst().serving()).isTrue();
    assertThat(status.shards().getFirst().followerLag()).hasSize(2);
    try (ClusterStatusServer server = ClusterStatusServer.start(leader, "127.0.0.1", 0);
        HttpClient client = HttpClient.newHttpClient()) {
      HttpResponse<String> health =
          client.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/health"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(health.body())
          .contains("\"peer\":\"" + leader.peer().id() + "\"", "\"role\":\"LEADER\"");
      HttpResponse<String> metrics =
          client.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/metrics"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(metrics.body())
          .contains(
              "anteroom_cluster_shard_serving{peer=\"" + leader.peer().id() + "\",shard=\"0\"} 1",
              "# TYPE anteroom_cluster_shard_term gauge",
              "anteroom_cluster_follower_lag_entries{peer=\"" + leader.peer().id());
    }

    // leadership moves: the old leader closes its runtime, the new one serves and counts on
    long changesBefore = watch.changes();
    leader.peer().engine(0).transferLeadership(follower.peer().id());
    await("the old leader closes its runtime")
        .atMost(TestCluster.PATIENCE)
        .until(() -> !leader.serves(0) && follower.serves(0));
    // written once the runtime has closed, which is after it stopped serving
    await("the old leader's line")
        .atMost(TestCluster.PATIENCE)
        .untilAsserted(
            () ->
                assertThat(events)
                    .anyMatch(
                        l ->
                            l.contains("peer " + leader.peer().id() + " no longer leads shard 0")));
    assertThat(counter.next()).isEqualTo(2);
    assertThat(follower.runtimesStarted(0)).isPositive();
    // the caller learnt from the new leader's reply that the shard's objects were recreated
    assertThat(watch.changes()).isGreaterThan(changesBefore);
  }

  @Test
  void misdirectedCallsAndFencingsAreCountedPerShardAndServedAsPrometheusCounters()
      throws Exception {
    ClusterFile file = startCluster();
    ClusterNode leader = awaitServing();
    Counter counter = routedCounter(file);
    assertThat(counter.next()).isZero(); // a live instance on the leader
    ClusterNode follower = nodes.stream().filter(n -> n != leader).findFirst().orElseThrow();
    ClusterStatus.Shard before = follower.status().shards().getFirst();
    assertThat(leader.status().shards().getFirst().fencings()).isZero();

    Counter viaFollower = directCounter(follower);
    for (int i = 0; i < 3; i++) assertThatThrownBy(viaFollower::next).hasMessageContaining("421");
    assertThat(follower.status().shards().getFirst().misdirected())
        .as("421 answers counted on the follower")
        .isEqualTo(before.misdirected() + 3);

    // leadership moves: the old leader's runtime is fenced, resetting its live instance
    leader.peer().engine(0).transferLeadership(follower.peer().id());
    await("the old leader is fenced")
        .atMost(TestCluster.PATIENCE)
        .until(() -> leader.status().shards().getFirst().fencings() > 0 && follower.serves(0));
    assertThat(leader.status().shards().getFirst().fencedInstances()).isPositive();
    assertThat(follower.status().shards().getFirst().elections())
        .as("the campaign that made the follower leader")
        .isPositive();
    assertThat(counter.next()).isEqualTo(1);

    try (ClusterStatusServer server = ClusterStatusServer.start(leader, "127.0.0.1", 0);
        HttpClient client = HttpClient.newHttpClient()) {
      String metrics =
          client
              .send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + server.port() + "/metrics"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      String labels = "{peer=\"" + leader.peer().id() + "\",shard=\"0\"} ";
      ClusterStatus.Shard now = leader.status().shards().getFirst();
      assertThat(metrics)
          .contains(
              "# TYPE anteroom_cluster_misdirected_calls_total counter",
              "# TYPE anteroom_cluster_fencings_total counter",
              "anteroom_cluster_fencings_total" + labels + now.fencings(),
              "anteroom_cluster_fenced_instances_total" + labels + now.fencedInstances(),
              "# TYPE anteroom_cluster_elections_total counter",
              "anteroom_cluster_elections_total" + labels + now.elections());
      assertThat(metrics).containsPattern("anteroom_cluster_misdirected_calls_total\\{peer=");
    }
  }
}
