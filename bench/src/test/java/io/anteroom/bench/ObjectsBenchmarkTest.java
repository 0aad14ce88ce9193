package io.anteroom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.anteroom.objects.ratis.ClusterFile;
import io.anteroom.objects.ratis.PeerOptions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class ObjectsBenchmarkTest {

  @Test
  void eachRoundGetsItsOwnClusterToSingleNodeRatiosAndTheMedianIsOverTheRounds() {
    List<Map<String, Double>> rounds =
        List.of(
            Map.of(
                "http",
                40_000.0,
                "cluster",
                18_000.0,
                "http-spread",
                30_000.0,
                "cluster-spread",
                12_000.0),
            Map.of(
                "http",
                30_000.0,
                "cluster",
                16_500.0,
                "http-spread",
                30_000.0,
                "cluster-spread",
                15_000.0),
            Map.of(
                "http",
                20_000.0,
                "cluster",
                10_000.0,
                "http-spread",
                20_000.0,
                "cluster-spread",
                9_000.0));

    String table = ObjectsBenchmark.roundRatios(rounds);

    assertThat(table)
        .contains("| round | cluster / http | cluster-spread / http-spread |")
        .contains("| 1 (single node first) | 0.450 | 0.400 |")
        .contains("| 2 (cluster first) | 0.550 | 0.500 |")
        .contains("| 3 (single node first) | 0.500 | 0.450 |")
        .contains("| **median** | **0.500** | **0.450** |")
        .doesNotContain("cluster-1 / http");
  }

  @Test
  void thePeerProcessesTakeThisJvmsChoiceOfUnsafeForNetty() {
    assertThat(ObjectsBenchmark.peerCommand("java", "allow", "a.jar"))
        .containsExactly(
            "java",
            "--enable-native-access=ALL-UNNAMED",
            "--sun-misc-unsafe-memory-access=allow",
            "-cp",
            "a.jar",
            ClusterPeerMain.class.getName());
    assertThat(ObjectsBenchmark.peerCommand("java", null, "a.jar"))
        .as("no choice made: the JDK's default")
        .noneMatch(arg -> arg.startsWith("--sun-misc-unsafe-memory-access"));
  }

  @Test
  void theMedianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
    assertThat(ObjectsBenchmark.median(List.of(0.9, 0.1, 0.5, 0.3))).isCloseTo(0.4, within(1e-12));
    assertThat(ObjectsBenchmark.median(List.of(0.7))).isEqualTo(0.7);
  }

  @Test
  void noRatioTableWithoutBothSidesOfAPairInEveryRound() {
    assertThat(ObjectsBenchmark.roundRatios(List.of(Map.of("http", 1.0), Map.of("http", 2.0))))
        .isEmpty();
  }

  @Test
  void fewerThanOneRoundIsRefusedWithAClearErrorBeforeAnythingRuns() {
    StringWriter err = new StringWriter();
    CommandLine cli = new CommandLine(new ObjectsBenchmark()).setErr(new PrintWriter(err));

    int status = cli.execute("--rounds", "0", "--scenarios", "http");

    assertThat(status).isEqualTo(CommandLine.ExitCode.USAGE);
    assertThat(err.toString()).contains("--rounds 0: use 1");
  }

  @Test
  void aPeerCpuShareNotAboveZeroIsRefusedWithAClearErrorBeforeAnythingRuns() {
    StringWriter err = new StringWriter();
    CommandLine cli = new CommandLine(new ObjectsBenchmark()).setErr(new PrintWriter(err));

    int status = cli.execute("--peer-cpu", "0", "--scenarios", "rooms-1shard-capped");

    assertThat(status).isEqualTo(CommandLine.ExitCode.USAGE);
    assertThat(err.toString()).contains("--peer-cpu 0.0: give the share of one CPU");
  }

  @Test
  void aWarmUpCeilingNotAboveTheWarmUpIsRefusedWithAClearErrorBeforeAnythingRuns() {
    StringWriter err = new StringWriter();
    CommandLine cli = new CommandLine(new ObjectsBenchmark()).setErr(new PrintWriter(err));

    int status = cli.execute("--warmup", "20s", "--warmup-max", "10s", "--scenarios", "http");

    assertThat(status).isEqualTo(CommandLine.ExitCode.USAGE);
    assertThat(err.toString()).contains("--warmup-max 10000ms is not above --warmup 20000ms");
  }

  @Test
  void theTlsClustersPeersEachSpeakMutualTlsAndTrustAllThreeCertificates(@TempDir Path certs)
      throws Exception {
    ClusterFile file = ClusterFile.parse(ObjectsBenchmark.clusterYaml(3, "b"), "bench cluster");

    Map<String, PeerOptions> tls = ObjectsBenchmark.peerOptions(file, certs, true);
    Map<String, PeerOptions> plain = ObjectsBenchmark.peerOptions(file, certs.resolve("no"), false);

    assertThat(tls).containsOnlyKeys("b0", "b1", "b2");
    assertThat(tls.values()).allSatisfy(o -> assertThat(o.tls()).isNotNull());
    assertThat(Files.readString(certs.resolve("trusted.pem")))
        .as("one trust file with every peer's certificate")
        .containsSubsequence("BEGIN CERTIFICATE", "BEGIN CERTIFICATE", "BEGIN CERTIFICATE");
    assertThat(plain).containsOnlyKeys("b0", "b1", "b2");
    assertThat(plain.values()).allSatisfy(o -> assertThat(o.tls()).isNull());
  }

  @Test
  void theBenchClustersPortsAreDistinctEvenWhenManyAreTakenAtOnce() throws Exception {
    int[] ports = ObjectsBenchmark.freePorts(200);
    assertThat(java.util.Arrays.stream(ports).distinct().count()).isEqualTo(200);
  }

  /**
   * The Ratis-alone reference counts like the benchmarked counter: each call one replicated
   * increment, numbers handed out once and in order, whichever server the client finds leading.
   */
  @Test
  void theRatisReferenceHandsOutEachNumberOnceThroughTheLeader(@TempDir Path dir) throws Exception {
    ClusterFile file = ClusterFile.parse(ObjectsBenchmark.clusterYaml(3, "t"), "test reference");
    try (RatisReference reference = new RatisReference(dir, file.config())) {
      Counter counter = reference.counter();
      List<Long> numbers = new java.util.ArrayList<>();
      for (int i = 0; i < 5; i++) numbers.add(counter.next());
      assertThat(numbers).containsExactly(0L, 1L, 2L, 3L, 4L);
      assertThat(reference.commitIndex()).isGreaterThanOrEqualTo(5);
    }
  }

  /**
   * A reference call that no leader answers fails after the call timeout instead of waiting for
   * ever (Ratis' client retries for ever by default), so the benchmark's wait for a leader, and its
   * load runs, end by themselves. The JUnit timeout runs the test in its own thread: {@code join}
   * ignores interrupts, so without the bound the test fails there instead of hanging.
   */
  @Test
  @org.junit.jupiter.api.Timeout(
      value = 60,
      threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aRatisReferenceCallThatNoLeaderAnswersFailsAfterTheCallTimeout(@TempDir Path dir)
      throws Exception {
    ClusterFile file = ClusterFile.parse(ObjectsBenchmark.clusterYaml(3, "u"), "test reference");
    try (RatisReference reference =
        new RatisReference(dir, file.config(), java.time.Duration.ofSeconds(1))) {
      Counter counter = reference.counter();
      // a leader answers once elected (a loaded machine can take longer than the call timeout)
      org.awaitility.Awaitility.await("a leader confirms a call")
          .atMost(java.time.Duration.ofSeconds(30))
          .ignoreExceptions()
          .until(() -> counter.next() >= 0);
      reference.closeServers();
      assertThatThrownBy(counter::next)
          .isInstanceOf(java.util.concurrent.CompletionException.class)
          .hasCauseInstanceOf(java.util.concurrent.TimeoutException.class);
    }
  }
}
