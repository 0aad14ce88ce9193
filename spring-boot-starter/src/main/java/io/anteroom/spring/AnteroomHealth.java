package io.anteroom.spring;

import io.anteroom.door.RoomRuntime;
import io.anteroom.door.admission.RoomGate.RoomStatus;
import io.anteroom.host.RoomHost;
import java.util.LinkedHashMap;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The rooms' health: {@code UP} with each room's state (queueing or not, users queued and active);
 * {@code DEGRADED} while a room decides without its coordination (its {@code failMode} applies).
 */
final class AnteroomHealth implements HealthIndicator {

  /** A room decides from its last known state: the site stays up, the room's limits are looser. */
  static final Status DEGRADED = new Status("DEGRADED", "a room decides without its coordination");

  private final RoomHost rooms;

  AnteroomHealth(RoomHost rooms) {
    this.rooms = rooms;
  }

  @Override
  public Health health() {
    long now = System.currentTimeMillis();
    Health.Builder health = Health.up();
    boolean degraded = false;
    for (RoomRuntime r : rooms.rooms().snapshot().byId().values()) {
      RoomStatus st = r.control().status(now);
      var detail = new LinkedHashMap<String, Object>();
      detail.put("status", st.status());
      detail.put("degraded", st.degraded());
      detail.put("queuedUsers", st.estimatedQueuedUsers());
      detail.put("activeUsers", st.estimatedTotalActiveUsers());
      health.withDetail(r.settings().id(), detail);
      degraded |= st.degraded();
    }
    return degraded ? health.status(DEGRADED).build() : health.build();
  }
}
