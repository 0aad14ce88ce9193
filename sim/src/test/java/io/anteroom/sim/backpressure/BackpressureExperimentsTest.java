package io.anteroom.sim.backpressure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BackpressureExperimentsTest {

  @Test
  void mainWritesTheChartsAsPngAndTheTableNamesBothControllers(@TempDir Path dir) throws Exception {
    PrintStream stdout = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      BackpressureExperiments.main(new String[] {dir.toString()});
    } finally {
      System.setOut(stdout);
    }
    for (String name :
        new String[] {
          "backpressure-sync-fairness.png",
          "backpressure-event-fairness.png",
          "backpressure-event-load.png",
          "backpressure-event-load-five-minute-rate.png",
          "backpressure-reference.png"
        }) {
      byte[] png = Files.readAllBytes(dir.resolve(name));
      assertThat(png).as(name).hasSizeGreaterThan(1000);
      assertThat(new String(png, 1, 3, StandardCharsets.US_ASCII)).as(name).isEqualTo("PNG");
    }
    String table = captured.toString(StandardCharsets.UTF_8);
    assertThat(table)
        .contains("| rate-space AIMD | 4 |")
        .contains("| interval rule | never in 400 rounds |")
        .contains("rate-space AIMD, 10 s window")
        .contains("interval rule, 10 s window");
  }
}
