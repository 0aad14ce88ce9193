package io.anteroom.objects;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.objects.storage.InMemoryStorageEngine;
import io.anteroom.objects.storage.KeyRange;
import io.anteroom.objects.storage.SqliteStorageEngine;
import io.anteroom.objects.storage.StorageEngine;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterProperty;

/**
 * {@code list} with every option equals a sorted-map model, whether the data is in storage, in
 * unflushed writes of the same event, or both (program order, overlay of dirty entries).
 */
class ListPropertyTest {
  private static final List<String> KEYS =
      List.of(
          "",
          "a",
          "aa",
          "ab",
          "b",
          "ba",
          "é",
          "\uFFFD",
          "\uD83D\uDE00",
          "a\uD83D\uDE00",
          "b\u0000");

  record Spec(
      String start, String startAfter, String end, String prefix, boolean reverse, Integer limit) {
    ListOptions options() {
      ListOptions.Builder b =
          ListOptions.builder()
              .start(start)
              .startAfter(startAfter)
              .end(end)
              .prefix(prefix)
              .reverse(reverse);
      if (limit != null) b.limit(limit);
      return b.build();
    }
  }

  interface Ranges {
    void store(Map<String, Integer> entries);

    Map<String, Integer> writeThenList(Map<String, Integer> puts, List<String> deletes, Spec spec);

    Map<String, Integer> list(Spec spec);
  }

  static final class RangesObject implements Ranges {
    private final Storage s;

    RangesObject(ObjectContext ctx) {
      this.s = ctx.storage();
    }

    @Override
    public void store(Map<String, Integer> entries) {
      s.put(entries);
    }

    @Override
    public Map<String, Integer> writeThenList(
        Map<String, Integer> puts, List<String> deletes, Spec spec) {
      if (!puts.isEmpty()) s.put(puts);
      if (!deletes.isEmpty()) s.delete(deletes);
      return s.list(spec.options(), Integer.class);
    }

    @Override
    public Map<String, Integer> list(Spec spec) {
      return s.list(spec.options(), Integer.class);
    }
  }

  @Property(tries = 150)
  void listMatchesASortedMapModel(
      @ForAll("entries") Map<String, Integer> stored,
      @ForAll("entries") Map<String, Integer> puts,
      @ForAll("keyLists") List<String> deletes,
      @ForAll("specs") Spec spec) {
    TreeMap<String, Integer> model = new TreeMap<>(KeyRange.ORDER);
    model.putAll(stored);
    model.putAll(puts);
    deletes.forEach(model::remove);
    Map<String, Integer> expected = select(model, spec);

    try (Fixture f = new Fixture()) {
      Ranges ranges = f.runtime.namespace("ranges", Ranges.class, RangesObject::new).get("r");
      if (!stored.isEmpty()) ranges.store(stored);
      f.time.advance(
          Duration.ofMinutes(1)); // evicted: the next instance starts with an empty cache
      assertThat(ranges.writeThenList(puts, deletes, spec))
          .as("overlay on storage")
          .containsExactlyEntriesOf(expected);
      assertThat(ranges.list(spec)).as("cached after").containsExactlyEntriesOf(expected);
      f.time.advance(Duration.ofMinutes(1));
      assertThat(ranges.list(spec)).as("storage only").containsExactlyEntriesOf(expected);
    }
  }

  /**
   * One database for all tries of a property (jqwik makes one instance of this class per property).
   */
  private SqliteStorageEngine sqlite;

  @AfterProperty
  void closeSqlite() {
    if (sqlite != null) sqlite.close();
  }

  private SqliteStorageEngine sqlite() throws java.io.IOException {
    if (sqlite == null) {
      sqlite = SqliteStorageEngine.open(java.nio.file.Files.createTempDirectory("list-property"));
    }
    return sqlite;
  }

  @Property(tries = 100)
  void sqliteScansEqualTheInMemoryEngine(
      @ForAll("entries") Map<String, Integer> stored, @ForAll("specs") Spec spec)
      throws java.io.IOException {
    String object = "ranges/" + ObjectId.unique();
    Map<String, byte[]> writes = new java.util.HashMap<>();
    stored.forEach((k, v) -> writes.put(k, new byte[] {v.byteValue()}));
    StorageEngine.Batch batch = new StorageEngine.Batch(object, false, writes, null);
    InMemoryStorageEngine memory = new InMemoryStorageEngine();
    memory.commit(List.of(batch));
    sqlite().commit(List.of(batch));
    KeyRange range = spec.options().toRange();
    assertThat(sqlite().list(object, range).stream().map(Map.Entry::getKey).toList())
        .isEqualTo(memory.list(object, range).stream().map(Map.Entry::getKey).toList());
  }

  private static Map<String, Integer> select(TreeMap<String, Integer> model, Spec spec) {
    NavigableMap<String, Integer> view = spec.reverse() ? model.descendingMap() : model;
    Map<String, Integer> out = new LinkedHashMap<>();
    for (Map.Entry<String, Integer> e : view.entrySet()) {
      String k = e.getKey();
      if (spec.start() != null && KeyRange.ORDER.compare(k, spec.start()) < 0) continue;
      if (spec.startAfter() != null && KeyRange.ORDER.compare(k, spec.startAfter()) <= 0) continue;
      if (spec.end() != null && KeyRange.ORDER.compare(k, spec.end()) >= 0) continue;
      if (spec.prefix() != null && !k.startsWith(spec.prefix())) continue;
      if (spec.limit() != null && out.size() >= spec.limit()) break;
      out.put(k, e.getValue());
    }
    return out;
  }

  @Provide
  Arbitrary<Map<String, Integer>> entries() {
    return Arbitraries.maps(Arbitraries.of(KEYS), Arbitraries.integers().between(0, 99))
        .ofMaxSize(8);
  }

  @Provide
  Arbitrary<List<String>> keyLists() {
    return Arbitraries.of(KEYS).list().ofMaxSize(4);
  }

  @Provide
  Arbitrary<Spec> specs() {
    Arbitrary<String> bound = Arbitraries.of(KEYS).injectNull(0.5);
    Arbitrary<String> prefix = Arbitraries.of("", "a", "b", "\uD83D\uDE00").injectNull(0.5);
    Arbitrary<Integer> limit = Arbitraries.integers().between(1, 5).injectNull(0.5);
    return Combinators.combine(bound, bound, bound, prefix, Arbitraries.of(true, false), limit)
        .as(
            (start, startAfter, end, p, reverse, l) ->
                new Spec(start, start == null ? startAfter : null, end, p, reverse, l));
  }
}
