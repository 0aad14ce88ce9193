package io.anteroom.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.anteroom.objects.ManualScheduler;
import io.anteroom.objects.Runtime;
import io.anteroom.room.EventWindow;
import io.anteroom.room.RoomConfig;
import io.anteroom.room.RoomWorker;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Webhooks end to end on the coordinating objects (SQLite, virtual time): a receiver on this host
 * (a JDK HTTP server on 127.0.0.1) sees every state change of a room exactly once after dropping
 * repeated ids, across a restart of the coordinator, with valid signatures, and after failing.
 */
class WebhookDeliveryTest {

  static final Instant START = Instant.parse("2026-01-01T10:00:00Z");
  static final byte[] SECRET = "k1-a-webhook-secret-of-32-bytes!".getBytes(StandardCharsets.UTF_8);
  static final EventWindow LAUNCH =
      new EventWindow(
          "launch", START.plusSeconds(60), START.plusSeconds(120), START.plusSeconds(180), false);
  static final RoomConfig CONFIG =
      RoomConfig.builder("shop")
          .totalActiveUsers(100)
          .newUsersPerMinute(100)
          .sessionDurationMinutes(10)
          .event(LAUNCH)
          .build();
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One request the receiver got, and what it answered. */
  record Received(String id, String type, String subject, boolean signed, int answered) {}

  private HttpServer receiver;
  private final List<Received> received = new CopyOnWriteArrayList<>();
  private volatile boolean failing;
  private String url;

  @BeforeEach
  void startReceiver() throws IOException {
    receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext(
        "/hook",
        exchange -> {
          String body =
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          JsonNode json = JSON.readTree(body);
          boolean signed =
              WebhookSignature.verify(
                  SECRET,
                  body,
                  exchange.getRequestHeaders().getFirst(WebhookSignature.HEADER),
                  Instant.now().getEpochSecond(),
                  Long.MAX_VALUE / 2); // virtual time: the signing clock is the runtime's
          int status = failing ? 500 : 204;
          received.add(
              new Received(
                  json.path("id").asText(),
                  json.path("type").asText(),
                  json.path("subject").isNull() ? null : json.path("subject").asText(),
                  signed
                      && json.path("id")
                          .asText()
                          .equals(
                              exchange.getRequestHeaders().getFirst(WebhookSignature.ID_HEADER)),
                  status));
          exchange.sendResponseHeaders(status, -1);
          exchange.close();
        });
    receiver.start();
    url = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";
  }

  @AfterEach
  void stopReceiver() {
    receiver.stop(0);
  }

  private RoomObjects register(Runtime runtime) {
    return RoomObjects.register(
        runtime,
        io.anteroom.backpressure.ThresholdMonitor.builder().clock(runtime.clock()).build(),
        io.anteroom.backpressure.ThresholdMonitor.builder().clock(runtime.clock()).build(),
        new WebhookTargets(List.of(url), SECRET));
  }

  /** The gateways of one data center: one worker reporting its counts. */
  static final class Gateway {
    final String dc;
    final RoomWorker worker;
    boolean live = true;

    Gateway(String dc) {
      this.dc = dc;
      this.worker = new RoomWorker(CONFIG, dc, "w-" + dc, START);
    }
  }

  /** Virtual time passes a second at a time, live gateways reporting every second, until done. */
  private static boolean until(
      ManualScheduler time,
      RoomObjects objects,
      List<Gateway> gateways,
      int seconds,
      BooleanSupplier done) {
    for (int i = 0; i < seconds; i++) {
      if (done.getAsBoolean()) {
        return true;
      }
      Instant now = time.clock().instant();
      for (Gateway g : gateways) {
        if (g.live) {
          objects.dataCenter("shop", g.dc).report(CONFIG, g.worker.report(now));
        }
      }
      time.advance(Duration.ofSeconds(1));
    }
    return done.getAsBoolean();
  }

  private List<Received> delivered() {
    return received.stream().filter(r -> r.answered() / 100 == 2).toList();
  }

  private boolean deliveredType(String type) {
    return delivered().stream().anyMatch(r -> r.type().equals(type));
  }

  @Test
  void aReceiverSeesEveryStateChangeExactlyOnceByIdAcrossACoordinatorRestartSignedAndRetried(
      @TempDir Path dir) {
    Gateway dublin = new Gateway("dublin");
    Gateway nairobi = new Gateway("nairobi");
    List<Gateway> gateways = List.of(dublin, nairobi);
    failing = true;
    Instant stoppedAt;
    ManualScheduler time = new ManualScheduler(START);
    try (Runtime runtime = Runtime.builder().dataDir(dir).virtualTime(time).build()) {
      RoomObjects objects = register(runtime);
      for (int i = 0; i < 3; i++) {
        dublin.worker.holdInQueue(null, START); // three users wait
      }
      assertThat(
              until(
                  time,
                  objects,
                  gateways,
                  30,
                  () ->
                      received.stream().filter(r -> r.type().equals("queueing.began")).count()
                          >= 2))
          .as("queueing.began tried, failed and tried again with back-off")
          .isTrue();
      stoppedAt = time.clock().instant();
    }
    assertThat(delivered()).as("nothing accepted before the restart").isEmpty();

    failing = false;
    ManualScheduler after = new ManualScheduler(stoppedAt.plusSeconds(5));
    try (Runtime restarted = Runtime.builder().dataDir(dir).virtualTime(after).build()) {
      RoomObjects objects = register(restarted);
      assertThat(until(after, objects, gateways, 30, () -> deliveredType("queueing.began")))
          .as("the delivery owed before the restart is made after it")
          .isTrue();
      assertThat(
              until(
                  after,
                  objects,
                  gateways,
                  300,
                  () -> deliveredType("event.end") && deliveredType("queueing.ended")))
          .as("the event's phases and the end of queueing")
          .isTrue();
      objects
          .dataCenter("shop", "dublin")
          .overrideAsync("shop", Map.of("newUsersPerMinute", "50"))
          .join();
      assertThat(until(after, objects, gateways, 30, () -> deliveredType("config.changed")))
          .isTrue();
      dublin.live = false;
      assertThat(until(after, objects, gateways, 120, () -> deliveredType("degraded")))
          .as("dublin silent for 30 s")
          .isTrue();
      dublin.live = true;
      assertThat(until(after, objects, gateways, 60, () -> deliveredType("recovered"))).isTrue();
    }

    List<Received> ok = delivered();
    assertThat(received).allMatch(Received::signed, "every body signed with the secret");
    Map<String, Set<String>> idsByType =
        ok.stream()
            .collect(
                Collectors.groupingBy(
                    Received::type,
                    TreeMap::new,
                    Collectors.mapping(Received::id, Collectors.toCollection(TreeSet::new))));
    assertThat(idsByType)
        .as("every change once after dropping repeated ids")
        .containsOnlyKeys(
            "queueing.began",
            "event.prequeue",
            "event.start",
            "event.end",
            "queueing.ended",
            "config.changed",
            "degraded",
            "recovered");
    idsByType.forEach((type, ids) -> assertThat(ids).as(type).hasSize(1));
    assertThat(
            ok.stream()
                .filter(r -> r.type().equals("degraded"))
                .findFirst()
                .orElseThrow()
                .subject())
        .isEqualTo("dublin");
    List<String> distinct = new ArrayList<>(new TreeSet<>(ok.stream().map(Received::id).toList()));
    assertThat(distinct).hasSize(8);
  }
}
