package io.anteroom.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.objects.ManualScheduler;
import io.anteroom.objects.Runtime;
import io.anteroom.objects.storage.InMemoryStorageEngine;
import io.anteroom.objects.storage.SqliteStorageEngine;
import io.anteroom.room.ConfigAgreement.Fingerprint;
import io.anteroom.room.RoomConfig;
import io.anteroom.room.RoomOverrides;
import io.anteroom.room.RoomWorker;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The room's live overrides and config agreement in the coordinating objects, in virtual time. */
class OverridesAndAgreementTest {
  static final Instant START = Instant.parse("2026-01-01T10:00:00Z");

  @TempDir Path dir;

  private static RoomConfig config(int totalActiveUsers) {
    return RoomConfig.builder("shop")
        .totalActiveUsers(totalActiveUsers)
        .newUsersPerMinute(totalActiveUsers)
        .sessionDurationMinutes(10)
        .build();
  }

  private static Runtime sqlite(Path dir, ManualScheduler time) {
    return Runtime.builder().storage(SqliteStorageEngine.open(dir)).virtualTime(time).build();
  }

  @Test
  void overridesAreVersionedDurableAndComeBackAfterARestart() {
    ManualScheduler time = new ManualScheduler(START);
    try (Runtime runtime = sqlite(dir, time)) {
      RoomObjects objects = RoomObjects.register(runtime);
      var dc = objects.dataCenter("shop", "dublin");
      assertThat(dc.overridesAsync("shop").join()).isEqualTo(RoomOverrides.NONE);
      RoomOverrides one = dc.overrideAsync("shop", Map.of("suspended", "true")).join();
      assertThat(one.version()).isEqualTo(1);
      assertThat(dc.overrideAsync("shop", Map.of("suspended", "true")).join().version())
          .as("the same write again changes nothing")
          .isEqualTo(1);
      assertThat(objects.dataCenter("shop", "nairobi").overridesAsync("shop").join())
          .as("every data center reads the room's one set")
          .isEqualTo(one);
    }
    try (Runtime runtime = sqlite(dir, time)) {
      RoomObjects objects = RoomObjects.register(runtime);
      RoomOverrides back = objects.global("shop").overrides();
      assertThat(back.version()).isEqualTo(1);
      assertThat(back.value("suspended")).isEqualTo("true");
    }
  }

  @Test
  void theOverridesVersionAndAConfigConflictReachEveryReportingGateway() {
    ManualScheduler time = new ManualScheduler(START);
    try (Runtime runtime =
        Runtime.builder().storage(new InMemoryStorageEngine()).virtualTime(time).build()) {
      RoomObjects objects = RoomObjects.register(runtime);
      RoomConfig small = config(20);
      RoomConfig big = config(500);
      var a = new RoomWorker(small, "dublin", "shop/gw-a/1", START);
      var b = new RoomWorker(big, "dublin", "shop/gw-b/1", START);
      var fa = new Fingerprint("gw-a", "dublin", "aaaa", 0);
      var fb = new Fingerprint("gw-b", "dublin", "bbbb", 0);
      var dc = objects.dataCenter("shop", "dublin");

      var first = dc.syncAsync(small, a.report(START), fa).join();
      assertThat(first.overridesVersion()).as("not heard from the global object yet").isEqualTo(-1);
      time.advance(Duration.ofSeconds(6)); // the alarm: the global object hears gw-a first
      objects.global("shop").override(Map.of("queueAll", "true"));

      var last =
          new java.util.concurrent.atomic.AtomicReference<DataCenterCoordinator.StateReply>();
      // gw-b keeps reporting while the data center's alarms pass it all on
      time.advanceUntil(
          Duration.ofSeconds(6),
          10,
          () -> {
            var r = dc.syncAsync(big, b.report(time.clock().instant()), fb).join();
            last.set(r);
            return r.overridesVersion() == 1 && r.agreement().conflict();
          });
      var reply = last.get();
      Instant now = time.clock().instant();
      // the agreeing gateway reports again, then the disagreeing one: its limits are not adopted
      dc.syncAsync(small, a.report(now), fa).join();
      var after = dc.syncAsync(big, b.report(now), fb).join();

      assertThat(reply.overridesVersion()).isEqualTo(1);
      assertThat(reply.agreement().authoritative()).isEqualTo(fa);
      assertThat(reply.agreement().disagreeing()).containsExactly(fb);
      assertThat(after.state().freeSlots())
          .as("the disagreeing gateway's limits are not adopted: T stays 20")
          .isLessThanOrEqualTo(20);
    }
  }
}
