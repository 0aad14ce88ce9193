package io.anteroom.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.anteroom.door.admission.Coordination;
import io.anteroom.door.config.ConfigLoader;
import io.anteroom.door.config.GatewayConfig;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedded topology keeps the audit log in its objects (SQLite in dataDir): it survives. */
class AuditRestartTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = "lead-token-0123456789";

  @TempDir Path dataDir;

  @Test
  void theAuditLogSurvivesARestartOfTheEmbeddedTopology() throws Exception {
    GatewayConfig config =
        ConfigLoader.parse(
            """
            listen: 127.0.0.1:0
            dataDir: %s
            admin:
              listen: 127.0.0.1:0
              tokens: [ { name: lead, scope: admin, token: %s } ]
            rooms: [ { id: shop } ]
            """
                .formatted(dataDir, TOKEN),
            "test");
    try (var client = Browser.newClient()) {
      Coordination coordination = Main.embedded(config);
      try (Gateway gw = Main.startGateway(config, coordination, "local")) {
        var r = call(client, gw, "PUT", "/api/rooms/shop/queueAll", "true");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      } finally {
        coordination.close();
      }

      coordination = Main.embedded(config);
      try (Gateway gw = Main.startGateway(config, coordination, "local")) {
        var r = call(client, gw, "GET", "/api/audit", null);
        JsonNode entries = JSON.readTree(r.body()).get("entries");
        assertThat(entries).hasSize(1);
        assertThat(entries.get(0).get("token").asText()).isEqualTo("lead");
        assertThat(entries.get(0).get("after").toString()).isEqualTo("{\"queueAll\":true}");

        // numbering goes on after the restart
        call(client, gw, "PUT", "/api/rooms/shop/queueAll", "false");
        JsonNode after = JSON.readTree(call(client, gw, "GET", "/api/audit", null).body());
        assertThat(after.get("entries").get(0).get("seq").asLong()).isEqualTo(2);
      } finally {
        coordination.close();
      }
    }
  }

  private static HttpResponse<String> call(
      java.net.http.HttpClient client, Gateway gw, String method, String path, String body)
      throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gw.adminPort() + path))
            .header("Authorization", "Bearer " + TOKEN)
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
