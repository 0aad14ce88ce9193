package io.anteroom.objects.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.objects.storage.StorageEngine.AlarmChange;
import io.anteroom.objects.storage.StorageEngine.Batch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterProperty;

/**
 * The SQLite engine's commit of many batches, objects repeated or not, against the in-memory engine
 * applying them one commit at a time: the same data and alarms. (The runtime never puts two batches
 * of one object in a commit, as an object has one flush in flight at most; other callers of the
 * engine may.)
 */
class SqliteCommitPropertyTest {
  private static final List<String> OBJECTS = List.of("c/one", "c/two", "c/three");
  private static final List<String> KEYS = List.of("n", "m", "k");
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  @Property(tries = 200)
  void aSqliteCommitOfManyBatchesLeavesWhatApplyingThemOneByOneLeaves(
      @ForAll("batchLists") List<Batch> batches) {
    // fresh object names in the one database of this property
    String prefix = tries.incrementAndGet() + "/";
    List<Batch> renamed =
        batches.stream()
            .map(b -> new Batch(prefix + b.object(), b.deleteAll(), b.writes(), b.alarm()))
            .toList();
    InMemoryStorageEngine oneByOne = new InMemoryStorageEngine();
    for (Batch b : renamed) oneByOne.commit(List.of(b));

    sqlite().commit(renamed);

    assertThat(state(sqlite(), prefix)).isEqualTo(state(oneByOne, prefix));
  }

  // --- state and generators ---

  /** Every object's rows (values as lists, so that equal bytes compare equal) and its alarm. */
  private static Map<String, Object> state(StorageEngine engine, String prefix) {
    Map<String, Object> state = new TreeMap<>();
    for (String o : OBJECTS) {
      Map<String, List<Byte>> rows = new LinkedHashMap<>();
      for (Map.Entry<String, byte[]> e : engine.list(prefix + o, KeyRange.ALL)) {
        Byte[] boxed = new Byte[e.getValue().length];
        for (int i = 0; i < boxed.length; i++) boxed[i] = e.getValue()[i];
        rows.put(e.getKey(), Arrays.asList(boxed));
      }
      state.put(o + " rows", rows);
      state.put(o + " alarm", engine.getAlarm(prefix + o));
    }
    return state;
  }

  @Provide
  Arbitrary<List<Batch>> batchLists() {
    Arbitrary<Map<String, byte[]>> writes =
        Arbitraries.maps(
                Arbitraries.of(KEYS),
                Arbitraries.bytes()
                    .between((byte) 0, (byte) 3)
                    .map(v -> new byte[] {v})
                    .injectNull(0.3))
            .ofMaxSize(KEYS.size())
            .map(HashMap::new);
    Arbitrary<AlarmChange> alarm =
        Arbitraries.integers()
            .between(0, 2)
            .map(i -> new AlarmChange(i == 0 ? null : T0.plusSeconds(i)))
            .injectNull(0.5);
    Arbitrary<Batch> batch =
        Combinators.combine(
                Arbitraries.of(OBJECTS),
                Arbitraries.integers().between(0, 4).map(i -> i == 0),
                writes,
                alarm)
            .as((object, deleteAll, w, a) -> new Batch(object, deleteAll, w, a));
    return batch.list().ofMinSize(1).ofMaxSize(12);
  }

  private final AtomicInteger tries = new AtomicInteger();

  /** One database for all tries of a property (jqwik makes one instance per property). */
  private SqliteStorageEngine sqlite;

  private Path dir;

  private SqliteStorageEngine sqlite() {
    if (sqlite == null) {
      try {
        dir = Files.createTempDirectory("sqlite-commit-property");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      sqlite = SqliteStorageEngine.open(dir);
    }
    return sqlite;
  }

  @AfterProperty
  void closeDatabase() throws IOException {
    if (sqlite == null) return;
    sqlite.close();
    try (var files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
    }
  }
}
