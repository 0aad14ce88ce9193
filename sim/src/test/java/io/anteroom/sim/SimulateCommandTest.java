package io.anteroom.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SimulateCommandTest {
  @TempDir Path dir;

  private record Outcome(int code, String out, String err) {}

  private static Outcome execute(String... args) {
    PrintStream oldOut = System.out;
    PrintStream oldErr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      int code = SimulateCommand.execute(args);
      return new Outcome(
          code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
  }

  @Test
  void helpListsEveryOptionWithoutFormattingWarnings() {
    Outcome help = execute("simulate", "--help");

    assertThat(help.code()).isZero();
    assertThat(help.out()).contains("--scenario", "--explain-queued", "below 95 %");
    assertThat(help.err()).doesNotContain("WARN");
  }

  @Test
  void twoRunsWithTheSameSeedWriteIdenticalReports() throws IOException {
    Path a = dir.resolve("a");
    Path b = dir.resolve("b");
    Outcome first =
        execute(
            "simulate",
            "--scenario",
            "step-spike",
            "--strategy",
            "counters,even-split",
            "--minutes",
            "17",
            "--seed",
            "4",
            "--out",
            a.toString());
    Outcome second =
        execute(
            "--scenario",
            "step-spike",
            "--strategy",
            "counters,even-split",
            "--minutes",
            "17",
            "--seed",
            "4",
            "--out",
            b.toString());
    assertThat(first.code()).isZero();
    assertThat(second.code()).isZero();
    assertThat(second.out()).isEqualTo(first.out()).contains("counters").contains("evenSplit");
    for (String file : new String[] {"report.md", "results.csv", "series-step-spike.csv"}) {
      assertThat(Files.readAllBytes(b.resolve(file)))
          .as(file)
          .isEqualTo(Files.readAllBytes(a.resolve(file)));
    }
    byte[] png = Files.readAllBytes(a.resolve("img/sim-step-spike.png"));
    assertThat(png).startsWith(0x89, 'P', 'N', 'G');
    assertThat(Files.readString(a.resolve("results.csv")).lines()).hasSize(3);
    assertThat(first.err()).contains("simulated 2 run(s)");
  }

  @Test
  void everyImageTheReportShowsIsAPngTheRunWrote() throws IOException {
    Path out = dir.resolve("out");
    Outcome o =
        execute(
            "--scenario",
            "step-spike",
            "--strategy",
            "counters",
            "--minutes",
            "3",
            "--out",
            out.toString());
    assertThat(o.code()).as(o.err()).isZero();

    String report = Files.readString(out.resolve("report.md"));
    List<String> links =
        Pattern.compile("!\\[[^]]*]\\(([^)]+)\\)")
            .matcher(report)
            .results()
            .map(m -> m.group(1))
            .toList();
    assertThat(links).as(report).isNotEmpty();
    for (String link : links) {
      Path image = out.resolve(link);
      assertThat(image).as("report.md shows %s", link).isRegularFile();
      assertThat(Files.readAllBytes(image)).startsWith(0x89, 'P', 'N', 'G');
    }
  }

  @Test
  void withoutOutTheReportGoesToANewTemporaryDirectoryNamedOnStderr() throws IOException {
    Path tmp = Files.createDirectory(dir.resolve("tmp"));
    String before = System.getProperty("java.io.tmpdir");
    Outcome first;
    Outcome second;
    try {
      System.setProperty("java.io.tmpdir", tmp.toString());
      String[] args = {"--scenario", "step-spike", "--strategy", "counters", "--minutes", "2"};
      first = execute(args);
      second = execute(args);
    } finally {
      System.setProperty("java.io.tmpdir", before);
    }
    assertThat(first.code()).as(first.err()).isZero();
    assertThat(second.code()).as(second.err()).isZero();

    Path a = reportDirectory(first);
    Path b = reportDirectory(second);
    assertThat(a.getParent()).isEqualTo(tmp.toAbsolutePath());
    assertThat(a.getFileName().toString()).startsWith("anteroom-simulation-");
    assertThat(b).as("a second run keeps the first one's report").isNotEqualTo(a);
    assertThat(a.resolve("report.md")).isRegularFile();
    assertThat(a.resolve("img/sim-step-spike.png")).isRegularFile();
    assertThat(a.startsWith(Path.of("").toAbsolutePath())).as("in the working directory").isFalse();
  }

  /** The directory the stderr line {@code ... report in DIR} names. */
  private static Path reportDirectory(Outcome o) {
    var m = Pattern.compile("report in (.+)").matcher(o.err());
    assertThat(m.find()).as(o.err()).isTrue();
    return Path.of(m.group(1).strip());
  }

  @Test
  void everyLinePrintedFitsAHundredColumnTerminal() throws IOException {
    Path file =
        config(
            "  - id: a-room-with-a-rather-long-name\n    totalActiveUsers: 20\n"
                + "    newUsersPerMinute: 10\n");
    Outcome all =
        execute(
            "--scenario",
            "steady",
            "--minutes",
            "8",
            "--no-charts",
            "--out",
            dir.resolve("all").toString());
    Outcome own =
        execute(
            "--config",
            file.toString(),
            "--arrivals",
            "0-2m:10/min,2-4m:300/min,4-6m:1..200/min",
            "--topology",
            "three-datacenters",
            "--no-charts",
            "--out",
            dir.resolve("own").toString());

    for (Outcome o : List.of(all, own)) {
      assertThat(o.code()).as(o.err()).isZero();
      assertThat(o.out().lines().filter(l -> l.length() > 100)).as(o.out()).isEmpty();
    }
    assertThat(all.out())
        .as("what is wrapped and split is still there")
        .contains("missed:", "counters-published", "wait err median", "gave up", "targets")
        .contains("utilizationScaled-published");
    assertThat(own.out()).contains("a-room-with-a-rather-long-name", "wait p95");
  }

  @Test
  void simulateIsACommandOfAnteroomFoundOnTheClassPath() {
    assertThat(java.util.ServiceLoader.load(io.anteroom.cli.AnteroomSubcommand.class).stream())
        .anyMatch(p -> p.type() == SimulateCommand.class);
  }

  @Test
  void listNamesEveryScenarioAndStrategy() {
    Outcome o = execute("--list");
    assertThat(o.code()).isZero();
    for (Scenario s : Scenarios.all()) {
      assertThat(o.out()).contains(s.name());
    }
    for (StrategyVariant s : StrategyVariant.all()) {
      assertThat(o.out()).contains(s.cliName());
    }
  }

  @Test
  void anUnknownScenarioIsRefusedWithTheNamesThatExist() {
    Outcome o = execute("--scenario", "tsunami", "--out", dir.toString());
    assertThat(o.code()).isEqualTo(2);
    assertThat(o.err())
        .contains("unknown scenario 'tsunami'")
        .contains("steady")
        .contains("spike-after-low");
  }

  @Test
  void anUnknownStrategyIsRefusedWithTheNamesThatExist() {
    Outcome o = execute("--strategy", "counters,lottery", "--out", dir.toString());
    assertThat(o.code()).isEqualTo(2);
    assertThat(o.err()).contains("unknown strategy 'lottery'").contains("counters-published");
  }

  private Path config(String rooms) throws IOException {
    Path file = dir.resolve("anteroom.yaml");
    Files.writeString(file, "origin: http://127.0.0.1:3000\nrooms:\n" + rooms);
    return file;
  }

  @Test
  void aRoomOfTheConfigurationRunsUnderTheGivenArrivalsWithItsOwnLimitsAndStrategy()
      throws IOException {
    Path file =
        config(
            """
              - id: sale
                totalActiveUsers: 200
                newUsersPerMinute: 50
                sessionDurationMinutes: 2
                strategy: evenSplit
              - id: other
                path: /other/
            """);

    Outcome o =
        execute(
            "simulate",
            "--config",
            file.toString(),
            "--room",
            "sale",
            "--arrivals",
            "0-3m:20/min,3-5m:400/min,5-8m:30/min",
            "--no-charts",
            "--out",
            dir.resolve("out").toString());

    assertThat(o.code()).as(o.err()).isZero();
    assertThat(o.out().replaceAll("\\s+", " ")) // the description is wrapped
        .contains("scenario room-sale (8 min, seed 1)")
        .contains("T=200, N=50/min, S=2 min, R=20 s, strategy evenSplit, single-node")
        .contains("wait p50", "wait p95", "peak/T");
    // only the room's own strategy ran: one line in each table
    assertThat(o.out().lines().filter(l -> l.startsWith("evenSplit ")))
        .hasSize(Report.TEXT_GROUPS.size());
    assertThat(o.out()).doesNotContain("\ncounters ");
    String csv = Files.readString(dir.resolve("out/results.csv"));
    assertThat(csv.lines()).hasSize(2);
    assertThat(csv.lines().skip(1).findFirst().orElseThrow())
        .startsWith("room-sale,8,1,evenSplit,");
    // 400 a minute into N = 50: people queued and some were let in from the queue
    String[] row = csv.lines().skip(1).findFirst().orElseThrow().split(",");
    assertThat(Long.parseLong(row[10])).as("queued users").isPositive();
  }

  @Test
  void theStrategyOptionComparesOtherStrategiesOnTheSameRoom() throws IOException {
    Path file = config("  - id: sale\n    totalActiveUsers: 100\n");

    Outcome o =
        execute(
            "--config",
            file.toString(),
            "--arrivals",
            "0-4m:80/min",
            "--strategy",
            "counters,utilizationScaled",
            "--topology",
            "three-datacenters",
            "--no-charts",
            "--out",
            dir.resolve("out").toString());

    assertThat(o.code()).as(o.err()).isZero();
    assertThat(o.out())
        .contains("three-datacenters")
        .contains("\ncounters ")
        .contains("\nutilizationScaled ");
  }

  @Test
  void badCombinationsAndUnknownRoomsAreNamed() throws IOException {
    Path file = config("  - id: a\n  - id: b\n    path: /b/\n");
    String out = dir.resolve("out").toString();

    assertThat(execute("--config", file.toString(), "--arrivals", "0-5m:10/min", "--out", out))
        .satisfies(o -> assertThat(o.code()).isEqualTo(2))
        .satisfies(
            o -> assertThat(o.err()).contains("has 2 rooms; choose one with --room ID: [a, b]"));
    assertThat(execute("--config", file.toString(), "--room", "c", "--arrivals", "0-5m:10/min"))
        .satisfies(o -> assertThat(o.err()).contains("has no room \"c\"; its rooms: [a, b]"));
    assertThat(execute("--config", file.toString(), "--room", "a"))
        .satisfies(o -> assertThat(o.err()).contains("--config needs --arrivals PROFILE"));
    assertThat(execute("--arrivals", "0-5m:10/min"))
        .satisfies(o -> assertThat(o.err()).contains("--arrivals needs --config FILE"));
    assertThat(execute("--scenario", "steady", "--room", "a"))
        .satisfies(o -> assertThat(o.err()).contains("--room only applies to a room of --config"));
    assertThat(
            execute(
                "--config",
                file.toString(),
                "--room",
                "a",
                "--arrivals",
                "0-5m:10/min",
                "--topology",
                "moon"))
        .satisfies(o -> assertThat(o.err()).contains("--topology: \"moon\" is not a topology"));
  }

  @Test
  void aConfigurationErrorIsReportedAsCheckReportsIt() throws IOException {
    Path file = config("  - id: sale\n    strategy: evenspilt\n");

    Outcome o = execute("--config", file.toString(), "--arrivals", "0-5m:10/min");

    assertThat(o.code()).isEqualTo(2);
    assertThat(o.err()).contains("rooms[0].strategy").contains("did you mean \"evenSplit\"");
  }
}
