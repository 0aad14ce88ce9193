package io.anteroom.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.anteroom.testkit.FreePorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java 25+ start-up (AOT) cache of {@code bin/anteroom}, as an operator meets it: quiet (no JVM
 * warning, no class path in the output, one line per start saying what became of the cache), one
 * recording and one cache per install even when three processes start and stop together, and two
 * installs sharing a cache directory never remove each other's files.
 */
class StartupCacheIT {
  /** What the JVM printed before: warnings per skipped class, the training child's class path. */
  private static final List<String> NOISE =
      List.of(
          "[warning][aot]",
          "[error][aot]",
          "[error  ][aot]",
          "Picked up JAVA_TOOL_OPTIONS",
          "Error occurred during initialization of VM",
          "Must be a valid AOT configuration");

  @TempDir Path dir;
  private Path cacheDir;

  /** A coordinator of one install, its output in a file. */
  private record Started(Process process, Path log) {}

  @Test
  void threeProcessesOfAnInstallShareOneQuietCacheAndASecondInstallKeepsItsOwn() throws Exception {
    // the launcher picks the newest JDK; the cache needs Java 25 (the CI image has it)
    Assumptions.assumeTrue(Runtime.version().feature() >= 25, "the JDK's AOT cache is Java 25+");
    Path a = unpack("a");
    Path b = unpack("b");
    cacheDir = Files.createDirectories(dir.resolve("cache"));

    // 1. three at once: one records, the other two run without (the lock is taken)
    List<String> first = runTogether(a, 3, "1");
    assertThat(first)
        .filteredOn(o -> o.contains("start-up cache: none yet; this run records"))
        .hasSize(1);
    assertThat(first)
        .filteredOn(o -> o.contains("start-up cache: none yet; another process of this install"))
        .hasSize(2);
    assertThat(files("*.aotconf")).hasSize(1);

    // 2. the next start writes the cache from that recording, in the background
    Started writer = start(a, "2");
    try {
      await("the cache written")
          .atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> files("*.aot").size() == 1 && files("*.aotconf").isEmpty());
    } finally {
      stop(writer);
    }
    assertThat(Files.readString(writer.log()))
        .contains("start-up cache: writing ")
        .contains("in the background from the classes an earlier run used");

    // 3. three at once again: each loads it
    List<String> third = runTogether(a, 3, "3");
    assertThat(third).allSatisfy(o -> assertThat(o).contains("start-up cache: loaded "));
    assertThat(files("*.tmp")).isEmpty();

    // 4. a second install in the same directory records its own and leaves the first one's cache
    Path cacheOfA = files("*.aot").getFirst();
    List<String> other = runTogether(b, 1, "4");
    assertThat(other.getFirst()).contains("start-up cache: none yet; this run records");
    assertThat(cacheOfA).exists();
    assertThat(files("*.aotconf")).hasSize(1).noneMatch(f -> f.equals(cacheOfA));

    for (String output : concat(first, third, other)) {
      assertThat(output).doesNotContain(NOISE);
    }
    assertThat(Files.readString(writer.log())).doesNotContain(NOISE);
  }

  @Test
  void aRecordingThatCannotBeMadeIntoACacheIsNotRecordedAgain() throws Exception {
    Assumptions.assumeTrue(Runtime.version().feature() >= 25, "the JDK's AOT cache is Java 25+");
    Path home = unpack("c");
    cacheDir = Files.createDirectories(dir.resolve("cache-c"));
    runTogether(home, 1, "c1"); // records
    Path recording = files("*.aotconf").getFirst();
    Files.writeString(recording, "cut short by a kill during the stop"); // what a SIGKILL leaves

    Started writer = start(home, "c2");
    try {
      await("the attempt given up")
          .atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> files("*.failed").size() == 1 && files("*.aotconf").isEmpty());
    } finally {
      stop(writer);
    }
    List<String> next = runTogether(home, 1, "c3");
    assertThat(next.getFirst())
        .contains("start-up cache: none; writing it from an earlier run's recording failed")
        .doesNotContain(NOISE);
    assertThat(files("*.aotconf")).as("no run records in vain").isEmpty();
    assertThat(files("*.aot")).isEmpty();
  }

  @SafeVarargs
  private static List<String> concat(List<String>... lists) {
    return Stream.of(lists).flatMap(List::stream).toList();
  }

  private List<Path> files(String glob) throws IOException {
    List<Path> out = new ArrayList<>();
    try (var s = Files.newDirectoryStream(cacheDir, glob)) {
      s.forEach(out::add);
    }
    return out;
  }

  private Path unpack(String name) throws Exception {
    Path into = Files.createDirectories(dir.resolve(name));
    Process tar =
        new ProcessBuilder("tar", "-xzf", System.getProperty("dist.tarball"), "-C", into.toString())
            .redirectErrorStream(true)
            .start();
    assertThat(tar.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(tar.exitValue()).isZero();
    return into.resolve("anteroom-" + System.getProperty("dist.version"));
  }

  /**
   * Starts {@code n} coordinators of {@code home}, waits until each answers, stops them at once.
   */
  private List<String> runTogether(Path home, int n, String round) throws Exception {
    List<Started> started = new ArrayList<>();
    try {
      for (int i = 0; i < n; i++) started.add(start(home, round + "-" + i));
      for (Started s : started) awaitAnswer(s);
    } finally {
      started.forEach(s -> s.process().destroy()); // SIGTERM, all at once
      for (Started s : started) stop(s);
    }
    List<String> outputs = new ArrayList<>();
    for (Started s : started) outputs.add(Files.readString(s.log()));
    return outputs;
  }

  private Started start(Path home, String name) throws IOException {
    int port = FreePorts.take();
    Path log = dir.resolve("coordinator-" + name + ".log");
    var builder =
        new ProcessBuilder(
                home.resolve("bin/anteroom").toString(),
                "coordinator",
                "--listen",
                "127.0.0.1:" + port,
                "--data-dir",
                dir.resolve("data-" + name).toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().put("ANTEROOM_AOT_DIR", cacheDir.toString());
    builder.environment().remove("ANTEROOM_AOT");
    Process p = builder.start();
    Files.writeString(dir.resolve("coordinator-" + name + ".port"), Integer.toString(port));
    return new Started(p, log);
  }

  private void awaitAnswer(Started s) throws IOException {
    String port =
        Files.readString(
            s.log().resolveSibling(s.log().getFileName().toString().replace(".log", ".port")));
    HttpClient http = HttpClient.newHttpClient();
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/"))
            .timeout(Duration.ofSeconds(5))
            .build();
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .failFast("the process exited: see " + s.log(), () -> !s.process().isAlive())
        .until(() -> http.send(request, HttpResponse.BodyHandlers.discarding()) != null);
  }

  private static void stop(Started s) throws Exception {
    s.process().destroy();
    if (!s.process().waitFor(120, TimeUnit.SECONDS)) {
      s.process().destroyForcibly();
      throw new AssertionError("no clean stop within 120 s: " + Files.readString(s.log()));
    }
    assertThat(s.process().exitValue()).as(Files.readString(s.log())).isIn(0, 143);
  }
}
