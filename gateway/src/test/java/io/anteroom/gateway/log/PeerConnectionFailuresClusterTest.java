package io.anteroom.gateway.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.anteroom.coordinator.CoordinatorServer;
import io.anteroom.coordinator.server.CoordinatorPeer;
import io.anteroom.objects.http.SharedSecret;
import io.anteroom.objects.ratis.ClusterFile;
import io.anteroom.objects.ratis.ClusterNode;
import io.anteroom.objects.ratis.PeerOptions;
import io.anteroom.testkit.LocalPeers;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * {@link PeerConnectionFailures} on what real Ratis peers log: a three-peer cluster whose follower
 * stops and comes back. The leader's appender fails several times a second while the follower is
 * down; the log gets one line when the link starts failing and one once it has stopped, and no
 * Ratis warning about the refused connections (nor any stack trace) passes.
 */
@Tag("slow") // a real cluster, and ten quiet seconds before the recovery line
class PeerConnectionFailuresClusterTest {
  private static final SharedSecret SECRET = SharedSecret.generate("k1");

  @TempDir Path dir;

  private final LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
  private final ListAppender<ILoggingEvent> out = new ListAppender<>();
  private final PeerConnectionFailures filter = new PeerConnectionFailures();
  private final Map<String, ClusterNode> nodes = new ConcurrentHashMap<>();
  private ClusterFile file;
  private PeerOptions options;

  @BeforeEach
  void install() {
    out.setContext(context);
    out.start();
    context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).addAppender(out);
    filter.setContext(context);
    filter.start();
    context.addTurboFilter(filter);
  }

  @AfterEach
  void remove() {
    nodes.values().forEach(ClusterNode::close);
    context.getTurboFilterList().remove(filter);
    filter.stop();
    context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).detachAppender(out);
  }

  @Test
  void aStoppedFollowerGivesOneLineWhenTheLinkFailsAndOneWhenItIsBackWithoutRatisWarnings()
      throws Exception {
    ClusterNode leader = startCluster();
    String follower =
        nodes.keySet().stream().filter(id -> !id.equals(leader.peer().id())).findFirst().get();
    String link = "peer " + leader.peer().id() + " -> peer " + follower;

    nodes.remove(follower).close();
    await("the failing link summarised")
        .atMost(Duration.ofSeconds(60))
        .until(() -> summaries().stream().anyMatch(l -> l.startsWith("WARN " + link + ":")));

    start(follower);
    await("the link's recovery summarised")
        .atMost(Duration.ofSeconds(90))
        .until(
            () ->
                summaries().stream()
                    .anyMatch(l -> l.startsWith("INFO " + link + ": no connection failure")));

    List<String> lines = summaries();
    assertThat(lines.stream().filter(l -> l.contains(link)))
        .as("one line when it fails, one when it stopped (no minute passed)")
        .hasSize(2)
        .first()
        .asString()
        .contains("connection failed");
    List<ILoggingEvent> passed = List.copyOf(out.list);
    assertThat(passed)
        .as("no Ratis warning about a refused or unavailable peer passes")
        .noneMatch(
            e ->
                e.getLoggerName().startsWith("org.apache.ratis")
                    && e.getLevel().isGreaterOrEqual(Level.WARN)
                    && (e.getFormattedMessage().contains("UNAVAILABLE")
                        || e.getFormattedMessage().contains("Connection refused")
                        || e.getFormattedMessage().contains("Follower failed")));
    assertThat(passed)
        .as("no stack trace of a connection failure")
        .noneMatch(
            e ->
                e.getThrowableProxy() != null
                    && (e.getThrowableProxy().getMessage() + "")
                        .matches("(?s).*(UNAVAILABLE|Connection refused).*"));
  }

  /** Three peers, started; returns the first leader of shard 0. */
  private ClusterNode startCluster() {
    String yaml = LocalPeers.yaml("c", 1, 3);
    file = ClusterFile.parse(yaml, "test");
    options =
        PeerOptions.builder()
            .localStorage(PeerOptions.LocalStorage.MEMORY)
            .electionTimeout(Duration.ofMillis(300), Duration.ofMillis(600))
            .commitTimeout(Duration.ofSeconds(15))
            .build();
    for (var peer : file.config().peers()) start(peer.id());
    ClusterNode leader =
        await("a leader")
            .atMost(Duration.ofSeconds(60))
            .until(
                () -> nodes.values().stream().filter(n -> n.serves(0)).findFirst().orElse(null),
                n -> n != null);
    return leader;
  }

  @Test
  void aStoppedLeaderLeavesNoRatisWarningOfItsAppendersStopping() {
    ClusterNode leader = startCluster();
    String stopped = leader.peer().id();

    nodes.remove(stopped).close();
    await("another leader")
        .atMost(Duration.ofSeconds(60))
        .until(() -> nodes.values().stream().anyMatch(n -> n.serves(0)));

    assertThat(List.copyOf(out.list))
        .as("no line of the stopped leader's appenders, no stack trace of it")
        .noneMatch(
            e ->
                e.getLoggerName().startsWith("org.apache.ratis")
                    && e.getFormattedMessage().startsWith(stopped + "@group-")
                    && e.getFormattedMessage().contains("-GrpcLogAppender"));
  }

  private List<String> summaries() {
    List<String> lines = new ArrayList<>();
    for (ILoggingEvent e : List.copyOf(out.list)) {
      if (e.getLoggerName().equals(PeerConnectionFailures.LOGGER)) {
        lines.add(e.getLevel() + " " + e.getFormattedMessage());
      }
    }
    return lines;
  }

  private void start(String id) {
    URI uri = file.http().get(id);
    nodes.put(
        id,
        CoordinatorPeer.start(
            CoordinatorPeer.Options.builder(
                    file,
                    id,
                    dir.resolve(id),
                    CoordinatorServer.Options.builder(uri.getHost(), uri.getPort())
                        .secrets(List.of(SECRET))
                        .build())
                .peer(options)
                .events(line -> {})
                .build()));
  }
}
