package io.anteroom.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.cli.AnteroomSubcommand;
import io.anteroom.coordinator.CoordinatorServer;
import io.anteroom.coordinator.server.CoordinatorPeer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class MainTest {

  private record Outcome(int exit, String out, String err) {}

  private static Outcome run(String... args) {
    var out = new StringWriter();
    var err = new StringWriter();
    var cl = Main.commandLine(args);
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int exit = cl.execute(args);
    return new Outcome(exit, out.toString(), err.toString());
  }

  /**
   * A command of another module, as the simulator's {@code simulate} is one: registered in this
   * module's test resources under META-INF/services/io.anteroom.cli.AnteroomSubcommand.
   */
  @picocli.CommandLine.Command(name = "hello", description = "Says hello (a test command).")
  public static final class HelloCommand implements AnteroomSubcommand, Runnable {
    @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
      spec.commandLine().getOut().println("hello from another module");
    }
  }

  @Test
  void nettysJfrEventsAreOffUnlessTheOperatorSaysOtherwise() {
    var none = new java.util.Properties();
    Main.defaultSystemProperties(none);
    assertThat(none.getProperty("io.netty.jfr.enabled")).isEqualTo("false");

    var operators = new java.util.Properties();
    operators.setProperty("io.netty.jfr.enabled", "true");
    Main.defaultSystemProperties(operators);
    assertThat(operators.getProperty("io.netty.jfr.enabled")).isEqualTo("true");
  }

  @Test
  void theCommandLineSetsThoseDefaultsBeforeAnyCommandRuns() {
    String before = System.clearProperty(Main.NETTY_JFR);
    try {
      Main.commandLine("coordinator");
      assertThat(System.getProperty(Main.NETTY_JFR)).isEqualTo("false");
    } finally {
      if (before == null) System.clearProperty(Main.NETTY_JFR);
      else System.setProperty(Main.NETTY_JFR, before);
    }
  }

  @Test
  void helpListsEveryRunModeAndTheCommandsOfOtherModules() {
    Outcome o = run("--help");
    assertThat(o.exit()).isZero();
    assertThat(o.out()).contains("run", "demo", "coordinator", "gateway", "check", "help");
    assertThat(o.out()).contains("hello", "Says hello (a test command).");
    assertThat(run("hello").out()).contains("hello from another module");
    assertThat(run("help", "hello").out()).contains("Usage: anteroom hello");
  }

  @Test
  void aCommandNamedFirstRunsAloneWithItsOwnHelpAndAMistypedOneGetsSuggestions() {
    Outcome help = run("coordinator", "--help");
    assertThat(help.exit()).isZero();
    assertThat(help.out()).contains("Usage: anteroom coordinator", "--listen", "--cluster");

    Outcome typo = run("coordinatr", "--listen", "127.0.0.1:0");
    assertThat(typo.exit()).isEqualTo(2);
    assertThat(typo.err()).contains("'coordinatr'", "Did you mean: anteroom coordinator");
  }

  @Test
  void everyBuiltInCommandIsListedUnderTheNameItsCommandAnnotationGives() {
    Main.COMMANDS.forEach(
        (name, command) ->
            assertThat(new picocli.CommandLine(command.get()).getCommandName()).isEqualTo(name));
    assertThat(run("--help").out()).contains(Main.COMMANDS.keySet());
  }

  /**
   * The commands of module coordinator-server join the command line as contributed commands, in the
   * help's place they always had (between demo and gateway); other modules' commands follow the
   * built-in ones, and a contributed command named first is the only one built.
   */
  @Test
  void theCoordinatorsCommandsAreContributedAndKeepTheirPlaceInTheHelp() {
    assertThat(Main.COMMANDS).doesNotContainKeys("coordinator", "cluster");
    assertThat(Main.contributed()).containsKeys("coordinator", "cluster", "hello");

    var listed = new java.util.ArrayList<String>();
    for (String line : run("--help").out().lines().toList()) {
      var m = java.util.regex.Pattern.compile("^  ([a-z-]+)  ").matcher(line);
      if (m.find()) listed.add(m.group(1));
    }
    assertThat(listed)
        .containsSubsequence(
            "run",
            "demo",
            "coordinator",
            "cluster",
            "gateway",
            "check",
            "pass-keys",
            "invite",
            "verify-draw",
            "rooms",
            "hello",
            "help");
    assertThat(listed.indexOf("hello")).isGreaterThan(listed.indexOf("rooms"));

    assertThat(Main.commandLine("cluster", "members").getSubcommands().keySet())
        .containsExactly("cluster");
    assertThat(Main.commandLine("coordinator").getSubcommands().keySet())
        .containsExactly("coordinator");
  }

  /** A listener option is read by the configuration file's reader, with the same words. */
  @Test
  void aBadListenOptionIsRefusedInTheConfigFilesWords(@TempDir Path dir) {
    Outcome o =
        run(
            "check",
            "--origin",
            "http://127.0.0.1:9",
            "--data-dir",
            dir.toString(),
            "--admin-listen",
            "127.0.0.1:65536");
    assertThat(o.exit()).isEqualTo(2);
    assertThat(o.err())
        .contains(
            "anteroom: --admin-listen: \"127.0.0.1:65536\" is not host:port (port 65536 is above"
                + " 65535; e.g. 127.0.0.1:8080 or [::1]:8080; port 0 to 65535)");

    Outcome coordinator = run("coordinator", "--listen", "::1:7070", "--data-dir", dir.toString());
    assertThat(coordinator.exit()).isEqualTo(2);
    assertThat(coordinator.err())
        .contains("anteroom: --listen: \"::1:7070\" is not host:port (write an IPv6 address in");
  }

  @Test
  void aBadConfigFileStopsTheStartWithEveryProblemNamed(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("anteroom.yaml");
    Files.writeString(
        file,
        """
        listen: 127.0.0.1:0
        rooms:
          - id: shop
            totalActiveUsers: -5
            queueingMethod: lottery
        """);
    Outcome o = run("run", "--config", file.toString(), "--data-dir", dir.toString());
    assertThat(o.exit()).isEqualTo(2);
    assertThat(o.err())
        .contains(
            "rooms[0].totalActiveUsers: totalActiveUsers is -5; allowed: 1..",
            "rooms[0].queueingMethod: \"lottery\" is not allowed; allowed: fifo, passthrough, reject,"
                + " random");
  }

  @Test
  void checkValidatesAConfigAndStartsNothing(@TempDir Path dir) throws Exception {
    Path good = dir.resolve("good.yaml");
    Files.writeString(
        good,
        """
        listen: 127.0.0.1:8080
        origin: http://127.0.0.1:9000
        dataDir: %s
        rooms:
          - { id: shop, totalActiveUsers: 50 }
          - { id: blog, path: /blog/ }
        """
            .formatted(dir.resolve("data")));
    Path bad = dir.resolve("bad.yaml");
    Files.writeString(
        bad, "rooms: [ { id: shop, totalActiveUsers: -5, queueingMethod: lottery } ]");

    Outcome ok = run("check", "--config", good.toString());
    Outcome notOk = run("check", "--config", bad.toString());

    assertThat(ok.exit()).isZero();
    assertThat(ok.out()).contains("configuration OK", "2 rooms (shop, blog)");
    assertThat(ok.out())
        .as("the transport it would run on here")
        .contains(
            "event loops on "
                + (io.vertx.core.transport.Transport.IO_URING.available() ? "io_uring" : "nio"));
    assertThat(notOk.exit()).isEqualTo(2);
    assertThat(notOk.err())
        .contains("rooms[0].totalActiveUsers", "rooms[0].queueingMethod: \"lottery\"");
    assertThat(dir.resolve("data")).doesNotExist(); // nothing was started or written
  }

  @Test
  void checkNamesEveryProblemOfTheAdminTokensOnItsOwnLine(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("anteroom.yaml");
    Files.writeString(
        file,
        """
        admin:
          tokens:
            - { name: desk, scope: read, token: desk-token-0123456789 }
            - { name: desk, scope: reader, tokenFile: %s }
        """
            .formatted(dir.resolve("no-such-token")));
    Outcome o = run("check", "--config", file.toString());
    assertThat(o.exit()).isEqualTo(2);
    assertThat(o.err().lines())
        .anyMatch(l -> l.contains("admin.tokens[1].name: duplicate token name \"desk\""))
        .anyMatch(l -> l.contains("admin.tokens[1].scope: unknown scope \"reader\""))
        .anyMatch(
            l ->
                l.contains(
                    "admin.tokens[1].tokenFile: cannot read "
                        + dir.resolve("no-such-token")
                        + " (no such file)"));
  }

  @Test
  void aMissingConfigFileIsNamedWithoutAnExceptionClass(@TempDir Path dir) {
    Path missing = dir.resolve("missing.yaml");
    for (String command : new String[] {"run", "check"}) {
      Outcome o = run(command, "--config", missing.toString());
      assertThat(o.exit()).isEqualTo(2);
      assertThat(o.err().strip()).isEqualTo("anteroom: config file not found: " + missing);
    }
  }

  @Test
  void checkSaysAZeroQueueTimeoutInTheConfigFilesOwnWords(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("anteroom.yaml");
    Files.writeString(file, "rooms: [ { id: shop, queueTimeoutMinutes: 0 } ]\n");
    Outcome o = run("check", "--config", file.toString());
    assertThat(o.exit()).isEqualTo(2);
    assertThat(o.err())
        .contains(
            "rooms[0].queueTimeoutMinutes: queueTimeoutMinutes is 0; allowed: 1..1440 (minutes,"
                + " at least queueRefreshSeconds: 20 s)")
        .doesNotContain("PT0S");
  }

  @Test
  void checkAsAGatewayRefusesAConfigWhoseTicketKeyFileDoesNotExist(@TempDir Path dir)
      throws Exception {
    Path data = dir.resolve("data");
    Path file = dir.resolve("gw.yaml");
    Files.writeString(file, "dataDir: " + data + "\nrooms: [ { id: shop } ]\n");

    Outcome gateway = run("check", "--as", "gateway", "--config", file.toString());
    assertThat(gateway.exit()).isEqualTo(2);
    assertThat(gateway.out()).doesNotContain("configuration OK");
    assertThat(gateway.err())
        .contains(
            "no ticket keys: every gateway of a deployment must use the same keys",
            data.resolve("ticket-keys").toString());

    // run generates the file at its first start: OK, and the summary says so
    Outcome run = run("check", "--config", file.toString());
    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out())
        .contains(
            "ticket keys: "
                + data.resolve("ticket-keys")
                + " does not exist yet; run creates it at its first start")
        .doesNotContain("from dataDir/ticket-keys");

    // with the deployment's file copied there, the gateway would start
    Files.createDirectories(data);
    Files.writeString(
        data.resolve("ticket-keys"), "1 AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n");
    Outcome ok = run("check", "--as", "gateway", "--config", file.toString());
    assertThat(ok.exit()).as(ok.err()).isZero();
    assertThat(ok.out())
        .contains("configuration OK", "ticket keys: 1 in " + data.resolve("ticket-keys"));

    // a key file a start would refuse is a problem for both
    Files.writeString(data.resolve("ticket-keys"), "1 not-base64\n");
    Outcome bad = run("check", "--config", file.toString());
    assertThat(bad.exit()).isEqualTo(2);
    assertThat(bad.err()).contains(data.resolve("ticket-keys") + " line 1: expected");
  }

  @Test
  void theGatewayModeNeedsItsCoordinatorAndDataCenter() {
    Outcome o = run("gateway", "--origin", "http://127.0.0.1:1");
    assertThat(o.exit()).isNotZero();
    assertThat(o.err()).contains("--coordinator", "--datacenter");
  }

  @Test
  void aCoordinatorReachableFromOtherHostsRefusesToStartWithoutASecret(@TempDir Path dir) {
    Outcome o = run("coordinator", "--listen", "0.0.0.0:0", "--data-dir", dir.toString());
    assertThat(o.exit()).isEqualTo(2);
    assertThat(o.err().strip())
        .doesNotContain("\n")
        .startsWith(
            "anteroom: --listen 0.0.0.0:0 is"
                + " reachable from other hosts: a coordinator there needs the deployment's shared secret"
                + " (--secret-file FILE or $ANTEROOM_COORDINATOR_SECRET");
  }

  @Test
  void aSecretFileTooShortIsRefusedWithoutEchoingIt(@TempDir Path dir) throws Exception {
    Path secret = dir.resolve("secret");
    Files.writeString(secret, "k1:c2hvcnQ=\n");
    Outcome o =
        run(
            "coordinator",
            "--listen",
            "0.0.0.0:0",
            "--secret-file",
            secret.toString(),
            "--data-dir",
            dir.toString());
    assertThat(o.exit()).isEqualTo(2);
    assertThat(o.err()).contains("has 5 bytes; at least 32").doesNotContain("c2hvcnQ");
  }

  @Test
  @Timeout(60) // the gateway of old generated its own keys and ran until stopped
  void aGatewayWithoutSharedTicketKeysRefusesToStart(@TempDir Path dir) throws Exception {
    Path config = dir.resolve("gw.yaml");
    Files.writeString(config, "listen: 127.0.0.1:0\nadmin: { listen: 127.0.0.1:0 }\n");
    Outcome o =
        run(
            "gateway",
            "--coordinator",
            "http://127.0.0.1:1",
            "--datacenter",
            "dublin",
            "--config",
            config.toString(),
            "--data-dir",
            dir.resolve("data").toString());
    assertThat(o.exit()).isEqualTo(2);
    assertThat(o.err())
        .contains(
            "no ticket keys: every gateway of a deployment must use the same"
                + " keys; set ticketKeys in the config, or copy the ticket-keys file");
    assertThat(dir.resolve("data").resolve("ticket-keys")).doesNotExist();
  }

  @Test
  @Timeout(60) // the gateway of old started (and ran until stopped)
  void aGatewayRefusesARemoteCoordinatorWithoutTheSecret(@TempDir Path dir) throws Exception {
    Path config = dir.resolve("gw.yaml");
    Files.writeString(config, "ticketKeys: [ { id: 1, secret: AAAAAAAAAAAAAAAAAAAAAA== } ]\n");
    Outcome o =
        run(
            "gateway",
            "--coordinator",
            "http://10.0.0.2:7070",
            "--datacenter",
            "dublin",
            "--config",
            config.toString());
    assertThat(o.exit()).isEqualTo(2);
    assertThat(o.err())
        .contains(
            "--coordinator http://10.0.0.2:7070 is not on this host: give the"
                + " deployment's shared secret (--coordinator-secret-file FILE or"
                + " $ANTEROOM_COORDINATOR_SECRET)");
  }

  @Test
  @Timeout(60)
  void aGatewayListingSeveralCoordinatorsChecksEachForTheSecret(@TempDir Path dir)
      throws Exception {
    Path config = dir.resolve("gw.yaml");
    Files.writeString(config, "ticketKeys: [ { id: 1, secret: AAAAAAAAAAAAAAAAAAAAAA== } ]\n");
    Outcome o =
        run(
            "gateway",
            "--coordinator",
            "http://127.0.0.1:7070,http://10.0.0.3:7070",
            "--coordinator",
            "http://127.0.0.1:7072",
            "--datacenter",
            "dublin",
            "--config",
            config.toString());
    assertThat(o.exit()).isEqualTo(2);
    assertThat(o.err()).contains("--coordinator http://10.0.0.3:7070 is not on this host");
  }

  @Test
  void aClusterCoordinatorNeedsItsIdAndAnIdOfTheFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("cluster.yaml");
    Files.writeString(
        file,
        """
        peers:
          - { id: c1, raft: "127.0.0.1:1", http: "http://127.0.0.1:2" }
          - { id: c2, raft: "127.0.0.1:3", http: "http://127.0.0.1:4" }
          - { id: c3, raft: "127.0.0.1:5", http: "http://127.0.0.1:6" }
        """);
    Outcome noId = run("coordinator", "--cluster", file.toString(), "--data-dir", dir.toString());
    assertThat(noId.exit()).isEqualTo(2);
    assertThat(noId.err()).contains("--cluster needs --id ID");

    Outcome unknown =
        run(
            "coordinator",
            "--cluster",
            file.toString(),
            "--id",
            "c9",
            "--data-dir",
            dir.toString());
    assertThat(unknown.exit()).isEqualTo(2);
    assertThat(unknown.err()).contains("no peer c9 in cluster anteroom; peers: [c1, c2, c3]");

    Outcome idAlone = run("coordinator", "--id", "c1", "--data-dir", dir.toString());
    assertThat(idAlone.exit()).isEqualTo(2);
    assertThat(idAlone.err()).contains("--id needs --cluster FILE");

    Outcome joinAlone = run("coordinator", "--join", "--data-dir", dir.toString());
    assertThat(joinAlone.exit()).isEqualTo(2);
    assertThat(joinAlone.err()).contains("--join needs --cluster FILE");
  }

  @Test
  void clusterCommandsRefuseWhatTheyCannotDoAndNameIt(@TempDir Path dir) throws Exception {
    Path remote = dir.resolve("remote.yaml");
    Files.writeString(
        remote,
        """
        peers:
          - { id: c1, raft: "10.0.1.1:7071", http: "https://10.0.0.1:7070" }
        """);
    Outcome noTrust = run("cluster", "members", "--cluster", remote.toString());
    assertThat(noTrust.exit()).isEqualTo(2);
    assertThat(noTrust.err())
        .contains("peer c1 speaks Raft on 10.0.1.1:7071: the peers accept only mutual TLS there");

    Path local = dir.resolve("local.yaml");
    int[] ports = io.anteroom.testkit.FreePorts.take(2);
    Files.writeString(
        local,
        "peers:\n  - { id: c1, raft: \"127.0.0.1:"
            + ports[0]
            + "\", http: \"http://127.0.0.1:"
            + ports[1]
            + "\" }\n");
    Outcome unknown = run("cluster", "add", "c9", "--cluster", local.toString());
    assertThat(unknown.exit()).isEqualTo(2);
    assertThat(unknown.err()).contains("no peer c9 in cluster anteroom; peers: [c1]");

    Outcome nobody = run("cluster", "members", "--cluster", local.toString());
    assertThat(nobody.exit()).isEqualTo(2);
    assertThat(nobody.err())
        .contains("shard 0 of cluster anteroom: no leader among the reachable peers (c1: ");

    Outcome bare = run("cluster");
    assertThat(bare.exit()).isEqualTo(2);
    assertThat(bare.err())
        .contains("name a subcommand: members, add, remove, replace, backup or restore");
  }

  /**
   * {@code anteroom cluster} against running peers (in this JVM, plain text on loopback): one peer
   * alone, then a second one added online; both report the same membership.
   */
  @Test
  void clusterAddMakesARunningPeerAMemberAndMembersShowsIt(@TempDir Path dir) throws Exception {
    int[] ports = io.anteroom.testkit.FreePorts.take(4);
    String c1 =
        "  - { id: c1, raft: \"127.0.0.1:"
            + ports[0]
            + "\", http: \"http://127.0.0.1:"
            + ports[1]
            + "\" }\n";
    String c2 =
        "  - { id: c2, raft: \"127.0.0.1:"
            + ports[2]
            + "\", http: \"http://127.0.0.1:"
            + ports[3]
            + "\" }\n";
    Path one = dir.resolve("one.yaml");
    Files.writeString(one, "peers:\n" + c1);
    Path two = dir.resolve("two.yaml");
    Files.writeString(two, "peers:\n" + c1 + c2);
    List<io.anteroom.objects.ratis.ClusterNode> nodes = new java.util.ArrayList<>();
    try {
      for (var start : List.of(new Object[] {one, "c1"}, new Object[] {two, "c2"})) {
        var file = io.anteroom.objects.ratis.ClusterFile.load((Path) start[0]);
        String id = (String) start[1];
        var self = file.http().get(id);
        var peerOptions =
            io.anteroom.objects.ratis.PeerOptions.builder()
                .electionTimeout(java.time.Duration.ofMillis(300), java.time.Duration.ofMillis(600))
                .join(id.equals("c2")) // a new peer of a running cluster waits to be added
                .build();
        nodes.add(
            CoordinatorPeer.start(
                CoordinatorPeer.Options.builder(
                        file,
                        id,
                        dir.resolve(id),
                        CoordinatorServer.Options.builder(self.getHost(), self.getPort()).build())
                    .peer(peerOptions)
                    .events(line -> {})
                    .build()));
      }
      org.awaitility.Awaitility.await("c1 leads")
          .atMost(java.time.Duration.ofSeconds(30))
          .until(() -> nodes.getFirst().serves(0));
      Outcome alone = run("cluster", "members", "--cluster", one.toString());
      assertThat(alone.exit()).as(alone.err()).isZero();
      assertThat(alone.out())
          .startsWith("shard 0: leader c1 (term ")
          .contains("  c1 raft 127.0.0.1:" + ports[0] + " http http://127.0.0.1:" + ports[1])
          .doesNotContain("c2");

      Outcome added = run("cluster", "add", "c2", "--cluster", two.toString());
      assertThat(added.exit()).as(added.err()).isZero();
      assertThat(added.out())
          .startsWith("anteroom cluster: c2 added\nshard 0: leader c1 (term ")
          .contains("  c2 raft 127.0.0.1:" + ports[2] + " http http://127.0.0.1:" + ports[3]);
      Outcome again = run("cluster", "add", "c2", "--cluster", two.toString());
      assertThat(again.exit()).as("adding a member again changes nothing").isZero();
      // the file of one peer still finds the membership, c2 included
      assertThat(run("cluster", "members", "--cluster", one.toString()).out())
          .contains("  c2 raft 127.0.0.1:" + ports[2]);
      assertThat(nodes.get(1).peer().members(0))
          .extracting(io.anteroom.objects.ratis.ClusterConfig.Peer::id)
          .containsExactly("c1", "c2");
    } finally {
      for (var n : nodes) n.close();
    }
  }

  @Test
  void aBadClusterFileIsRefusedWithEveryProblemNamed(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("cluster.yaml");
    Files.writeString(
        file,
        """
        shards: 0
        peers:
          - { id: c1, raft: "127.0.0.1", http: "http://127.0.0.1:2" }
          - { id: c2, raft: "127.0.0.1:3", http: "ftp://127.0.0.1:4" }
          - { id: c3, raft: "127.0.0.1:5", htp: "http://127.0.0.1:6" }
        """);
    Outcome o =
        run(
            "coordinator",
            "--cluster",
            file.toString(),
            "--id",
            "c1",
            "--data-dir",
            dir.toString());
    assertThat(o.exit()).isEqualTo(2);
    assertThat(o.err())
        .contains("invalid cluster file")
        .contains("shards: expected a whole number of at least 1")
        .contains("peers[0] (c1).raft: \"127.0.0.1\": not HOST:PORT")
        .contains("peers[1] (c2).http: \"ftp://127.0.0.1:4\" must be http(s)://HOST:PORT")
        .contains("peers[2].htp: unknown key")
        .contains("peers[2].http: missing");
    Outcome missing =
        run(
            "coordinator",
            "--cluster",
            dir.resolve("nope.yaml").toString(),
            "--id",
            "c1",
            "--data-dir",
            dir.toString());
    assertThat(missing.exit()).isEqualTo(2);
    assertThat(missing.err()).contains("cannot read the cluster file");
  }

  @Test
  void aClusterPeerOnAnotherHostNeedsTheSecret(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("cluster.yaml");
    Files.writeString(
        file,
        """
        peers:
          - { id: c1, raft: "10.0.0.1:7071", http: "http://10.0.0.1:7070" }
          - { id: c2, raft: "10.0.0.2:7071", http: "http://10.0.0.2:7070" }
          - { id: c3, raft: "10.0.0.3:7071", http: "http://10.0.0.3:7070" }
        """);
    Outcome o =
        run(
            "coordinator",
            "--cluster",
            file.toString(),
            "--id",
            "c1",
            "--data-dir",
            dir.toString());
    assertThat(o.exit()).isEqualTo(2);
    assertThat(o.err())
        .contains("peer c1 serves objects on 10.0.0.1:7070, reachable from other hosts");
  }

  @Test
  void aClusterPeerWhoseRaftPortOtherHostsReachNeedsPeerTrustAndPeerTrustNeedsACertificate(
      @TempDir Path dir) throws Exception {
    Path file = dir.resolve("cluster.yaml");
    Files.writeString(
        file,
        """
        peers:
          - { id: c1, raft: "10.0.0.1:7071", http: "http://10.0.0.1:7070" }
          - { id: c2, raft: "10.0.0.2:7071", http: "http://10.0.0.2:7070" }
          - { id: c3, raft: "10.0.0.3:7071", http: "http://10.0.0.3:7070" }
        """);
    Path secret = dir.resolve("coordinator.secret");
    Files.writeString(
        secret, io.anteroom.objects.http.SharedSecret.generate("k1").encoded() + "\n");
    Outcome o =
        run(
            "coordinator",
            "--cluster",
            file.toString(),
            "--id",
            "c1",
            "--secret-file",
            secret.toString(),
            "--data-dir",
            dir.toString());
    assertThat(o.exit()).isEqualTo(2);
    assertThat(o.err())
        .contains("peer c1 speaks Raft on 10.0.0.1:7071, reachable from other hosts")
        .contains("--peer-trust PEM");

    Outcome noCert =
        run(
            "coordinator",
            "--cluster",
            file.toString(),
            "--id",
            "c1",
            "--secret-file",
            secret.toString(),
            "--peer-trust",
            dir.resolve("peers.pem").toString(),
            "--data-dir",
            dir.toString());
    assertThat(noCert.exit()).isEqualTo(2);
    assertThat(noCert.err()).contains("--peer-trust needs --tls-cert and --tls-key");

    Outcome single = run("coordinator", "--peer-trust", "peers.pem", "--data-dir", dir.toString());
    assertThat(single.exit()).isEqualTo(2);
    assertThat(single.err()).contains("--peer-trust needs --cluster FILE");
  }

  @Test
  @Timeout(60)
  void anAdminTokenShorterThan16CharactersIsRefused(@TempDir Path dir) throws Exception {
    Path config = dir.resolve("a.yaml");
    Files.writeString(config, "admin: { token: change-me }\n");
    Outcome o = run("run", "--config", config.toString(), "--data-dir", dir.toString());
    assertThat(o.exit()).isEqualTo(2);
    assertThat(o.err()).contains("admin.token: is 9 characters; at least 16 are required");

    Files.writeString(dir.resolve("admin-token"), "short\n");
    o =
        run(
            "run",
            "--origin",
            "http://127.0.0.1:1",
            "--listen",
            "127.0.0.1:0",
            "--admin-listen",
            "127.0.0.1:0",
            "--data-dir",
            dir.toString());
    assertThat(o.exit()).isEqualTo(2);
    assertThat(o.err()).contains("the admin token is 5 characters; at least 16 are required");
  }
}
