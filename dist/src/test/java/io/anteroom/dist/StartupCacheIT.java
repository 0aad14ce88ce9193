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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java 25+ start-up (AOT) cache of {@code bin/anteroom}, as an operator meets it: quiet (no JVM
 * warning, no class path in the output, one line per start saying what became of the cache),
 * trained in the background so that the process the operator started never records (its stop is
 * never a recording's), one training and one cache per install even when three processes start
 * together, and two installs sharing a cache directory never remove each other's files.
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
          "Must be a valid AOT configuration",
          "AOTConfiguration recorded");

  @TempDir Path dir;
  private Path cacheDir;

  /** A coordinator of one install, its output in a file. */
  private record Started(Process process, Path log) {}

  @Test
  @Tag("slow") // three trainings of a minute or more each on 2 busy cores
  void threeProcessesOfAnInstallShareOneQuietCacheAndASecondInstallKeepsItsOwn() throws Exception {
    // the launcher picks the newest JDK; the cache needs Java 25 (the CI image has it)
    Assumptions.assumeTrue(Runtime.version().feature() >= 25, "the JDK's AOT cache is Java 25+");
    Path a = unpack("a");
    Path b = unpack("b");
    cacheDir = Files.createDirectories(dir.resolve("cache"));

    // 1. three at once: one start trains the cache in the background, the other two run without
    List<String> first = runTogether(a, 3, "1");
    assertThat(first)
        .filteredOn(o -> o.contains("start-up cache: none yet; a short run of this command"))
        .hasSize(1);
    assertThat(first)
        .filteredOn(o -> o.contains("start-up cache: none yet; another process of this install"))
        .hasSize(2);

    // 2. the training ends by itself, after the processes it came with stopped: the cache is there
    awaitTrainingEnded();
    assertThat(files("*.aot")).hasSize(1);
    assertThat(files("*.failed")).isEmpty();
    assertThat(files("*.training")).as("its temporary directory removed").isEmpty();

    // 3. three at once again: each loads it
    List<String> third = runTogether(a, 3, "3");
    assertThat(third).allSatisfy(o -> assertThat(o).contains("start-up cache: loaded "));
    assertThat(files("*.tmp")).isEmpty();

    // 4. a second install in the same directory trains its own and leaves the first one's cache
    Path cacheOfA = files("*.aot").getFirst();
    List<String> other = runTogether(b, 1, "4");
    assertThat(other.getFirst()).contains("start-up cache: none yet; a short run of this command");
    awaitTrainingEnded();
    assertThat(cacheOfA).exists();
    assertThat(files("*.aot")).hasSize(2);

    for (String output : concat(first, third, other)) {
      assertThat(output).doesNotContain(NOISE);
    }
  }

  @Test
  void aTrainingStoppedWithTheServiceIsTriedAgainAndOneThatFailsIsNot() throws Exception {
    Assumptions.assumeTrue(Runtime.version().feature() >= 25, "the JDK's AOT cache is Java 25+");
    Path home = unpack("c");
    cacheDir = Files.createDirectories(dir.resolve("cache-c"));

    // a stop of the service (systemd's SIGTERM to every process of its group) during the training
    List<String> first = runTogether(home, 1, "c1");
    assertThat(first.getFirst()).contains("start-up cache: none yet; a short run");
    signalTraining("TERM");
    awaitTrainingEnded();
    assertThat(files("*.failed")).as("a stopped training is no failure").isEmpty();
    assertThat(files("*.aot")).isEmpty();

    // so the next start trains again; a training that dies (here: killed alone) failed
    List<String> second = runTogether(home, 1, "c2");
    assertThat(second.getFirst()).contains("start-up cache: none yet; a short run");
    signalTraining("KILL-JAVA");
    awaitTrainingEnded();
    assertThat(files("*.failed")).hasSize(1);

    List<String> next = runTogether(home, 1, "c3");
    assertThat(next.getFirst())
        .contains("start-up cache: none; training it failed")
        .doesNotContain(NOISE);
    assertThat(trainingProcesses()).as("not tried again").isEmpty();
    assertThat(files("*.aot")).isEmpty();
  }

  /**
   * The processes of trainings into this test's cache directories: the launcher's subshells and the
   * training JVMs (whose command lines name the cache directory).
   */
  private List<ProcessHandle> trainingProcesses() {
    return ProcessHandle.allProcesses()
        .filter(
            p ->
                p.info()
                    .commandLine()
                    .filter(c -> c.contains(cacheDir.toString()) && c.contains("AOTMode"))
                    .isPresent())
        .toList();
  }

  /**
   * TERM: the training JVM and the launcher's subshell that waits for it, as systemd does at a
   * stop; KILL-JAVA: the training JVM alone, with SIGKILL.
   */
  private void signalTraining(String how) throws Exception {
    await("the training running")
        .atMost(Duration.ofMinutes(1))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> !trainingProcesses().isEmpty());
    for (ProcessHandle java : trainingProcesses()) {
      if (how.equals("KILL-JAVA")) {
        java.destroyForcibly();
      } else {
        java.parent().ifPresent(ProcessHandle::destroy); // the subshell (SIGTERM)
        java.destroy();
      }
    }
  }

  /** Until no training holds an install's lock (its subshell holds it to its last step). */
  private void awaitTrainingEnded() {
    await("the training ended")
        .atMost(Duration.ofMinutes(5))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> files("*.lock").stream().allMatch(StartupCacheIT::unlocked));
  }

  private static boolean unlocked(Path lock) {
    try {
      Process flock = new ProcessBuilder("flock", "-n", lock.toString(), "true").start();
      return flock.waitFor() == 0;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @SafeVarargs
  private static List<String> concat(List<String>... lists) {
    return Stream.of(lists).flatMap(List::stream).toList();
  }

  private List<Path> files(String glob) {
    List<Path> out = new ArrayList<>();
    try (var s = Files.newDirectoryStream(cacheDir, glob)) {
      s.forEach(out::add);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
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
