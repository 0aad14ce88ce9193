package io.anteroom.gateway.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.anteroom.coordinator.CoordinatorServer;
import io.anteroom.coordinator.DataCenterCoordinator;
import io.anteroom.coordinator.RoomObjects;
import io.anteroom.coordinator.server.CoordinatorPeer;
import io.anteroom.gateway.Browser;
import io.anteroom.gateway.Harness;
import io.anteroom.gateway.TestOrigin;
import io.anteroom.host.ObjectCoordination;
import io.anteroom.objects.ManualScheduler;
import io.anteroom.objects.ObjectId;
import io.anteroom.objects.Stubs;
import io.anteroom.objects.http.HttpObjectTransport;
import io.anteroom.objects.ratis.ClusterFile;
import io.anteroom.objects.ratis.ClusterNode;
import io.anteroom.objects.ratis.PeerOptions;
import io.anteroom.room.CounterKey;
import io.anteroom.room.RoomConfig;
import io.anteroom.testkit.LocalPeers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rooms spread over the shards of a replicated coordinator (three peers, three shards, in-process):
 * each shard has its own leader, a room's objects are served by the leader of the shard their names
 * hash to, a data-center object reaches its room's global object on another shard (and again after
 * that shard's leader died), and the rooms' limits hold.
 */
class ShardedClusterTest {
  private static final int SHARDS = 3;
  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();

  @TempDir Path dir;
  private final List<ClusterNode> nodes = new ArrayList<>();
  private ClusterFile file;

  @AfterEach
  void stop() {
    for (ClusterNode n : nodes) n.close();
  }

  private void startCluster() {
    String yaml = "shards: " + SHARDS + "\n" + LocalPeers.yaml("c", 1, 3);
    file = ClusterFile.parse(yaml, "test");
    PeerOptions options =
        PeerOptions.builder()
            .localStorage(PeerOptions.LocalStorage.MEMORY)
            .electionTimeout(Duration.ofMillis(300), Duration.ofMillis(600))
            .commitTimeout(Duration.ofSeconds(15))
            .build();
    for (var peer : file.config().peers()) {
      var uri = file.http().get(peer.id());
      nodes.add(
          CoordinatorPeer.start(
              CoordinatorPeer.Options.builder(
                      file,
                      peer.id(),
                      dir.resolve(peer.id()),
                      CoordinatorServer.Options.builder(uri.getHost(), uri.getPort()).build())
                  .peer(options)
                  .events(line -> System.out.println("event: " + line))
                  .build()));
    }
  }

  /** Waits until every shard is served by its preferred leader, and returns shard -> node. */
  private Map<Integer, ClusterNode> awaitSpreadLeaders() {
    return await("each shard served by its preferred leader, three different peers")
        .atMost(Duration.ofSeconds(120))
        .until(
            () -> {
              Map<Integer, ClusterNode> leaders = new LinkedHashMap<>();
              for (int s = 0; s < SHARDS; s++) {
                String preferred =
                    ClusterNode.preferredLeader(nodes.getFirst().peer(), s).orElseThrow();
                for (ClusterNode n : nodes) {
                  if (n.serves(s) && n.peer().id().equals(preferred)) leaders.put(s, n);
                }
              }
              return leaders;
            },
            m -> m.size() == SHARDS && new HashSet<>(m.values()).size() == SHARDS);
  }

  private ClusterNode servingNode(int shard) {
    return nodes.stream().filter(n -> n.serves(shard)).findFirst().orElse(null);
  }

  private int shardOf(String namespace, String name) {
    return nodes.getFirst().shardOf(namespace, ObjectId.fromName(namespace, name));
  }

  private int dataCenterShard(String room) {
    return shardOf(
        RoomObjects.DATA_CENTER_NAMESPACE, RoomObjects.dataCenterObjectName(room, "dublin"));
  }

  /** Calls {@code room}'s dublin object at one coordinator only: whether that one ran it. */
  private boolean answers(ClusterNode node, String room) throws Exception {
    try (var transport = HttpObjectTransport.builder(node.uri()).build()) {
      DataCenterCoordinator dc =
          Stubs.create(
              DataCenterCoordinator.class,
              RoomObjects.DATA_CENTER_NAMESPACE,
              ObjectId.fromName(
                  RoomObjects.DATA_CENTER_NAMESPACE,
                  RoomObjects.dataCenterObjectName(room, "dublin")),
              transport);
      try {
        dc.historyAsync(room, 0, 1).get(20, TimeUnit.SECONDS);
        return true;
      } catch (java.util.concurrent.ExecutionException e) {
        assertThat(e.getCause().getMessage()).contains("421");
        return false;
      }
    }
  }

  @Test
  void eachShardHasItsOwnLeaderAndARoomIsServedByTheLeaderOfItsShardWithItsLimitHeld()
      throws Exception {
    startCluster();
    Map<Integer, ClusterNode> leaders = awaitSpreadLeaders();

    // six rooms, their data-center objects on every shard
    List<String> rooms = new ArrayList<>();
    Set<Integer> shardsUsed = new HashSet<>();
    for (int i = 0; rooms.size() < 6; i++) {
      String room = "room" + i;
      int s = dataCenterShard(room);
      if (rooms.size() < 3 && shardsUsed.contains(s)) continue; // one per shard first
      shardsUsed.add(s);
      rooms.add(room);
    }
    assertThat(shardsUsed).hasSize(SHARDS);

    for (String room : rooms) {
      int s = dataCenterShard(room);
      for (ClusterNode n : nodes) {
        assertThat(answers(n, room))
            .as("room %s (shard %d) at %s", room, s, n.peer().id())
            .isEqualTo(n == leaders.get(s));
      }
    }

    StringBuilder yaml = new StringBuilder("rooms:\n");
    for (String room : rooms)
      yaml.append("  - { id: ")
          .append(room)
          .append(", path: /")
          .append(room)
          .append("/, totalActiveUsers: 2 }\n");
    var scheduler = new ManualScheduler(Harness.START);
    var link =
        ObjectCoordination.remote(file.coordinators(), Duration.ofSeconds(20), null, List.of());
    try (var gw =
        new Harness(
            dir.resolve("gw"), yaml.toString(), new TestOrigin(), scheduler, link, "dublin")) {
      List<Browser> admitted = new ArrayList<>();
      for (String room : rooms) {
        for (int i = 0; i < 2; i++) {
          Browser b = gw.browser();
          assertThat(Browser.reachedOrigin(b.get("/" + room + "/")))
              .as("user %d of %s", i, room)
              .isTrue();
          admitted.add(b);
        }
      }
      for (String room : rooms) gw.report(room);
      for (String room : rooms) {
        for (int i = 0; i < 3; i++) {
          assertThat(Browser.reachedOrigin(gw.browser().get("/" + room + "/")))
              .as("%s holds T = 2: newcomer %d queued", room, i)
              .isFalse();
        }
      }
      for (int i = 0; i < admitted.size(); i++) {
        String room = rooms.get(i / 2);
        assertThat(Browser.reachedOrigin(admitted.get(i).get("/" + room + "/")))
            .as("admitted user %d of %s keeps browsing", i % 2, room)
            .isTrue();
      }
      for (String room : rooms) {
        var st = JSON.readTree(gw.admin("GET", "/api/rooms/" + room + "/status", null).body());
        assertThat(st.get("degraded").asBoolean()).as("%s reports to its shard", room).isFalse();
      }
    } finally {
      link.close();
    }
  }

  @Test
  void aDataCenterObjectReachesItsGlobalObjectOnAnotherShardAlsoAfterThatShardsLeaderDied()
      throws Exception {
    startCluster();
    Map<Integer, ClusterNode> leaders = awaitSpreadLeaders();
    String room = null;
    for (int i = 0; room == null; i++) {
      String r = "shop" + i;
      if (dataCenterShard(r) != shardOf(RoomObjects.GLOBAL_NAMESPACE, r)) room = r;
    }
    int dcShard = dataCenterShard(room);
    int globalShard = shardOf(RoomObjects.GLOBAL_NAMESPACE, room);
    ClusterNode globalLeader = leaders.get(globalShard);
    assertThat(globalLeader).isNotSameAs(leaders.get(dcShard));

    // a counter of the global object's shard, so the gateway's link has seen that shard's instance
    CounterKey counter = null;
    long minute = java.time.Instant.now().getEpochSecond() / 60;
    for (int dc = 0; counter == null; dc++) {
      CounterKey k = CounterKey.dataCenter(room, "dc" + dc, minute);
      if (shardOf(RoomObjects.COUNTER_NAMESPACE, k.objectName()) == globalShard) counter = k;
    }

    var link =
        ObjectCoordination.remote(file.coordinators(), Duration.ofSeconds(20), null, List.of());
    try {
      link.configure(
              RoomConfig.builder(room)
                  .totalActiveUsers(10)
                  .newUsersPerMinute(100)
                  .sessionDurationMinutes(10)
                  .build())
          .toCompletableFuture()
          .get(20, TimeUnit.SECONDS);
      // across peers: the data center's leader calls the global object's leader over HTTP
      var first =
          link.override(room, "dublin", Map.of("suspended", "true"))
              .toCompletableFuture()
              .get(20, TimeUnit.SECONDS);
      assertThat(first.values()).containsEntry("suspended", "true");
      try (var routing =
          io.anteroom.objects.http.RoutingObjectTransport.builder(file.coordinators())
              .timeout(Duration.ofSeconds(20))
              .build()) {
        var global =
            Stubs.create(
                io.anteroom.coordinator.GlobalCoordinator.class,
                RoomObjects.GLOBAL_NAMESPACE,
                ObjectId.fromName(RoomObjects.GLOBAL_NAMESPACE, room),
                routing);
        assertThat(global.overrides().values())
            .as("the global object on its own shard holds it (not a copy in the data center's)")
            .containsEntry("suspended", "true");
      }
      link.take(counter, 100, null).toCompletableFuture().get(20, TimeUnit.SECONDS);
      long changesBefore = link.incarnationChanges();

      System.out.println("step: closing " + globalLeader.peer().id());
      nodes.remove(globalLeader);
      globalLeader
          .close(); // the global object's shard loses its leader; the data center's keeps it
      System.out.println("step: closed");
      await("another peer serves shard " + globalShard)
          .atMost(Duration.ofSeconds(60))
          .until(() -> servingNode(globalShard) != null);
      assertThat(servingNode(dcShard)).isSameAs(leaders.get(dcShard));

      assertThat(
              link.overrides(room, "dublin")
                  .toCompletableFuture()
                  .get(20, TimeUnit.SECONDS)
                  .values())
          .as("the override confirmed before the failover, read through the data center")
          .containsEntry("suspended", "true");
      var second =
          link.override(room, "dublin", Map.of("suspended", "false"))
              .toCompletableFuture()
              .get(20, TimeUnit.SECONDS);
      assertThat(second.version()).isEqualTo(first.version() + 1);

      link.take(counter, 100, null).toCompletableFuture().get(20, TimeUnit.SECONDS);
      assertThat(link.incarnationChanges())
          .as("the gateway's link saw the new instance of the shard it uses")
          .isGreaterThan(changesBefore);
    } finally {
      link.close();
    }
  }
}
