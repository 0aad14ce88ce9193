package io.anteroom.objects.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.anteroom.testkit.FreePorts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shard count of a cluster is fixed for the life of its data: a peer refuses a data directory
 * made for another count, with a message that says what to do (objects would otherwise be looked
 * for on shards that do not hold them).
 */
class ShardCountTest {
  @TempDir Path dir;

  private ClusterConfig config(int port, int shards) {
    return new ClusterConfig(
        "count", List.of(new ClusterConfig.Peer("p0", "127.0.0.1", port)), shards);
  }

  @Test
  void aDataDirectoryMadeForOneShardCountIsRefusedWithAnotherAndAcceptedWithItsOwn()
      throws Exception {
    int port = FreePorts.take();
    Path data = dir.resolve("p0");
    RatisPeer.start(config(port, 1), "p0", data, TestCluster.testOptions().build()).close();
    assertThat(Files.readString(data.resolve("raft").resolve(RatisPeer.SHARDS_FILE)).strip())
        .isEqualTo("1");

    for (int other : new int[] {3, 2}) {
      assertThatThrownBy(
              () ->
                  RatisPeer.start(
                      config(port, other), "p0", data, TestCluster.testOptions().build()))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("holds 1 shard(s) of cluster count")
          .hasMessageContaining("the cluster file says shards: " + other)
          .hasMessageContaining("put shards: 1 back in the file")
          .hasMessageContaining("\"Changing the shard count\" in docs/cluster.md");
    }
    RatisPeer.start(config(port, 1), "p0", data, TestCluster.testOptions().build()).close();
  }

  @Test
  void aDirectoryWithoutTheRecordIsJudgedByItsGroupsAndAnEmptyOneTakesAnyCount() throws Exception {
    int port = FreePorts.take();
    Path data = dir.resolve("p0");
    RatisPeer.start(config(port, 3), "p0", data, TestCluster.testOptions().build()).close();
    Files.delete(data.resolve("raft").resolve(RatisPeer.SHARDS_FILE)); // as before the record
    assertThatThrownBy(
            () -> RatisPeer.start(config(port, 1), "p0", data, TestCluster.testOptions().build()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("holds 3 shard(s)")
        .hasMessageContaining("says shards: 1");
    RatisPeer.start(config(port, 3), "p0", data, TestCluster.testOptions().build()).close();
    assertThat(Files.readString(data.resolve("raft").resolve(RatisPeer.SHARDS_FILE)).strip())
        .isEqualTo("3");

    RatisPeer.start(config(port, 2), "p0", dir.resolve("fresh"), TestCluster.testOptions().build())
        .close();
  }
}
