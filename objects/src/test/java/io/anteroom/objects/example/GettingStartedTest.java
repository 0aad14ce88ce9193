package io.anteroom.objects.example;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example of docs/objects-getting-started.md: it runs (in process and over HTTP, counting
 * across restarts), and the page shows this very file, so the page cannot drift from the code.
 */
class GettingStartedTest {
  static final Path SOURCE =
      Path.of("src/test/java/io/anteroom/objects/example/GettingStarted.java");
  static final Path PAGE = Path.of("../docs/objects-getting-started.md");

  @Test
  void theExampleCountsInProcessAndOverHttpAcrossRestarts(@TempDir Path dir) {
    assertThat(GettingStarted.run(dir)).containsExactly(0, 1, 2);
    assertThat(GettingStarted.run(dir)).containsExactly(3, 4, 5);
  }

  @Test
  void thePageShowsTheExampleVerbatim() throws IOException {
    String source = Files.readString(SOURCE, StandardCharsets.UTF_8);
    String page = Files.readString(PAGE, StandardCharsets.UTF_8);
    String marker = "<!-- verbatim: objects/" + SOURCE + " -->\n```java\n";
    int start = page.indexOf(marker);
    assertThat(start)
        .as("%s holds the marker %s followed by the example's code block", PAGE, marker.strip())
        .isNotNegative();
    int from = start + marker.length();
    int end = page.indexOf("```\n", from);
    assertThat(page.substring(from, end))
        .as("the code block of %s must be %s verbatim (copy the file into the page)", PAGE, SOURCE)
        .isEqualTo(source);
  }
}
