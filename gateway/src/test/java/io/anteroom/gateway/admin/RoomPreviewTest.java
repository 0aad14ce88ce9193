package io.anteroom.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.anteroom.gateway.Harness;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The queue page a change would produce is shown before it applies, and applies nothing. */
class RoomPreviewTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dataDir;

  @Test
  void aPreviewRendersTheChangedRoomsQueuePageAndChangesNothing() throws Exception {
    try (var h =
        new Harness(dataDir, "rooms: [ { id: shop, totalActiveUsers: 5, languages: [ de ] } ]")) {
      long version = h.documentsVersion();
      var r =
          h.admin(
              "POST",
              "/api/rooms/shop/preview",
              "{\"id\":\"shop\",\"totalActiveUsers\":9,\"languages\":[\"fr\"],\"jsonEnvelope\":true}");
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      JsonNode answer = JSON.readTree(r.body());
      assertThat(answer.get("html").asText()).contains("<html").contains("lang=\"fr\"");
      JsonNode page = answer.get("json").get("cfWaitingRoom");
      assertThat(page.get("inWaitingRoom").asBoolean()).isTrue();
      assertThat(page.get("waitTime").asInt()).isEqualTo(RoomPreview.SAMPLE_WAIT_MINUTES);

      assertThat(h.room("shop").settings().limits().totalActiveUsers()).isEqualTo(5);
      assertThat(h.documentsVersion()).as("nothing written").isEqualTo(version);
    }
  }

  @Test
  void aPreviewOfAChangeThatWouldBeRefusedNamesEveryProblem() throws Exception {
    try (var h = new Harness(dataDir, "rooms: [ { id: shop }, { id: blog, path: /blog/ } ]")) {
      var r =
          h.admin(
              "POST",
              "/api/rooms/shop/preview",
              "{\"id\":\"shop\",\"totalActiveUsers\":0,\"strategy\":\"fast\"}");
      assertThat(r.statusCode()).isEqualTo(400);
      assertThat(JSON.readTree(r.body()).get("error").asText())
          .contains("totalActiveUsers", "strategy");
      var clash =
          h.admin("POST", "/api/rooms/shop/preview", "{\"id\":\"shop\",\"path\":\"/blog/\"}");
      assertThat(clash.statusCode()).isEqualTo(400);
      assertThat(clash.body()).contains("is already used by another room");
    }
  }

  @Test
  void aPreviewShowsTheTemplatesOfTheChangeAtTheTimeAskedAndKeepsNone() throws Exception {
    try (var h =
        new Harness(
            dataDir,
            "rooms: [ { id: shop, events: [ { name: launch, eventStartTime:"
                + " '2026-12-01T18:00:00Z', eventEndTime: '2026-12-01T20:00:00Z' } ] } ]")) {
      long version = h.documentsVersion();
      String room =
          "{\"id\":\"shop\",\"template\":\"q.html\",\"events\":[{\"name\":\"launch\","
              + "\"eventStartTime\":\"2026-12-01T18:00:00Z\",\"eventEndTime\":\"2026-12-01T20:00:00Z\"}],"
              + "\"templates\":{\"q.html\":\"<p>{{> p}} {{#eventName}}during {{eventName}}{{/eventName}}</p>\","
              + "\"p.html\":\"PREVIEWED\"}}";
      var during = h.admin("POST", "/api/rooms/shop/preview?at=2026-12-01T18:30:00Z", room);
      assertThat(during.statusCode()).as(during.body()).isEqualTo(200);
      assertThat(JSON.readTree(during.body()).get("html").asText())
          .isEqualTo("<p>PREVIEWED during launch</p>");
      var now = h.admin("POST", "/api/rooms/shop/preview", room);
      assertThat(JSON.readTree(now.body()).get("html").asText()).isEqualTo("<p>PREVIEWED </p>");

      var badAt = h.admin("POST", "/api/rooms/shop/preview?at=tomorrow", room);
      assertThat(badAt.statusCode()).isEqualTo(400);
      assertThat(badAt.body()).contains("at: expected an ISO-8601 instant");
      var badTemplate =
          h.admin("POST", "/api/rooms/shop/preview", room.replace("PREVIEWED", "{{#open}}"));
      assertThat(badTemplate.statusCode()).isEqualTo(400);
      assertThat(badTemplate.body()).contains("templates.\\\"p.html\\\"");

      assertThat(h.rooms().keptTemplates("shop")).as("nothing kept").isEmpty();
      assertThat(h.documentsVersion()).as("nothing written").isEqualTo(version);
    }
  }
}
