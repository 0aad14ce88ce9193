package io.anteroom.objects.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The SQLite engine on its own: atomic multi-object commits, code point order, alarms. */
class SqliteStorageEngineTest {
  private static final Instant AT = Instant.parse("2026-01-01T00:00:00Z");

  @Test
  void sqliteEngineCommitsAtomicallyAndScansInCodePointOrder(@TempDir Path dir) {
    try (SqliteStorageEngine engine = SqliteStorageEngine.open(dir)) {
      engine.commit(
          List.of(
              new StorageEngine.Batch(
                  "o",
                  false,
                  Map.of(
                      "b",
                      new byte[] {1},
                      "\uFFFD",
                      new byte[] {2},
                      "\uD83D\uDE00",
                      new byte[] {3},
                      "a",
                      new byte[] {4}),
                  null)));
      assertThat(engine.list("o", KeyRange.ALL).stream().map(Map.Entry::getKey))
          .containsExactly("a", "b", "\uFFFD", "\uD83D\uDE00");
      assertThat(KeyRange.ORDER.compare("\uFFFD", "\uD83D\uDE00")).isNegative();
      java.util.HashMap<String, byte[]> deleteA = new java.util.HashMap<>();
      deleteA.put("a", null);
      engine.commit(
          List.of(
              new StorageEngine.Batch("o", false, deleteA, new StorageEngine.AlarmChange(AT)),
              new StorageEngine.Batch("p", false, Map.of("x", new byte[] {5}), null)));
      assertThat(engine.get("o", "a")).isNull();
      assertThat(engine.get("p", "x")).containsExactly(5);
      assertThat(engine.alarms()).isEqualTo(Map.of("o", AT));
      engine.commit(
          List.of(
              new StorageEngine.Batch("o", true, Map.of(), new StorageEngine.AlarmChange(null))));
      assertThat(engine.list("o", KeyRange.ALL)).isEmpty();
      assertThat(engine.getAlarm("o")).isEmpty();
      assertThat(engine.get("p", "x")).containsExactly(5);
      // two batches of one object in one commit apply in order
      engine.commit(
          List.of(
              new StorageEngine.Batch("q", false, Map.of("y", new byte[] {6}), null),
              new StorageEngine.Batch("q", true, Map.of("z", new byte[] {7}), null)));
      assertThat(engine.list("q", KeyRange.ALL).stream().map(Map.Entry::getKey))
          .containsExactly("z");
    }
  }
}
