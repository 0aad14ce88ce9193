package io.anteroom.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MainTest {

  private record Outcome(int exit, String out, String err) {}

  private static Outcome run(String... args) {
    var out = new StringWriter();
    var err = new StringWriter();
    var cl = Main.commandLine();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int exit = cl.execute(args);
    return new Outcome(exit, out.toString(), err.toString());
  }

  @Test
  void helpListsEveryRunModeAndMentionsTheSimulator() {
    Outcome o = run("--help");
    assertThat(o.exit()).isZero();
    assertThat(o.out()).contains("run", "demo", "coordinator", "gateway", "simulate");
  }

  @Test
  void aBadConfigFileStopsTheStartWithEveryProblemNamed(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("anteroom.yaml");
    Files.writeString(file, """
        listen: 127.0.0.1:0
        rooms:
          - id: shop
            totalActiveUsers: -5
            queueingMethod: lottery
        """);
    Outcome o = run("run", "--config", file.toString(), "--data-dir", dir.toString());
    assertThat(o.exit()).isEqualTo(2);
    assertThat(o.err()).contains("rooms[0].totalActiveUsers: totalActiveUsers is -5; allowed: 1..",
        "rooms[0].queueingMethod: \"lottery\" is not allowed; allowed: fifo, passthrough, reject");
  }

  @Test
  void runWithoutOriginOrConfigSaysWhatToGive(@TempDir Path dir) {
    Outcome o = run("run", "--config", dir.resolve("missing.yaml").toString());
    assertThat(o.exit()).isEqualTo(2);
    assertThat(o.err()).contains("cannot read config file");
  }

  @Test
  void theGatewayModeNeedsItsCoordinatorAndDataCenter() {
    Outcome o = run("gateway", "--origin", "http://127.0.0.1:1");
    assertThat(o.exit()).isNotZero();
    assertThat(o.err()).contains("--coordinator", "--datacenter");
  }
}
