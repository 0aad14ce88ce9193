package io.anteroom.gateway.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.anteroom.coordinator.CoordinatorServer;
import io.anteroom.door.admission.Coordination;
import io.anteroom.gateway.Browser;
import io.anteroom.gateway.Harness;
import io.anteroom.gateway.TestOrigin;
import io.anteroom.host.ObjectCoordination;
import io.anteroom.objects.ManualScheduler;
import io.anteroom.objects.Runtime;
import io.anteroom.objects.http.HttpObjectServer;
import io.anteroom.objects.storage.SqliteStorageEngine;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Live overrides (the admin API's switches) are kept by the coordinator for the whole deployment: a
 * switch set on one gateway reaches the others and survives restarts of gateways and of the
 * coordinator; gateways whose room configs disagree are reported, not overwritten.
 */
class LiveOverridesTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ROOM = "rooms: [ { id: shop, totalActiveUsers: 20 } ]";

  @TempDir Path dir;

  /** A coordinator process (in-process here) on SQLite in {@code dir/coordinator}. */
  private final class Coordinator implements AutoCloseable {
    final Runtime runtime;
    final HttpObjectServer server;

    Coordinator(ManualScheduler scheduler, int port) {
      runtime =
          Runtime.builder()
              .storage(SqliteStorageEngine.open(dir.resolve("coordinator")))
              .virtualTime(scheduler)
              .build();
      server = CoordinatorServer.serve(runtime, "127.0.0.1", port);
    }

    ObjectCoordination link() {
      return ObjectCoordination.remote(
          URI.create("http://127.0.0.1:" + server.actualPort()), Duration.ofSeconds(5));
    }

    @Override
    public void close() {
      server.close();
      runtime.close();
    }
  }

  private Harness gateway(
      String name, String rooms, ManualScheduler scheduler, Coordination link, String dc)
      throws Exception {
    return new Harness(dir.resolve(name), rooms, new TestOrigin(), scheduler, link, dc);
  }

  private static JsonNode status(Harness h) throws Exception {
    return JSON.readTree(h.admin("GET", "/api/rooms/shop/status", null).body());
  }

  private static boolean suspended(Harness h) throws Exception {
    return status(h).get("suspended").asBoolean();
  }

  /** Both report, the data centers' alarms sync with the global object, both report again. */
  /** What the gateways' timers do: reports, and a follow of the deployment's room documents. */
  private static void syncRound(ManualScheduler scheduler, Harness... gateways) throws Exception {
    for (Harness h : gateways) {
      h.report("shop");
      h.follow();
    }
    scheduler.advance(Duration.ofSeconds(6));
    for (Harness h : gateways) {
      h.report("shop");
    }
  }

  private interface Condition {
    boolean holds() throws Exception;
  }

  /**
   * Sync rounds until {@code condition} holds, at most 10 (a minute of virtual time: the data
   * centers' alarms are jittered, so how many rounds a change needs varies a little).
   */
  private static void syncUntil(ManualScheduler scheduler, Condition condition, Harness... gateways)
      throws Exception {
    for (int round = 0; round < 10; round++) {
      syncRound(scheduler, gateways);
      if (condition.holds()) {
        return;
      }
    }
    throw new AssertionError("not reached within 10 sync rounds");
  }

  @Test
  void aSwitchSetOnOneGatewayTakesEffectOnEveryGatewayAndSurvivesRestarts() throws Exception {
    var scheduler = new ManualScheduler(Harness.START);
    var coordinator = new Coordinator(scheduler, 0);
    int port = coordinator.server.actualPort();
    var linkA = coordinator.link();
    var linkB = coordinator.link();
    try (var a = gateway("a", ROOM, scheduler, linkA, "dublin");
        var b = gateway("b", ROOM, scheduler, linkB, "nairobi")) {
      syncRound(scheduler, a, b);
      assertThat(suspended(a)).isFalse();
      assertThat(suspended(b)).isFalse();

      var put = a.admin("PUT", "/api/rooms/shop/suspended", "true");
      assertThat(put.statusCode()).isEqualTo(200);
      assertThat(JSON.readTree(put.body()).get("suspended").asBoolean()).isTrue();
      assertThat(JSON.readTree(put.body()).get("overridesVersion").asLong()).isEqualTo(1);

      syncUntil(scheduler, () -> suspended(b), a, b);
      assertThat(status(b).get("status").asText()).isEqualTo("suspended");
      assertThat(status(b).get("overridesVersion").asLong()).isEqualTo(1);
      assertThat(b.admin("GET", "/metrics", null).body())
          .contains("anteroom_room_suspended{room=\"shop\"} 1.0")
          .contains("anteroom_room_overrides_version{room=\"shop\"} 1.0");
      assertThat(Browser.reachedOrigin(b.browser().get("/"))).as("suspended: all pass").isTrue();
    }

    // the gateways restart (their config still says suspended: false)
    try (var a = gateway("a2", ROOM, scheduler, linkA, "dublin")) {
      await().atMost(Duration.ofSeconds(20)).until(() -> suspended(a));
    }

    // the coordinator restarts on the same data directory
    coordinator.close();
    linkA.close();
    linkB.close();
    coordinator = new Coordinator(scheduler, port);
    var linkC = coordinator.link();
    try (var c = gateway("c", ROOM, scheduler, linkC, "dublin")) {
      await().atMost(Duration.ofSeconds(20)).until(() -> suspended(c));
      var off = c.admin("PUT", "/api/rooms/shop/suspended", "false");
      assertThat(off.statusCode()).isEqualTo(200);
      assertThat(JSON.readTree(off.body()).get("overridesVersion").asLong()).isEqualTo(2);
      assertThat(suspended(c)).isFalse();
    } finally {
      linkC.close();
      coordinator.close();
    }
  }

  @Test
  void scheduledEventsSetOnOneGatewayReachEveryGatewayAndSurviveItsRestart() throws Exception {
    var scheduler = new ManualScheduler(Harness.START);
    var coordinator = new Coordinator(scheduler, 0);
    var linkA = coordinator.link();
    var linkB = coordinator.link();
    String events =
        """
        [ { "name": "launch", "prequeueStartTime": "2026-11-22T10:01:00Z",
            "eventStartTime": "2026-11-22T10:30:00Z", "eventEndTime": "2026-11-22T11:00:00Z",
            "totalActiveUsers": 5 } ]""";
    try (var a = gateway("a", ROOM, scheduler, linkA, "dublin");
        var b = gateway("b", ROOM, scheduler, linkB, "nairobi")) {
      syncRound(scheduler, a, b);
      var put = a.admin("PUT", "/api/rooms/shop/events", events);
      assertThat(put.statusCode()).isEqualTo(200);
      assertThat(JSON.readTree(put.body()).get(0).get("name").asText()).isEqualTo("launch");

      syncUntil(scheduler, () -> eventNames(b).equals("launch"), a, b);
      assertThat(status(b).get("configConflict").isNull())
          .as("events set live are not a config conflict")
          .isTrue();
      // in the pre-queue (from 10:01) nobody new gets in on the other gateway either
      scheduler.advance(Duration.ofMinutes(1));
      var prequeued = b.browser().get("/");
      assertThat(Browser.reachedOrigin(prequeued)).isFalse();
      assertThat(prequeued.body()).contains("launch opens at 10:30:00 UTC");
    }
    // a gateway restarted with the file's (empty) events gets them back from the coordinator
    try (var a = gateway("a2", ROOM, scheduler, linkA, "dublin")) {
      await().atMost(Duration.ofSeconds(20)).until(() -> eventNames(a).equals("launch"));
    } finally {
      linkA.close();
      linkB.close();
      coordinator.close();
    }
  }

  @Test
  void aRoomChangedOnOneGatewayChangesOnEveryGatewayAndSurvivesItsRestart() throws Exception {
    var scheduler = new ManualScheduler(Harness.START);
    var coordinator = new Coordinator(scheduler, 0);
    var linkA = coordinator.link();
    var linkB = coordinator.link();
    try (var a = gateway("a", ROOM, scheduler, linkA, "dublin");
        var b = gateway("b", ROOM, scheduler, linkB, "nairobi")) {
      syncRound(scheduler, a, b);
      long generation =
          JSON.readTree(a.admin("GET", "/api/rooms/shop", null).body()).get("generation").asLong();
      var put = a.admin("PUT", "/api/rooms/shop", "{\"id\": \"shop\", \"totalActiveUsers\": 7}");
      assertThat(put.statusCode()).isEqualTo(200);
      assertThat(JSON.readTree(put.body()).get("totalActiveUsers").asInt()).isEqualTo(7);
      assertThat(JSON.readTree(put.body()).get("generation").asLong())
          .as("the generation in force is kept when the body names none")
          .isEqualTo(generation);

      syncUntil(scheduler, () -> status(b).get("totalActiveUsers").asInt() == 7, a, b);
      // both report the settings in force: once both have the change, they agree again
      syncUntil(scheduler, () -> status(a).get("configConflict").isNull(), a, b);
      assertThat(status(b).get("configFingerprint").asText())
          .isEqualTo(status(a).get("configFingerprint").asText());
      assertThat(
              a.admin("PUT", "/api/rooms/shop", "{\"id\": \"shop\", \"totalActiveUsers\": 0}")
                  .statusCode())
          .as("checked like the file")
          .isEqualTo(400);
    }
    // a gateway restarted with the file's settings (T 20) gets the change back
    try (var a = gateway("a2", ROOM, scheduler, linkA, "dublin")) {
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> status(a).get("totalActiveUsers").asInt() == 7);
    } finally {
      linkA.close();
      linkB.close();
      coordinator.close();
    }
  }

  private static String eventNames(Harness h) throws Exception {
    var names = new StringBuilder();
    for (JsonNode e : JSON.readTree(h.admin("GET", "/api/rooms/shop/events", null).body())) {
      names.append(names.isEmpty() ? "" : ",").append(e.get("name").asText());
    }
    return names.toString();
  }

  @Test
  void whenTheCoordinatorCannotConfirmTheSwitchTheAnswerIs503AndNothingChanges() throws Exception {
    var scheduler = new ManualScheduler(Harness.START);
    var coordinator = new Coordinator(scheduler, 0);
    var link = coordinator.link();
    try (var a = gateway("a", ROOM, scheduler, link, "dublin")) {
      a.report("shop");
      coordinator.close();
      var put = a.admin("PUT", "/api/rooms/shop/queueAll", "true");
      assertThat(put.statusCode()).isEqualTo(503);
      assertThat(JSON.readTree(put.body()).get("error").asText())
          .contains("coordinator did not confirm")
          .contains("not applied");
      assertThat(status(a).get("queueAll").asBoolean()).isFalse();
      assertThat(a.admin("PUT", "/api/rooms/shop/queueAll", "maybe").statusCode())
          .as("bad input is still 400")
          .isEqualTo(400);
    } finally {
      link.close();
    }
  }

  @Test
  void gatewaysWhoseRoomConfigsDisagreeAreReportedInStatusAndMetricsNotOverwritten()
      throws Exception {
    var scheduler = new ManualScheduler(Harness.START);
    var coordinator = new Coordinator(scheduler, 0);
    var linkA = coordinator.link();
    var linkB = coordinator.link();
    // b does not follow the deployment's room documents (as a gateway of an older version during
    // a rolling upgrade, or one where the document cannot apply): its file's settings stay
    try (var a = gateway("a", ROOM, scheduler, linkA, "dublin");
        var b =
            gateway(
                "b",
                "rooms: [ { id: shop, totalActiveUsers: 500 } ]",
                scheduler,
                Harness.withoutRoomDocuments(linkB),
                "nairobi")) {
      a.report("shop"); // a is heard first: its config is the one the coordinator goes by
      scheduler.advance(Duration.ofSeconds(6));
      syncUntil(
          scheduler,
          () ->
              status(a).get("configConflict").isObject()
                  && status(b).get("configConflict").isObject(),
          a,
          b);
      for (Harness h : new Harness[] {a, b}) {
        JsonNode conflict = status(h).get("configConflict");
        assertThat(conflict.isObject()).as("conflict reported").isTrue();
        assertThat(conflict.get("authoritative").get("gateway").asText()).isEqualTo("gw-dublin");
        assertThat(conflict.get("disagreeing")).hasSize(1);
        assertThat(conflict.get("disagreeing").get(0).get("gateway").asText())
            .isEqualTo("gw-nairobi");
        assertThat(conflict.get("disagreeing").get(0).get("fingerprint").asText())
            .isEqualTo(status(b).get("configFingerprint").asText())
            .isNotEqualTo(status(a).get("configFingerprint").asText());
        assertThat(h.admin("GET", "/metrics", null).body())
            .contains("anteroom_room_config_conflict{room=\"shop\"} 1.0");
      }
      assertThat(status(b).get("totalActiveUsers").asInt())
          .as("each gateway keeps its own config: nothing is overwritten")
          .isEqualTo(500);
      assertThat(status(a).get("totalActiveUsers").asInt()).isEqualTo(20);

      // b is given the same config: the conflict ends
      b.admin(
          "PUT",
          "/api/rooms/shop",
          JSON.writeValueAsString(
              ((com.fasterxml.jackson.databind.node.ObjectNode)
                  JSON.readTree(a.admin("GET", "/api/rooms/shop", null).body()))));
      assertThat(status(b).get("configFingerprint").asText())
          .isEqualTo(status(a).get("configFingerprint").asText());
      syncUntil(scheduler, () -> status(a).get("configConflict").isNull(), a, b);
      assertThat(a.admin("GET", "/metrics", null).body())
          .contains("anteroom_room_config_conflict{room=\"shop\"} 0.0");
    } finally {
      linkA.close();
      linkB.close();
      coordinator.close();
    }
  }
}
