package io.anteroom.pass.example;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.anteroom.pass.PassIssuer;
import io.anteroom.pass.PassKeys;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Python block of docs/pass.md, run as the page shows it: a pass of the Java module verifies
 * with an implementation that shares no code with it, and a pass of another key does not. Skipped
 * where python3 with the cryptography package is not installed.
 */
class PythonRecipeTest {
  static final Path PAGE = Path.of("../docs/pass.md");

  @TempDir Path dir;

  @Test
  void thePagesPythonRecipeVerifiesAJavaPassAndRefusesAnotherKeys() throws Exception {
    assumeTrue(
        run(List.of("python3", "-c", "import cryptography")).exit == 0,
        "python3 with cryptography is not installed");
    Path script = dir.resolve("verify_pass.py");
    Files.writeString(script, recipe());
    PassKeys keys = PassKeys.generate();
    PassIssuer issuer = PassIssuer.builder(keys).build();
    long now = System.currentTimeMillis();
    Files.writeString(dir.resolve("jwks.json"), keys.jwks());
    Files.writeString(
        dir.resolve("good"), issuer.passFor("shop", "launch", 42L, now, now + 600_000));
    Files.writeString(
        dir.resolve("stranger"),
        PassIssuer.builder(PassKeys.generate())
            .build()
            .passFor("shop", null, 42L, now, now + 600_000));

    Result good = run(List.of("python3", script.toString(), "jwks.json", "good", "shop"));
    Result otherRoom = run(List.of("python3", script.toString(), "jwks.json", "good", "tickets"));
    Result stranger = run(List.of("python3", script.toString(), "jwks.json", "stranger", "shop"));

    assertThat(good.exit).as(good.output).isZero();
    assertThat(good.output.strip()).isEqualTo(issuer.passId("shop", 42L));
    assertThat(otherRoom.exit).isNotZero();
    assertThat(otherRoom.output).contains("a pass of another room");
    assertThat(stranger.exit).isNotZero();
    assertThat(stranger.output).contains("unknown key");
  }

  private static String recipe() throws IOException {
    String page = Files.readString(PAGE, StandardCharsets.UTF_8);
    String marker = "<!-- run: PythonRecipeTest -->\n```python\n";
    int start = page.indexOf(marker);
    assertThat(start).as("%s holds the marker %s", PAGE, marker.strip()).isNotNegative();
    int from = start + marker.length();
    return page.substring(from, page.indexOf("```\n", from));
  }

  private record Result(int exit, String output) {}

  private Result run(List<String> command) throws IOException, InterruptedException {
    Process process;
    try {
      process =
          new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    } catch (IOException e) {
      return new Result(-1, e.toString()); // no python3 at all
    }
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException(command + " did not finish");
    }
    return new Result(process.exitValue(), output);
  }
}
