package io.anteroom.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.anteroom.gateway.Browser;
import io.anteroom.gateway.Harness;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code GET/PUT /api/rooms/{id}/events}: scheduled events changed live, checked like the file. */
class EventsApiTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dataDir;

  @Test
  void eventsAreReplacedLiveAndApplyFromTheirPrequeue() throws Exception {
    // the harness starts at 2026-11-22T10:00:05Z
    try (var h = new Harness(dataDir, "rooms: [ { id: shop, totalActiveUsers: 100 } ]")) {
      assertThat(JSON.readTree(h.admin("GET", "/api/rooms/shop/events", null).body())).isEmpty();
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue();

      var put =
          h.admin(
              "PUT",
              "/api/rooms/shop/events",
              """
              [ { "name": "launch", "prequeueStartTime": "2026-11-22T10:01:00Z",
                  "eventStartTime": "2026-11-22T10:30:00Z", "eventEndTime": "2026-11-22T11:00:00Z",
                  "shuffleAtEventStart": true, "totalActiveUsers": 5 } ]""");
      assertThat(put.statusCode()).isEqualTo(200);
      JsonNode events = JSON.readTree(put.body());
      assertThat(events.get(0).get("name").asText()).isEqualTo("launch");
      assertThat(events.get(0).get("totalActiveUsers").asInt()).isEqualTo(5);
      JsonNode room = JSON.readTree(h.admin("GET", "/api/rooms/shop", null).body());
      assertThat(room.get("totalActiveUsers").asInt()).isEqualTo(100); // the room's own value
      assertThat(room.get("events")).isEqualTo(events);

      // before the pre-queue the room's own settings apply; from it, nobody new gets in
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue();
      h.scheduler.advance(Duration.ofMinutes(1));
      var prequeued = h.browser().get("/");
      assertThat(Browser.reachedOrigin(prequeued)).isFalse();
      assertThat(prequeued.body()).contains("launch opens at 10:30:00 UTC");
    }
  }

  @Test
  void badEventsAreRefusedWithTheKeyAndChangeNothing() throws Exception {
    try (var h = new Harness(dataDir, "rooms: [ { id: shop, totalActiveUsers: 100 } ]")) {
      var bad =
          h.admin(
              "PUT",
              "/api/rooms/shop/events",
              """
              [ { "name": "a", "eventStartTime": "2026-11-22T10:30:00Z",
                  "eventEndTime": "2026-11-22T11:00:00Z" },
                { "name": "b", "eventStartTime": "2026-11-22T10:45:00Z",
                  "eventEndTime": "2026-11-22T12:00:00Z" } ]""");
      assertThat(bad.statusCode()).isEqualTo(400);
      assertThat(JSON.readTree(bad.body()).get("error").asText())
          .contains("events: event 'b'")
          .contains("overlaps event 'a'");
      assertThat(h.admin("PUT", "/api/rooms/shop/events", "{").statusCode()).isEqualTo(400);
      assertThat(h.admin("PUT", "/api/rooms/none/events", "[]").statusCode()).isEqualTo(404);
      assertThat(JSON.readTree(h.admin("GET", "/api/rooms/shop/events", null).body())).isEmpty();
    }
  }
}
