package io.anteroom.room.documents;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.room.documents.RoomDocuments.Entry;
import java.util.List;
import org.junit.jupiter.api.Test;

class RoomDocumentsTest {

  private static final long NOW = 1_800_000_000_000L;
  private static final Long NONE = null;

  @Test
  void everyWriteTakesTheNextVersionAndSinceTellsWhatChangedAfterIt() {
    var docs = new RoomDocuments(List.of());
    docs.create("shop", "{\"id\":\"shop\"}", NONE, NOW);
    docs.create("blog", "{\"id\":\"blog\"}", NONE, NOW);
    docs.replace("shop", "{\"id\":\"shop\",\"totalActiveUsers\":9}", NONE, NOW);

    assertThat(docs.version()).isEqualTo(3);
    var changes = docs.since(1);
    assertThat(changes.version()).isEqualTo(3);
    assertThat(changes.documents()).extracting(RoomDocument::id).containsExactly("blog", "shop");
    assertThat(changes.documents().get(1).json()).contains("9");
    assertThat(docs.since(3).documents()).isEmpty();
  }

  @Test
  void aRefusedWriteChangesNothing() {
    var docs = new RoomDocuments(List.of());
    docs.create("shop", "{}", NONE, NOW);

    var again = docs.create("shop", "{}", NONE, NOW);
    var missing = docs.replace("blog", "{}", NONE, NOW);
    var gone = docs.delete("blog", NOW);
    var twice =
        docs.importAll(List.of(new Entry("a", "{}", NONE), new Entry("a", "{}", NONE)), true, NOW);

    assertThat(again.refused()).contains("already exists");
    assertThat(missing.refused()).contains("no room \"blog\"");
    assertThat(gone.refused()).contains("no room \"blog\"");
    assertThat(twice.refused()).contains("given twice");
    assertThat(docs.version()).isEqualTo(1);
    assertThat(docs.live()).extracting(RoomDocument::id).containsExactly("shop");
  }

  @Test
  void aDeletedRoomLeavesATombstoneAndComesBackWithAHigherGeneration() {
    var docs = new RoomDocuments(List.of());
    docs.create("shop", "{}", Long.valueOf(7), NOW);
    var deleted = docs.delete("shop", NOW);
    assertThat(deleted.written().getFirst().deleted()).isTrue();
    assertThat(deleted.written().getFirst().generation()).isEqualTo(7);

    var low = docs.create("shop", "{}", Long.valueOf(7), NOW);
    assertThat(low.refused()).contains("is not above 7");
    var fresh = docs.create("shop", "{}", NONE, NOW);
    assertThat(fresh.written().getFirst().generation()).isEqualTo(NOW / 1000);
  }

  @Test
  void replacingKeepsTheGenerationUnlessOneIsGiven() {
    var docs = new RoomDocuments(List.of());
    docs.create("shop", "{}", Long.valueOf(3), NOW);
    assertThat(docs.replace("shop", "{\"a\":1}", NONE, NOW).written().getFirst().generation())
        .isEqualTo(3);
    assertThat(
            docs.replace("shop", "{\"a\":2}", Long.valueOf(4), NOW)
                .written()
                .getFirst()
                .generation())
        .isEqualTo(4);
  }

  @Test
  void theFilesRoomIsWrittenOnlyWhenTheDeploymentHasNoDocumentOfItsId() {
    var docs = new RoomDocuments(List.of());
    assertThat(docs.bootstrap("shop", "{\"v\":1}", 0, NOW).written()).hasSize(1);
    assertThat(docs.bootstrap("shop", "{\"v\":2}", 0, NOW).written()).isEmpty();
    docs.delete("shop", NOW);
    assertThat(docs.bootstrap("shop", "{\"v\":3}", 0, NOW).written()).isEmpty();
    assertThat(docs.get("shop").orElseThrow().deleted()).isTrue();
    assertThat(docs.get("shop").orElseThrow().source()).isEqualTo("api");
  }

  @Test
  void anImportWritesWhatDiffersInOneVersionAndPrunesTheOthersWhenAsked() {
    var docs = new RoomDocuments(List.of());
    docs.create("shop", "{\"id\":\"shop\"}", NONE, NOW);
    docs.create("blog", "{\"id\":\"blog\"}", NONE, NOW);

    var w =
        docs.importAll(
            List.of(
                new Entry("shop", "{\"id\":\"shop\"}", NONE),
                new Entry("news", "{\"id\":\"news\"}", NONE)),
            true,
            NOW);

    assertThat(w.version()).isEqualTo(3);
    assertThat(w.written()).extracting(RoomDocument::id).containsExactly("news", "blog");
    assertThat(docs.get("blog").orElseThrow().deleted()).isTrue();
    assertThat(docs.get("shop").orElseThrow().version()).isEqualTo(1);
    assertThat(
            docs.importAll(List.of(new Entry("shop", "{\"id\":\"shop\"}", NONE)), false, NOW)
                .written())
        .isEmpty();
    assertThat(docs.version()).isEqualTo(3);
  }

  @Test
  void savedDocumentsComeBackWithTheirVersion() {
    var docs = new RoomDocuments(List.of());
    docs.create("shop", "{}", NONE, NOW);
    docs.delete("shop", NOW);
    var back = new RoomDocuments(List.copyOf(docs.all().values()));
    assertThat(back.version()).isEqualTo(2);
    assertThat(back.create("shop", "{}", NONE, NOW).written().getFirst().version()).isEqualTo(3);
  }

  @Test
  void aWriteAsItTravelsDoesWhatItsKindSays() {
    var docs = new RoomDocuments(List.of());
    var created =
        docs.apply(RoomDocuments.Write.of(RoomDocuments.Kind.CREATE, "shop", "{}", null), NOW);
    var deleted =
        docs.apply(RoomDocuments.Write.of(RoomDocuments.Kind.DELETE, "shop", null, null), NOW);
    var two =
        docs.apply(
            new RoomDocuments.Write(
                RoomDocuments.Kind.REPLACE,
                List.of(new Entry("a", "{}", NONE), new Entry("b", "{}", NONE)),
                false),
            NOW);
    assertThat(created.written()).hasSize(1);
    assertThat(deleted.written().getFirst().deleted()).isTrue();
    assertThat(two.refused()).contains("one room");
  }

  @Test
  void aRoomsTemplatesAreKeptWithItsDocumentAndAReplaceWithoutThemKeepsThem() {
    var docs = new RoomDocuments(List.of());
    var page = java.util.Map.of("queue.html", "<p>{{> head}}</p>", "head.html", "Shop");
    docs.apply(RoomDocuments.Write.of(RoomDocuments.Kind.CREATE, "shop", "{}", NONE, page), NOW);
    docs.replace("shop", "{\"totalActiveUsers\":9}", NONE, NOW);

    RoomDocument d = docs.get("shop").orElseThrow();
    assertThat(d.version()).isEqualTo(2);
    assertThat(d.templates()).containsExactlyEntriesOf(new java.util.TreeMap<>(page));
    var changed =
        docs.apply(
            RoomDocuments.Write.of(
                RoomDocuments.Kind.REPLACE,
                "shop",
                "{\"totalActiveUsers\":9}",
                NONE,
                java.util.Map.of("queue.html", "new")),
            NOW);
    assertThat(changed.written().getFirst().templates()).containsOnlyKeys("queue.html");
    assertThat(docs.since(2).documents()).extracting(RoomDocument::version).containsExactly(3L);
    assertThat(docs.delete("shop", NOW).written().getFirst().templates())
        .as("a tombstone keeps no template")
        .isEmpty();
  }

  @Test
  void anImportLeavesARoomWhoseTemplatesAreTheSameAndWritesOneWhoseTemplatesDiffer() {
    var docs = new RoomDocuments(List.of());
    var page = java.util.Map.of("queue.html", "a");
    docs.importAll(List.of(new Entry("shop", "{}", NONE, page)), false, NOW);
    assertThat(docs.importAll(List.of(new Entry("shop", "{}", NONE, page)), false, NOW).written())
        .isEmpty();
    assertThat(docs.importAll(List.of(new Entry("shop", "{}", NONE, null)), false, NOW).written())
        .as("without templates the room keeps its own")
        .isEmpty();
    var other =
        docs.importAll(
            List.of(new Entry("shop", "{}", NONE, java.util.Map.of("queue.html", "b"))),
            false,
            NOW);
    assertThat(other.written()).hasSize(1);
    assertThat(other.written().getFirst().templates()).containsEntry("queue.html", "b");
  }

  @Test
  void templatesOverTheLimitsAreRefusedAndChangeNothing() {
    var docs = new RoomDocuments(List.of());
    docs.create("shop", "{}", NONE, NOW);
    var big = java.util.Map.of("queue.html", "x".repeat(RoomDocuments.MAX_TEMPLATE_CHARS));
    var many = new java.util.HashMap<String, String>();
    for (int i = 0; i <= RoomDocuments.MAX_TEMPLATES; i++) {
      many.put("t" + i, "x");
    }
    var tooBig =
        docs.apply(
            RoomDocuments.Write.of(RoomDocuments.Kind.REPLACE, "shop", "{}", NONE, big), NOW);
    var tooMany =
        docs.apply(
            RoomDocuments.Write.of(RoomDocuments.Kind.REPLACE, "shop", "{}", NONE, many), NOW);
    assertThat(tooBig.refused()).contains("characters; a room keeps at most");
    assertThat(tooMany.refused()).contains("templates; a room keeps at most");
    assertThat(docs.version()).isEqualTo(1);
    assertThat(docs.get("shop").orElseThrow().templates()).isEmpty();
  }

  @Test
  void theFilesRoomIsBootstrappedWithItsTemplates() {
    var docs = new RoomDocuments(List.of());
    var w =
        docs.apply(
            RoomDocuments.Write.of(
                RoomDocuments.Kind.BOOTSTRAP,
                "shop",
                "{}",
                NONE,
                java.util.Map.of("queue.html", "a")),
            NOW);
    assertThat(w.written().getFirst().source()).isEqualTo("file");
    assertThat(w.written().getFirst().templates()).containsEntry("queue.html", "a");
  }
}
