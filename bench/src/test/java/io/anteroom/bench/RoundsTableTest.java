package io.anteroom.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The table of {@code bench/http/run.sh}'s rounds in rotating order ({@code
 * bench/http/rounds.awk}): each round's ratios against the nginx proxy of the same round, the
 * medians over the rounds, and the admitted path's verdict from the median, not from any single
 * round.
 */
class RoundsTableTest {
  private static final Path SCRIPT = Path.of("http", "rounds.awk");
  private static final String TARGETS = "nginx-proxy,anteroom-admitted,reference-netty";

  @Test
  void eachRoundsRatioIsTakenAgainstTheNginxProxyOfThatSameRound() throws Exception {
    List<String> lines =
        table(
            TARGETS,
            "1 nginx-proxy 40000 -",
            "1 anteroom-admitted 36000 20.0",
            "1 reference-netty 30000 25.0",
            "2 anteroom-admitted 36000 20.0",
            "2 reference-netty 30000 25.0",
            "2 nginx-proxy 20000 -");

    assertThat(lines)
        .contains(
            "| 1 | nginx-proxy | 40000 | 36000 (20.0) | 30000 (25.0) | 0.90 | 0.75 |",
            "| 2 | anteroom-admitted | 20000 | 36000 (20.0) | 30000 (25.0) | 1.80 | 1.50 |");
  }

  @Test
  void theVerdictIsTheMediansEvenWhenSomeRoundsMeetTheGoal() throws Exception {
    List<String> lines =
        table(
            TARGETS,
            "1 nginx-proxy 10000 -",
            "1 anteroom-admitted 9500 30.0",
            "1 reference-netty 9000 25.0",
            "2 anteroom-admitted 8000 30.0",
            "2 reference-netty 9000 25.0",
            "2 nginx-proxy 10000 -",
            "3 reference-netty 9000 25.0",
            "3 nginx-proxy 10000 -",
            "3 anteroom-admitted 8500 30.0");

    assertThat(lines)
        .contains(
            "| median |  | 10000 | 8500 (30.0) | 9000 (25.0) | **0.85** | **0.90** |",
            "anteroom-admitted / nginx-proxy over the rounds: median 0.85, 1 of 3 rounds at or"
                + " above 0.9 (goal: >= 0.9): **missed**",
            "CPU per request, anteroom-admitted / reference-netty, medians over the rounds: 1.20"
                + " (goal: <= 1.2)");
  }

  @Test
  void theMedianOfAnEvenNumberOfRoundsIsTheMeanOfTheMiddleTwo() throws Exception {
    List<String> lines =
        table(
            "nginx-proxy,anteroom-admitted",
            "1 nginx-proxy 10000 -",
            "1 anteroom-admitted 8000 40.0",
            "2 anteroom-admitted 9000 30.0",
            "2 nginx-proxy 10000 -",
            "3 nginx-proxy 10000 -",
            "3 anteroom-admitted 9600 20.0",
            "4 anteroom-admitted 9800 10.0",
            "4 nginx-proxy 10000 -");

    assertThat(lines)
        .contains(
            "| median |  | 10000 | 9300 (25.0) | **0.93** |",
            "anteroom-admitted / nginx-proxy over the rounds: median 0.93, 3 of 4 rounds at or"
                + " above 0.9 (goal: >= 0.9): met");
  }

  @Test
  void theFirstColumnNamesTheTargetEachRoundStartedWith() throws Exception {
    String[] rows = new String[9];
    int i = 0;
    for (int round = 1; round <= 3; round++) {
      rows[i++] = round + " nginx-proxy 10000 -";
      rows[i++] = round + " anteroom-admitted 9000 20.0";
      rows[i++] = round + " reference-netty 9000 20.0";
    }

    assertThat(table(TARGETS, rows))
        .anyMatch(l -> l.startsWith("| 1 | nginx-proxy |"))
        .anyMatch(l -> l.startsWith("| 2 | anteroom-admitted |"))
        .anyMatch(l -> l.startsWith("| 3 | reference-netty |"));
  }

  private static List<String> table(String targets, String... rows)
      throws IOException, InterruptedException {
    assertThat(SCRIPT).exists();
    Process awk =
        new ProcessBuilder("awk", "-v", "targets=" + targets, "-f", SCRIPT.toString())
            .redirectErrorStream(true)
            .start();
    try (OutputStream in = awk.getOutputStream()) {
      in.write((String.join("\n", rows) + "\n").getBytes(StandardCharsets.UTF_8));
    }
    String out = new String(awk.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(awk.waitFor(30, TimeUnit.SECONDS)).as("awk ends").isTrue();
    assertThat(awk.exitValue()).as(out).isZero();
    return out.lines().toList();
  }
}
