package io.anteroom.gateway.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.anteroom.coordinator.CoordinatorServer;
import io.anteroom.coordinator.server.CoordinatorPeer;
import io.anteroom.gateway.Browser;
import io.anteroom.gateway.Harness;
import io.anteroom.gateway.TestOrigin;
import io.anteroom.host.ObjectCoordination;
import io.anteroom.objects.ManualScheduler;
import io.anteroom.objects.http.SharedSecret;
import io.anteroom.objects.ratis.ClusterFile;
import io.anteroom.objects.ratis.ClusterNode;
import io.anteroom.objects.ratis.PeerOptions;
import io.anteroom.testkit.LocalPeers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A gateway listing the three coordinators of a replicated cluster ({@code anteroom coordinator
 * --cluster}, in-process here): the room objects run on the shard's leader, the gateway's calls
 * reach it through the routing transport, and the room's counts survive a leader change.
 */
class ClusterCoordinationTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final SharedSecret SECRET = SharedSecret.generate("k1");

  @TempDir Path dir;
  private final List<ClusterNode> nodes = new ArrayList<>();

  @AfterEach
  void stop() {
    for (ClusterNode n : nodes) n.close();
  }

  @Test
  void aGatewayListingAllCoordinatorsSharesTheRoomAndKeepsItsCountsAcrossALeaderChange()
      throws Exception {
    String yaml = LocalPeers.yaml("c", 1, 3);
    ClusterFile file = ClusterFile.parse(yaml, "test");
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
                      CoordinatorServer.Options.builder(uri.getHost(), uri.getPort())
                          .secrets(List.of(SECRET))
                          .build())
                  .peer(options)
                  .events(line -> {})
                  .build()));
    }
    ClusterNode leader =
        await("a coordinator serves the room objects")
            .atMost(Duration.ofSeconds(60))
            .until(
                () -> nodes.stream().filter(n -> n.serves(0)).findFirst().orElse(null),
                n -> n != null);

    var scheduler = new ManualScheduler(Harness.START);
    var link =
        ObjectCoordination.remote(file.coordinators(), Duration.ofSeconds(20), SECRET, List.of());
    try (var gw =
        new Harness(
            dir.resolve("gw"),
            "rooms: [ { id: shop, totalActiveUsers: 2 } ]",
            new TestOrigin(),
            scheduler,
            link,
            "dublin")) {
      assertThat(Browser.reachedOrigin(gw.browser().get("/"))).isTrue();
      assertThat(Browser.reachedOrigin(gw.browser().get("/"))).isTrue();
      gw.report("shop");
      var st = JSON.readTree(gw.admin("GET", "/api/rooms/shop/status", null).body());
      assertThat(st.get("degraded").asBoolean()).as("reports are accepted").isFalse();
      assertThat(Browser.reachedOrigin(gw.browser().get("/"))).as("the room is full").isFalse();

      ClusterNode next = nodes.stream().filter(n -> n != leader).findFirst().orElseThrow();
      leader.peer().engine(0).transferLeadership(next.peer().id());
      await("the new leader serves")
          .atMost(Duration.ofSeconds(60))
          .until(() -> next.serves(0) && !leader.serves(0));
      long changesBefore = link.incarnationChanges();
      gw.report("shop");
      assertThat(link.incarnationChanges())
          .as("the new leader's answer named a new instance of the room's objects")
          .isGreaterThan(changesBefore);
      st = JSON.readTree(gw.admin("GET", "/api/rooms/shop/status", null).body());
      assertThat(st.get("degraded").asBoolean()).as("reports reach the new leader").isFalse();
      // the gateway took the new leader for an outage: no counter is drawn for W; after it, the
      // counts must have moved with the leadership
      scheduler.advance(Duration.ofSeconds(20));
      gw.report("shop");
      assertThat(Browser.reachedOrigin(gw.browser().get("/")))
          .as("the counts moved with the leadership: the room is still full")
          .isFalse();
    } finally {
      link.close();
    }
  }
}
