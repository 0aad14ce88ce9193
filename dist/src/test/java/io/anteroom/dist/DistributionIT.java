package io.anteroom.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.anteroom.testkit.FreePorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tarball an operator installs: unpacked into an empty folder (no source tree, no Maven), its
 * {@code bin/anteroom} answers {@code --help} and runs the sample configuration.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DistributionIT {
  private Path install;
  private Path home;

  @BeforeAll
  void unpack(@TempDir Path dir) throws Exception {
    install = dir;
    Path tarball = Path.of(System.getProperty("dist.tarball"));
    assertThat(tarball).isRegularFile();
    Process tar =
        new ProcessBuilder("tar", "-xzf", tarball.toString(), "-C", install.toString())
            .redirectErrorStream(true)
            .start();
    assertThat(tar.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(tar.exitValue()).as(new String(tar.getInputStream().readAllBytes())).isZero();
    home = install.resolve("anteroom-" + System.getProperty("dist.version"));
  }

  @Test
  void tarballHoldsTheStartScriptLibrariesSampleConfigUnitFileAndLicences() throws IOException {
    assertThat(Files.getPosixFilePermissions(home.resolve("bin/anteroom")))
        .contains(PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OTHERS_EXECUTE);
    try (var jars = Files.list(home.resolve("lib"))) {
      assertThat(jars.map(p -> p.getFileName().toString()))
          .anyMatch(n -> n.startsWith("anteroom-gateway-"))
          .anyMatch(n -> n.startsWith("anteroom-sim-"))
          .anyMatch(n -> n.startsWith("vertx-core-"))
          // anteroom coordinator --cluster: the replicated coordinator and Ratis
          .anyMatch(n -> n.startsWith("anteroom-objects-ratis-"))
          .anyMatch(n -> n.startsWith("ratis-server-"))
          .noneMatch(n -> n.startsWith("junit") || n.startsWith("assertj"));
    }
    assertThat(home.resolve("anteroom.yaml")).isRegularFile();
    assertThat(home.resolve("anteroom.service"))
        .content()
        .contains("ExecStart=/opt/anteroom/bin/anteroom run");
    assertThat(home.resolve("LICENSE")).content().contains("Apache License");
    assertThat(home.resolve("NOTICE")).isRegularFile();
    assertThat(home.resolve("grafana/anteroom-dashboard.json"))
        .content()
        .contains("anteroom_room_active_users");
    assertThat(home.resolve("THIRD-PARTY.txt")).content().contains("vertx-core");
    // SQLite's native library ready to load (bin/anteroom points sqlite-jdbc at it)
    assertThat(home.resolve("lib/native/sqlite/x86_64/libsqlitejdbc.so")).isRegularFile();
    assertThat(home.resolve("lib/native/sqlite/aarch64/libsqlitejdbc.so")).isRegularFile();
    // a logging backend: without one the process would log nothing at all
    assertThat(home.resolve("lib")).isDirectoryContaining("glob:**/logback-classic-*.jar");
  }

  @Test
  void theShippedSystemdUnitPassesSystemdAnalyzeVerify() throws Exception {
    // never skipped: .ci/run installs systemd-analyze where it is missing
    Path tool = Path.of("/usr/bin/systemd-analyze");
    assertThat(tool).as("systemd-analyze (Debian package systemd)").isExecutable();
    // the unit as installed elsewhere than /opt/anteroom: verify checks ExecStart's program exists
    String unit =
        Files.readString(home.resolve("anteroom.service"))
            .replace("/opt/anteroom", home.toString());
    Path copy = Files.createDirectories(install.resolve("unit")).resolve("anteroom.service");
    Files.writeString(copy, unit);
    Process p =
        new ProcessBuilder(tool.toString(), "verify", "--man=no", copy.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).as("every line accepted, e.g. no 'Invalid environment assignment'").isEmpty();
    assertThat(unit).contains("Environment=\"ANTEROOM_JAVA_OPTS=-Xms512m -Xmx512m\"");
  }

  @Test
  void startScriptPrintsEveryCommand() throws Exception {
    Process p = start(List.of("--help"));
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).contains("run", "gateway", "coordinator", "demo", "check", "simulate");
  }

  @Test
  void theSampleConfigPassesCheck() throws Exception {
    Process p = start(List.of("check", "--config", home.resolve("anteroom.yaml").toString()));
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).contains("configuration OK");
  }

  @Test
  void helpSimulatePrintsTheSimulatorsOptions() throws Exception {
    Process p = start(List.of("help", "simulate"));
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out)
        .contains("Usage: anteroom simulate", "--scenario", "--config", "--arrivals")
        .doesNotContain("WARN");
  }

  @Test
  void startScriptRunsTheSampleConfigUntilTerminated() throws Exception {
    int publicPort = FreePorts.take();
    int adminPort = FreePorts.take();
    Path data = Files.createDirectories(install.resolve("data"));
    Path log = install.resolve("run.log");
    var builder =
        new ProcessBuilder(
                List.of(
                    home.resolve("bin/anteroom").toString(),
                    "run",
                    "--config",
                    home.resolve("anteroom.yaml").toString(),
                    "--listen",
                    "127.0.0.1:" + publicPort,
                    "--admin-listen",
                    "127.0.0.1:" + adminPort,
                    "--data-dir",
                    data.toString()))
            .directory(install.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().put("ANTEROOM_LOG_FORMAT", "json");
    Path aot = install.resolve("aot");
    builder.environment().put("ANTEROOM_AOT_DIR", aot.toString());
    Process p = builder.start();
    try {
      HttpClient http = HttpClient.newHttpClient();
      awaitAnswer(p, log, http, "http://127.0.0.1:" + adminPort + "/health", 200);
      assertThat(data.resolve("ticket-keys")).isRegularFile();
      String metrics =
          http.send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/metrics"))
                      .timeout(Duration.ofSeconds(5))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      assertThat(metrics)
          .as("room gauges labelled by room, and the embedded objects runtime's metrics")
          .contains("anteroom_room_active_users{room=", "objects_events");
    } finally {
      p.destroy(); // SIGTERM: graceful drain
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
    assertThat(p.exitValue()).as(Files.readString(log)).isIn(0, 143);
    if (Runtime.version().feature() >= 25) { // the launcher picks the newest JDK, 25 here
      // the first start trained the AOT cache of run in the background: it is written, and the
      // training's temporary directory is gone
      assertThat(Files.readString(log)).contains("start-up cache: none yet; a short run");
      await("the start-up cache trained")
          .atMost(Duration.ofMinutes(5))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () -> {
                try (var files = Files.list(aot)) {
                  List<String> names = files.map(f -> f.getFileName().toString()).toList();
                  return names.stream().anyMatch(n -> n.matches("anteroom-.*-run-java.*\\.aot"))
                      && names.stream().noneMatch(n -> n.endsWith(".training"));
                }
              });
    }
    // ANTEROOM_LOG_FORMAT=json: every log line is one JSON object
    List<String> lines = Files.readAllLines(log).stream().filter(l -> !l.isBlank()).toList();
    assertThat(lines).isNotEmpty();
    assertThat(lines.stream().filter(l -> l.startsWith("{\"")))
        .as("log lines (the startup banner aside)")
        .anySatisfy(l -> assertThat(l).contains("\"level\":\"INFO\"", "\"message\":"));
  }

  @Test
  void theCoordinatorLoadsSqliteFromTheDistributionWithoutACopyInTheTempDirectory()
      throws Exception {
    int port = FreePorts.take();
    Path tmp = Files.createDirectories(install.resolve("coordinator-tmp"));
    Path log = install.resolve("coordinator.log");
    var builder =
        new ProcessBuilder(
                List.of(
                    home.resolve("bin/anteroom").toString(),
                    "coordinator",
                    "--listen",
                    "127.0.0.1:" + port,
                    "--data-dir",
                    install.resolve("coordinator-data").toString()))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().put("ANTEROOM_JAVA_OPTS", "-Djava.io.tmpdir=" + tmp);
    builder.environment().put("ANTEROOM_AOT", "off");
    Process p = builder.start();
    try {
      awaitAnswer(p, log, HttpClient.newHttpClient(), "http://127.0.0.1:" + port + "/", -1);
      // the objects runtime opened its SQLite database before the server answered
      assertThat(install.resolve("coordinator-data")).isNotEmptyDirectory();
      try (var files = Files.list(tmp)) {
        assertThat(files.map(f -> f.getFileName().toString()))
            .as("sqlite-jdbc copies its native library to java.io.tmpdir unless pointed at one")
            .noneMatch(name -> name.contains("sqlite"));
      }
    } finally {
      p.destroyForcibly();
      p.waitFor(60, TimeUnit.SECONDS);
    }
  }

  @Test
  void theLauncherLetsNettyUseUnsafeWhereTheJdkAsksForPermission() throws Exception {
    // Java 23+ has the option; without it Netty (Java 25+) leaves Unsafe alone and, with native
    // access on for SQLite, links malloc and free through the FFM API at every start
    String settings = launcherSettings(null);
    int feature = Integer.parseInt(property(settings, "java.specification.version"));
    assertThat(property(settings, "sun.misc.unsafe.memory.access"))
        .as("the launcher's JDK is Java %d", feature)
        .isEqualTo(feature >= 23 ? "allow" : null);
    if (feature >= 23) { // an operator's own choice in ANTEROOM_JAVA_OPTS comes later and wins
      String warned = launcherSettings("--sun-misc-unsafe-memory-access=warn");
      assertThat(property(warned, "sun.misc.unsafe.memory.access")).isEqualTo("warn");
    }
  }

  /** The JVM settings {@code bin/anteroom --version} runs with, {@code extra} JVM options added. */
  private String launcherSettings(String extra) throws Exception {
    var builder =
        new ProcessBuilder(List.of(home.resolve("bin/anteroom").toString(), "--version"))
            .redirectErrorStream(true);
    builder
        .environment()
        .put(
            "ANTEROOM_JAVA_OPTS", "-XshowSettings:properties" + (extra == null ? "" : " " + extra));
    Process p = builder.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }

  /** A property's value in {@code -XshowSettings:properties} output, or null. */
  private static String property(String settings, String name) {
    return settings
        .lines()
        .map(String::strip)
        .filter(l -> l.startsWith(name + " = "))
        .map(l -> l.substring(name.length() + 3))
        .findFirst()
        .orElse(null);
  }

  @Test
  void anUnknownLogFormatIsRefused() throws Exception {
    var builder =
        new ProcessBuilder(List.of(home.resolve("bin/anteroom").toString(), "--help"))
            .redirectErrorStream(true);
    builder.environment().put("ANTEROOM_LOG_FORMAT", "xml");
    Process p = builder.start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.exitValue()).isEqualTo(2);
    assertThat(out).contains("ANTEROOM_LOG_FORMAT=xml is not a log format (text or json)");
  }

  /** Waits until {@code url} answers (with {@code status}, or any status when it is -1). */
  private static void awaitAnswer(Process p, Path log, HttpClient http, String url, int status) {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build();
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .failFast("the process exited: see " + log, () -> !p.isAlive())
        .until(
            () -> {
              int got = http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
              return status == -1 || got == status;
            });
  }

  private Process start(List<String> args) throws IOException {
    var cmd = new java.util.ArrayList<String>();
    cmd.add(home.resolve("bin/anteroom").toString());
    cmd.addAll(args);
    return new ProcessBuilder(cmd).directory(install.toFile()).redirectErrorStream(true).start();
  }
}
