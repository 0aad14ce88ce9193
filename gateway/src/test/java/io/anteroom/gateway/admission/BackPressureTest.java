package io.anteroom.gateway.admission;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.anteroom.door.admission.CoordinatedRoomGate;
import io.anteroom.door.config.ConfigLoader;
import io.anteroom.gateway.Browser;
import io.anteroom.gateway.Harness;
import io.anteroom.objects.ManualScheduler;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BackPressureTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dataDir;

  @Test
  void aFloodOfQueueStatusRequestsRaisesThrottleAndLengthensTheRefreshInterval() throws Exception {
    try (var h =
        new Harness(
            dataDir,
            """
        rooms: [ { id: shop, totalActiveUsers: 1, queueRefreshSeconds: 10,
                   queueStatusMaxQps: 1, maxQueueRefreshSeconds: 300 } ]""")) {
      h.browser().get("/");
      Browser waiting = h.browser();
      var calm = JSON.readTree(waiting.get("/", "Accept", "application/json").body());
      assertThat(calm.get("throttle").asBoolean()).isFalse();
      assertThat(calm.get("refreshIntervalSeconds").asInt()).isBetween(10, 11);

      HttpResponse<String> last = null;
      for (int i = 0; i < 40; i++) { // 40 in one 10 s window: 4/s against a budget of 1/s
        waiting.get("/", "Accept", "application/json");
      }
      h.scheduler.advance(Duration.ofMillis(200)); // past the 100 ms a threshold decision is reused
      waiting.get("/", "Accept", "application/json"); // decides throttle; the pace halves after it
      last = waiting.get("/", "Accept", "application/json");
      var busy = JSON.readTree(last.body());
      assertThat(busy.get("throttle").asBoolean()).isTrue();
      assertThat(last.headers().firstValue("anteroom-throttle")).contains("1");
      assertThat(busy.get("refreshIntervalSeconds").asInt()).isGreaterThanOrEqualTo(18);
      assertThat(h.browser().get("/").headers().firstValue("anteroom-throttle"))
          .as("the HTML page carries the header too")
          .contains("1");
    }
  }

  @Test
  void ticksSendReportsOnlyWhenDue() throws Exception {
    var scheduler = new ManualScheduler(Harness.START);
    var clock = scheduler.clock();
    var coordination =
        Harness.objects(scheduler, io.anteroom.coordinator.RoomObjects.REPORT_MAX_QPS);
    var room =
        ConfigLoader.parse("rooms: [ { id: shop, totalActiveUsers: 1 } ]", "t").rooms().get(0);
    var gate = new CoordinatedRoomGate(room, "dc1", "p", coordination, clock);
    try {
      gate.decide(null, clock.millis()).toCompletableFuture().get(5, TimeUnit.SECONDS);
      gate.decide(null, clock.millis()).toCompletableFuture().get(5, TimeUnit.SECONDS);
      gate.tick(clock.millis()); // first tick: due at once
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> gate.status(clock.millis()).estimatedQueuedUsers() == 1);
      gate.decide(null, clock.millis()).toCompletableFuture().get(5, TimeUnit.SECONDS);
      gate.tick(clock.millis()); // not due yet: nothing is sent
      scheduler.advance(Duration.ofSeconds(1));
      gate.tick(clock.millis());
      assertThat(gate.status(clock.millis()).estimatedQueuedUsers()).isEqualTo(1);
      scheduler.advance(Duration.ofSeconds(6));
      gate.tick(clock.millis());
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> gate.status(clock.millis()).estimatedQueuedUsers() == 2);
    } finally {
      coordination.close();
    }
  }

  @Test
  void reportersBackOffWhenTheDataCenterThrottles() throws Exception {
    var scheduler = new ManualScheduler(Harness.START);
    var clock = scheduler.clock();
    var coordination = Harness.objects(scheduler, 0.05); // one report per 20 s at most
    var room = ConfigLoader.parse("rooms: [ { id: shop } ]", "t").rooms().get(0);
    var gate = new CoordinatedRoomGate(room, "dc1", "p", coordination, clock);
    gate.decide(null, clock.millis()).toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertThat(gate.reportInterval()).isEqualTo(Duration.ofSeconds(5));
    try {
      for (int i = 0; i < 3; i++) {
        scheduler.advance(Duration.ofSeconds(5));
        gate.reportNow().toCompletableFuture().get(5, TimeUnit.SECONDS);
      }
      assertThat(gate.reportInterval())
          .isGreaterThan(Duration.ofSeconds(5))
          .isLessThanOrEqualTo(CoordinatedRoomGate.MAX_REPORT_INTERVAL);
    } finally {
      coordination.close();
    }
  }
}
