package io.anteroom.objects.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.objects.storage.KeyRange;
import io.anteroom.objects.storage.StorageEngine.AlarmChange;
import io.anteroom.objects.storage.StorageEngine.Batch;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LocalReplicaTest {
  @TempDir Path dir;

  private LocalReplica open(String kind, String name) {
    return kind.equals("sqlite") ? new SqliteReplica(dir.resolve(name)) : new MemoryReplica();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @ParameterizedTest
  @ValueSource(strings = {"sqlite", "memory"})
  void anEntryIsAppliedTogetherWithItsIndex(String kind) {
    try (LocalReplica replica = open(kind, "a")) {
      assertThat(replica.appliedIndex()).isZero();
      replica.apply(
          List.of(new Batch("counter/x", false, Map.of("counter", bytes("1")), null)), 2, 7);
      assertThat(replica.appliedIndex()).isEqualTo(7);
      assertThat(replica.engine().get("counter/x", "counter")).isEqualTo(bytes("1"));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"sqlite", "memory"})
  void aSnapshotRestoresDataAlarmsAndIndexOnAnotherReplica(String kind) throws Exception {
    Path snapshot = dir.resolve("snapshot.1_3");
    Instant alarm = Instant.parse("2030-01-01T00:00:00Z");
    try (LocalReplica source = open(kind, "source")) {
      source.apply(
          List.of(
              new Batch(
                  "room/a",
                  false,
                  Map.of("k1", bytes("v1"), "k2", bytes("v2")),
                  new AlarmChange(alarm))),
          1,
          2);
      source.apply(List.of(new Batch("room/b", false, Map.of("k", bytes("b")), null)), 1, 3);
      source.snapshotTo(snapshot);
      // written after the snapshot: not in it
      source.apply(List.of(new Batch("room/c", false, Map.of("k", bytes("late")), null)), 1, 4);
    }
    try (LocalReplica target = open(kind, "target")) {
      target.apply(List.of(new Batch("room/stale", false, Map.of("k", bytes("old")), null)), 1, 1);
      target.restoreFrom(snapshot);

      assertThat(target.appliedIndex()).isEqualTo(3);
      Function<String, List<String>> keys =
          object ->
              target.engine().list(object, KeyRange.ALL).stream().map(Map.Entry::getKey).toList();
      assertThat(keys.apply("room/a")).containsExactly("k1", "k2");
      assertThat(target.engine().get("room/b", "k")).isEqualTo(bytes("b"));
      assertThat(target.engine().get("room/c", "k")).isNull();
      assertThat(target.engine().get("room/stale", "k")).isNull();
      assertThat(target.engine().alarms()).containsEntry("room/a", alarm);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"sqlite"})
  void aReopenedSqliteReplicaKnowsItsIndex(String kind) {
    try (LocalReplica replica = open(kind, "r")) {
      replica.apply(List.of(new Batch("o/1", false, Map.of("k", bytes("v")), null)), 3, 42);
    }
    try (LocalReplica reopened = open(kind, "r")) {
      assertThat(reopened.appliedIndex()).isEqualTo(42);
      assertThat(reopened.engine().get("o/1", "k")).isEqualTo(bytes("v"));
    }
  }
}
