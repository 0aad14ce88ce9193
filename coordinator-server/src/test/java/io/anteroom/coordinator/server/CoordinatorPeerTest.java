package io.anteroom.coordinator.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.anteroom.coordinator.CoordinatorServer;
import io.anteroom.coordinator.RoomObjects;
import io.anteroom.objects.ratis.ClusterFile;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A replicated coordinator's peer: its settings and what it refuses before it starts anything. */
class CoordinatorPeerTest {
  private static final ClusterFile PLAIN =
      ClusterFile.parse(
          """
          name: test
          shards: 1
          peers:
            - { id: c1, raft: 127.0.0.1:17071, http: http://127.0.0.1:17081 }
            - { id: c2, raft: 127.0.0.1:17072, http: https://127.0.0.1:17082 }
          """,
          "test");

  @Test
  void aPeerServingHttpsRefusesAFileWhosePeersAreReachedOverPlainHttp(@TempDir Path dir) {
    var server =
        CoordinatorServer.Options.builder("127.0.0.1", 17081)
            .tls(dir.resolve("cert.pem"), dir.resolve("key.pem"))
            .build();
    assertThatThrownBy(
            () ->
                CoordinatorPeer.start(
                    CoordinatorPeer.Options.builder(PLAIN, "c1", dir, server).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "peer c1 has http: http://127.0.0.1:17081 but this coordinator serves HTTPS"
                + " (--tls-cert): every peer's URI in the cluster file must use https://");
  }

  @Test
  void aPeerServingPlainHttpRefusesAFileWithAnHttpsPeer(@TempDir Path dir) {
    var server = CoordinatorServer.Options.builder("127.0.0.1", 17081).build();
    assertThatThrownBy(
            () ->
                CoordinatorPeer.start(
                    CoordinatorPeer.Options.builder(PLAIN, "c1", dir, server).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("peer c2 has http: https://127.0.0.1:17082")
        .hasMessageContaining("serves plain HTTP (no --tls-cert)");
  }

  @Test
  void aPeerExportsWhatGatewaysCallAndTheGlobalObjectsForTheOtherShards() {
    assertThat(CoordinatorPeer.PEER_NAMESPACES)
        .containsAll(CoordinatorServer.GATEWAY_NAMESPACES)
        .contains(RoomObjects.GLOBAL_NAMESPACE)
        .hasSize(CoordinatorServer.GATEWAY_NAMESPACES.size() + 1);
    assertThat(CoordinatorServer.GATEWAY_NAMESPACES).doesNotContain(RoomObjects.GLOBAL_NAMESPACE);
  }
}
