package io.anteroom.door.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RoomTemplatesTest {

  @TempDir Path dir;

  private String render(RoomTemplates t, String name) {
    var out = new StringWriter();
    t.compile(name).execute(out, Map.of("who", "you"));
    return out.toString();
  }

  @Test
  void aKeptTemplateWinsOverTheFileOfItsNameAndItsPartialsResolveTheSameWay() throws Exception {
    Files.writeString(dir.resolve("queue.html"), "file {{> head}}");
    Files.writeString(dir.resolve("head.html"), "file head");
    Files.writeString(dir.resolve("foot.html"), "file foot");
    var files = new TemplateDirectory(Optional.of(dir));

    assertThat(render(RoomTemplates.of(files), "queue.html")).isEqualTo("file file head");
    var kept =
        new RoomTemplates(
            Map.of("queue.html", "kept {{> head}} {{> foot}}", "head.html", "kept head {{who}}"),
            files);
    assertThat(render(kept, "queue.html"))
        .as("kept texts first, a name not kept from templatesDir")
        .isEqualTo("kept kept head you file foot");
    assertThat(kept.exists("foot.html")).isTrue();
    assertThat(kept.differingFiles()).containsExactly("head.html", "queue.html");
  }

  @Test
  void keptTemplatesWorkWithoutAnyTemplatesDir() {
    var kept =
        new RoomTemplates(
            Map.of("queue.html", "<p>{{> parts/head}}</p>", "parts/head.html", "Shop"),
            new TemplateDirectory(Optional.empty()));
    assertThat(render(kept, "queue.html")).isEqualTo("<p>Shop</p>");
    assertThat(kept.problems()).isEmpty();
  }

  @Test
  void everyProblemOfTheKeptTemplatesIsNamedAtOnce() {
    var kept =
        new RoomTemplates(
            Map.of(
                "../etc/passwd", "x",
                "broken.html", "{{#open}} never closed",
                "needs.html", "{{> missing}}",
                "fine.html", "ok"),
            new TemplateDirectory(Optional.of(dir)));
    var problems = kept.problems();
    assertThat(problems.keySet())
        .containsExactly(
            "templates.\"../etc/passwd\"", "templates.\"broken.html\"", "templates.\"needs.html\"");
    assertThat(problems.get("templates.\"../etc/passwd\"")).contains("not a template name");
    assertThat(problems.get("templates.\"broken.html\"")).contains("not a valid Mustache");
    assertThat(problems.get("templates.\"needs.html\"")).contains("missing.html");
    assertThatThrownBy(() -> kept.resolve("absent.html"))
        .hasMessageContaining("no such readable file in templatesDir");
  }

  @Test
  void collectReadsATemplateItsLanguageVariantsAndEveryPartialTheyInclude() throws Exception {
    Files.createDirectories(dir.resolve("parts"));
    Files.writeString(dir.resolve("queue.html"), "{{> parts/head}} en");
    Files.writeString(dir.resolve("queue.fr.html"), "{{> parts/head}} fr {{> parts/fr}}");
    Files.writeString(dir.resolve("parts/head.html"), "head");
    Files.writeString(dir.resolve("parts/fr.html"), "fr");
    Files.writeString(dir.resolve("unused.html"), "not read");
    var texts =
        RoomTemplates.collect(
            List.of("queue.html", "absent.html"),
            List.of("en", "fr", "de"),
            new TemplateDirectory(Optional.of(dir)));
    assertThat(texts)
        .containsOnlyKeys("queue.html", "queue.fr.html", "parts/head.html", "parts/fr.html")
        .containsEntry("parts/fr.html", "fr");
  }

  @Test
  void theConfigCheckAcceptsATemplateKeptWithTheDocumentAndListsItsProblemsWithTheOthers() {
    String yaml = "dataDir: " + dir.resolve("data") + "\nrooms: [ { id: shop, template: q.html } ]";
    assertThatThrownBy(() -> ConfigLoader.parse(yaml, "test"))
        .hasMessageContaining("rooms[0].template");
    assertThat(
            ConfigLoader.parse(yaml, "test", Map.of("shop", Map.of("q.html", "ok")))
                .rooms()
                .getFirst()
                .queuePage()
                .template())
        .contains("q.html");
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    yaml.replace("id: shop,", "id: shop, totalActiveUsers: 0,"),
                    "test",
                    Map.of("shop", Map.of("q.html", "{{#a}}", "b.html", "{{> nope}}"))))
        .hasMessageContaining("totalActiveUsers")
        .hasMessageContaining("templates.\"q.html\"")
        .hasMessageContaining("templates.\"b.html\"");
  }
}
