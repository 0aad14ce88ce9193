package io.anteroom.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
    byte[] png = Files.readAllBytes(a.resolve("sim-step-spike.png"));
    assertThat(png).startsWith(0x89, 'P', 'N', 'G');
    assertThat(Files.readString(a.resolve("results.csv")).lines()).hasSize(3);
    assertThat(first.err()).contains("simulated 2 run(s)");
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
}
