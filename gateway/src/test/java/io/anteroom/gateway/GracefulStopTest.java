package io.anteroom.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** A graceful stop says when its drain begins and what it drained when it ends. */
class GracefulStopTest {

  @TempDir Path dataDir;

  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
  private final Logger logger = (Logger) LoggerFactory.getLogger(Gateway.class);

  @BeforeEach
  void capture() {
    logged.start();
    logger.addAppender(logged);
  }

  @AfterEach
  void release() {
    logger.detachAppender(logged);
  }

  private List<String> lines() {
    return logged.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
  }

  @Test
  void aStopLogsOneLineWhenTheDrainBeginsAndOneWithTheRequestsItDrained() throws Exception {
    var h =
        new Harness(
            dataDir,
            """
            drainSeconds: 60
            originTimeoutSeconds: 120
            rooms: [ { id: shop, queueingMethod: passthrough } ]
            """);
    CompletableFuture<HttpResponse<String>> first;
    CompletableFuture<HttpResponse<String>> second;
    try {
      first = get(h, "/held");
      second = get(h, "/held");
      await().atMost(Duration.ofSeconds(30)).until(() -> h.origin.held.size() == 2);
    } catch (Exception | AssertionError e) {
      h.close();
      throw e;
    }
    var stop = CompletableFuture.runAsync(h.gateway::close);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> lines().stream().anyMatch(l -> l.startsWith("stopping:")));
    assertThat(stop).as("the drain waits for the requests in flight").isNotDone();
    h.origin.releaseHeld();
    stop.get();
    h.close(); // a second close does nothing

    assertThat(first.get().body()).isEqualTo("released");
    assertThat(second.get().body()).isEqualTo("released");
    List<String> lines =
        lines().stream()
            .filter(l -> l.startsWith("stopping:") || l.startsWith("drained:"))
            .toList();
    assertThat(lines).hasSize(2);
    assertThat(lines.getFirst())
        .isEqualTo(
            "stopping: no new connections; draining 2 requests in flight for up to 60 s"
                + " (drainSeconds)");
    assertThat(lines.get(1))
        .startsWith("drained: 2 requests answered during the drain, 0 cut off, in ");
  }

  @Test
  void aRequestStillUnansweredWhenDrainSecondsRunOutIsCountedCutOff() throws Exception {
    var h =
        new Harness(
            dataDir,
            """
            drainSeconds: 1
            originTimeoutSeconds: 120
            rooms: [ { id: shop, queueingMethod: passthrough } ]
            """);
    CompletableFuture<HttpResponse<String>> held;
    try {
      held = get(h, "/held");
      await().atMost(Duration.ofSeconds(30)).until(() -> h.origin.held.size() == 1);
    } finally {
      h.close(); // the origin never answers within drainSeconds
    }
    assertThat(held).failsWithin(Duration.ofSeconds(30));
    assertThat(lines())
        .filteredOn(l -> l.startsWith("drained:"))
        .singleElement()
        .asString()
        .startsWith("drained: 0 requests answered during the drain, 1 cut off, in ");
  }

  private static CompletableFuture<HttpResponse<String>> get(Harness h, String path) {
    return h.client.sendAsync(
        HttpRequest.newBuilder(URI.create(h.url() + path)).timeout(Duration.ofSeconds(60)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
