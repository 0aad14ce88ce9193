package io.anteroom.gateway.admission;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.anteroom.door.admission.OriginProtection;
import io.anteroom.door.config.ConfigLoader;
import io.anteroom.door.config.GatewayConfig;
import io.anteroom.gateway.Harness;
import io.anteroom.testkit.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OriginProtectionTest {

  @TempDir Path dataDir;

  private static GatewayConfig.RoomSettings room(String protection) {
    return ConfigLoader.parse(
            "rooms: [ { id: shop, newUsersPerMinute: 600, originProtection: " + protection + " } ]",
            "t")
        .rooms()
        .get(0);
  }

  @Test
  void aSlowOriginLowersTheEffectiveRateAndARecoveredOneRaisesItBackToTheLimit() {
    var clock = new ManualClock(Harness.START);
    var p = new OriginProtection(room("{ enabled: true, maxLatencyMillis: 100 }"), clock);
    assertThat(p.effectiveNewUsersPerMinute()).isEqualTo(600);
    for (int i = 0; i < 20; i++) {
      p.record(200, Duration.ofMillis(400).toNanos());
    }
    int first = p.tick();
    assertThat(first).isLessThan(600);
    clock.advance(Duration.ofSeconds(5));
    for (int i = 0; i < 20; i++) {
      p.record(200, Duration.ofMillis(400).toNanos());
    }
    assertThat(p.tick()).as("multiplicative decrease again").isLessThan(first);

    int low = p.effectiveNewUsersPerMinute();
    int last = low;
    for (int step = 0; step < 60; step++) { // 5 minutes of a healthy origin
      clock.advance(Duration.ofSeconds(5));
      for (int i = 0; i < 50; i++) {
        p.record(200, Duration.ofMillis(5).toNanos());
      }
      int now = p.tick();
      assertThat(now).isGreaterThanOrEqualTo(last).isLessThanOrEqualTo(600);
      last = now;
    }
    assertThat(last).as("additive increase back to, never above, the limit").isEqualTo(600);
  }

  @Test
  void fiveHundredsAboveTheErrorRatioCountAsOverload() {
    var clock = new ManualClock(Harness.START);
    var p =
        new OriginProtection(
            room("{ enabled: true, maxErrorRatio: 0.1," + " minNewUsersPerMinute: 60 }"), clock);
    for (int round = 0; round < 10; round++) {
      for (int i = 0; i < 10; i++) {
        p.record(i < 5 ? 503 : 200, 1_000_000);
      }
      p.tick();
      clock.advance(Duration.ofSeconds(5));
    }
    assertThat(p.effectiveNewUsersPerMinute()).as("never below the floor").isEqualTo(60);
  }

  @Test
  void theEffectiveLimitIsShownInStatus() throws Exception {
    try (var h =
        new Harness(
            dataDir,
            """
        rooms: [ { id: shop, newUsersPerMinute: 100,
                   originProtection: { enabled: true, maxErrorRatio: 0.01 } } ]""")) {
      for (int i = 0; i < 5; i++) {
        h.browser().get("/hang-not"); // fine answers
      }
      var errorsOrigin = h.room("shop").protection();
      for (int i = 0; i < 10; i++) {
        errorsOrigin.record(502, 1_000);
      }
      h.protect();
      var st = new ObjectMapper().readTree(h.admin("GET", "/api/rooms/shop/status", null).body());
      assertThat(st.get("newUsersPerMinute").asInt()).isEqualTo(100);
      assertThat(st.get("effectiveNewUsersPerMinute").asInt()).isLessThan(100);
      assertThat(
              h.client
                  .send(
                      java.net.http.HttpRequest.newBuilder(
                              java.net.URI.create(h.adminUrl() + "/metrics"))
                          .build(),
                      java.net.http.HttpResponse.BodyHandlers.ofString())
                  .body())
          .contains("anteroom_room_effective_new_users_per_minute{room=\"shop\"}");
    }
  }
}
