package io.anteroom.gateway.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.anteroom.door.RoomDocumentSync;
import io.anteroom.door.Rooms;
import io.anteroom.door.admission.RoomGate.QueueView;
import io.anteroom.door.config.ConfigLoader;
import io.anteroom.door.config.GatewayConfig.RoomSettings;
import io.anteroom.door.queue.QueueResponder;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Map;

/**
 * {@code POST /api/rooms/{id}/preview}: the queue page a change of a room would produce, before it
 * applies. The body (the room, as {@code PUT /api/rooms/{id}} takes it) is checked exactly as that
 * change would be (400 with every problem); then the page is rendered, HTML and JSON, for a user in
 * line at this gateway's time with a sample wait ({@value #SAMPLE_WAIT_MINUTES} minutes, quartiles
 * {@value #SAMPLE_Q1} and {@value #SAMPLE_Q3}): {@code {"html": "...", "json": {...}}}. Nothing is
 * written or applied.
 *
 * <p>The body may carry {@code templates} (as {@code PUT /api/rooms/{id}} takes them: the room's
 * templates and partials after the change; without it, those it keeps now), so a template's change
 * is previewed before it is saved; {@code ?at=} (an ISO-8601 instant) renders the page as at that
 * time, e.g. during a scheduled event of the change (its name, times and template).
 */
final class RoomPreview {

  static final int SAMPLE_WAIT_MINUTES = 12;
  static final int SAMPLE_Q1 = 8;
  static final int SAMPLE_Q3 = 16;

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Rooms rooms;
  private final RoomDocumentSync sync;
  private final Clock clock;

  RoomPreview(Rooms rooms, RoomDocumentSync sync, Clock clock) {
    this.rooms = rooms;
    this.sync = sync;
    this.clock = clock;
  }

  void preview(RoutingContext c) {
    String id = c.pathParam("id");
    if (rooms.get(id).isEmpty()) {
      AdminApi.notFound(c);
      return;
    }
    QueueResponder page;
    RoomSettings s;
    long now;
    try {
      now = at(c);
      RoomBody body = RoomBody.read(c.body().asString());
      s = ConfigLoader.parseRoom(body.settings());
      if (!s.id().equals(id)) {
        throw new IllegalArgumentException(
            "id: the body says \"" + s.id() + "\" but the URL says \"" + id + "\"");
      }
      var after = new ArrayList<JsonNode>();
      for (ObjectNode o : sync.configuredJson()) {
        after.add(o.path("id").asText().equals(id) ? ConfigLoader.toJson(s) : o);
      }
      sync.check(after, body.templates() == null ? Map.of() : Map.of(id, body.templates()));
      page = rooms.queuePage(s, body.templates());
    } catch (IllegalArgumentException e) {
      AdminApi.error(c, 400, e.getMessage());
      return;
    }
    Map<String, Object> fields =
        page.fieldsAt(
            now,
            true,
            new QueueView(
                true, SAMPLE_WAIT_MINUTES, SAMPLE_Q1, SAMPLE_WAIT_MINUTES, SAMPLE_Q3, now),
            s.switches().queueAll(),
            s.limits().queueRefreshSeconds(),
            false);
    ObjectNode answer = JSON.createObjectNode();
    answer.put("html", page.html(fields, now));
    try {
      answer.set("json", JSON.readTree(page.json(fields)));
    } catch (IOException e) {
      answer.put("json", page.json(fields));
    }
    AdminApi.json(c, 200, answer.toString());
  }

  /** {@code ?at=}: the instant to render the page at; this gateway's time without it. */
  private long at(RoutingContext c) {
    var at = c.queryParam("at");
    if (at.isEmpty()) {
      return clock.millis();
    }
    try {
      return java.time.Instant.parse(at.getFirst().trim()).toEpochMilli();
    } catch (java.time.format.DateTimeParseException e) {
      throw new IllegalArgumentException(
          "at: expected an ISO-8601 instant such as 2026-12-01T18:00:00Z, found \""
              + (at.getFirst().length() > 40
                  ? at.getFirst().substring(0, 40) + "..."
                  : at.getFirst())
              + "\"");
    }
  }
}
