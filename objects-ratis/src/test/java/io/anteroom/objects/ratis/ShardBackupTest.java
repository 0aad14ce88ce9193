package io.anteroom.objects.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.anteroom.objects.storage.StorageEngine.Batch;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A running cluster's copies backed up from one peer and restored into the empty directories of a
 * new cluster: the new cluster starts from the backed-up state and applies every write of its own
 * log on top of it (none skipped for the old log's index the copies carried).
 */
@Tag("slow")
class ShardBackupTest {
  @TempDir Path dir;

  private static void put(RatisPeer leader, String key) {
    leader
        .engine(0)
        .commit(
            List.of(
                new Batch("o", false, Map.of(key, key.getBytes(StandardCharsets.UTF_8)), null)));
  }

  @Test
  void aBackupRestoredIntoANewClusterIsItsStartingStateAndItsOwnWritesAllApply() {
    Path old = dir.resolve("old");
    Path backup = dir.resolve("backup");
    List<ShardBackup.Copy> saved;
    try (TestCluster cluster = TestCluster.start(old, 3, 1, TestCluster.testOptions().build())) {
      RatisPeer leader = cluster.awaitLeader(0);
      for (int i = 0; i < 60; i++) put(leader, "a" + i);
      cluster.awaitAllApplied(0, leader.engine(0).commitIndex());
      saved = ShardBackup.backup(old.resolve("p1"), backup); // online, from a follower or not
    }
    assertThat(saved)
        .singleElement()
        .satisfies(c -> assertThat(c.appliedIndex()).isGreaterThanOrEqualTo(60));

    Path fresh = dir.resolve("new");
    for (String id : List.of("p0", "p1", "p2")) {
      assertThat(ShardBackup.restore(backup, fresh.resolve(id))).hasSize(1);
    }
    assertThatThrownBy(() -> ShardBackup.restore(backup, fresh.resolve("p0")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("already holds shards/");
    try (TestCluster cluster = TestCluster.start(fresh, 3, 1, TestCluster.testOptions().build())) {
      RatisPeer leader = cluster.awaitLeader(0);
      for (int i = 0; i < 20; i++) put(leader, "b" + i);
      cluster.awaitAllApplied(0, leader.engine(0).commitIndex());
      for (RatisPeer p : cluster.running()) {
        for (int i = 0; i < 60; i++) {
          assertThat(p.engine(0).localCopy().get("o", "a" + i))
              .as(p.id() + " holds the backed-up a" + i)
              .isNotNull();
        }
        for (int i = 0; i < 20; i++) {
          assertThat(p.engine(0).localCopy().get("o", "b" + i))
              .as(p.id() + " applied the new cluster's write b" + i)
              .isNotNull();
        }
      }
    }
  }
}
