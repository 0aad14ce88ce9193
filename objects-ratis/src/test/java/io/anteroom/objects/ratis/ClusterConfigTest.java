package io.anteroom.objects.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ClusterConfigTest {
  private static ClusterConfig withShards(int shards) {
    return new ClusterConfig(
        "c",
        List.of(
            new ClusterConfig.Peer("a", "127.0.0.1", 7001),
            new ClusterConfig.Peer("b", "127.0.0.1", 7002),
            new ClusterConfig.Peer("c", "127.0.0.1", 7003)),
        shards);
  }

  @Test
  void everyObjectIsOnShardZeroWhenThereIsOneShard() {
    ClusterConfig one = withShards(1);
    for (String name : List.of("room/main", "room/", "x/" + "y".repeat(1000), "é/ü"))
      assertThat(one.shardOf(name)).as(name).isZero();
  }

  @Test
  void severalShardsSpreadObjectsByAStableHashOfTheirName() {
    ClusterConfig four = withShards(4);
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < 64; i++) {
      int shard = four.shardOf("room/" + i);
      assertThat(shard).isBetween(0, 3).isEqualTo(withShards(4).shardOf("room/" + i));
      seen.add(shard);
    }
    assertThat(seen).containsExactlyInAnyOrder(0, 1, 2, 3);
  }

  @Test
  void aMissingObjectNameIsRefusedWhateverTheNumberOfShards() {
    for (int shards : new int[] {1, 4}) {
      assertThatThrownBy(() -> withShards(shards).shardOf(null))
          .as("%d shards", shards)
          .isInstanceOf(NullPointerException.class)
          .hasMessageContaining("object name");
    }
  }
}
