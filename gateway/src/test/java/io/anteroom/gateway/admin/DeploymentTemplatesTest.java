package io.anteroom.gateway.admin;

import static io.anteroom.gateway.admin.AdminRolesTest.ADMIN_TOKEN;
import static io.anteroom.gateway.admin.AdminRolesTest.OPERATE_TOKEN;
import static io.anteroom.gateway.admin.AdminRolesTest.READ_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.anteroom.coordinator.CoordinatorServer;
import io.anteroom.door.RoomDocumentSync;
import io.anteroom.gateway.CommandLines;
import io.anteroom.gateway.Harness;
import io.anteroom.gateway.TestOrigin;
import io.anteroom.host.ObjectCoordination;
import io.anteroom.objects.ManualScheduler;
import io.anteroom.objects.http.HttpObjectServer;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Queue-page templates are kept with the room's document at the coordinator: a template created or
 * changed through one gateway's admin API is served by every gateway of the deployment and survives
 * restarts; a rejected change names every problem and changes nothing anywhere; the document's
 * template wins over a host's templatesDir (one WARN line), and {@code anteroom rooms import} of
 * the config file makes the file's win. Two gateways of two data centers, each with its own link to
 * one coordinator over HTTP.
 */
class DeploymentTemplatesTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKENS =
      "tokens: [ { name: desk, scope: read, token: "
          + READ_TOKEN
          + " }, { name: ops, scope: operate, token: "
          + OPERATE_TOKEN
          + " }, { name: lead, scope: admin, token: "
          + ADMIN_TOKEN
          + " } ]";

  /** Every new user is queued, so every request shows the queue page. */
  private static final String FILE = "rooms: [ { id: shop, path: /shop/, queueAll: true } ]";

  @TempDir Path dir;

  private final ManualScheduler scheduler = new ManualScheduler(Harness.START);
  private final List<AutoCloseable> open = new ArrayList<>();
  private io.anteroom.objects.Runtime runtime;
  private HttpObjectServer server;
  private URI coordinator;

  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
  private final Logger syncLog = (Logger) LoggerFactory.getLogger(RoomDocumentSync.class);

  private void startCoordinator() throws Exception {
    runtime =
        io.anteroom.objects.Runtime.builder()
            .dataDir(dir.resolve("coordinator"))
            .virtualTime(scheduler)
            .build();
    server =
        CoordinatorServer.serve(
            runtime, "127.0.0.1", coordinator == null ? 0 : coordinator.getPort());
    coordinator = URI.create("http://127.0.0.1:" + server.actualPort());
  }

  private void stopCoordinator() {
    server.close();
    runtime.close();
  }

  private Harness gateway(String dc, String config) throws Exception {
    var link = ObjectCoordination.remote(coordinator, Duration.ofSeconds(5));
    var h = new Harness(dir.resolve(dc), config, new TestOrigin(), scheduler, link, dc, 1, TOKENS);
    open.add(link);
    open.add(h);
    return h;
  }

  private void closeGateways() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
    open.clear();
  }

  @AfterEach
  void close() throws Exception {
    syncLog.detachAppender(logged);
    closeGateways();
    if (server != null) {
      stopCoordinator();
    }
  }

  /** The queue page a new browser gets at {@code h}. */
  private static String page(Harness h) {
    var r = h.browser().get("/shop/item", "Accept", "text/html");
    assertThat(r.statusCode()).as(r.body()).isNotEqualTo(404);
    return r.body();
  }

  private static String templates(String queue, String head) throws Exception {
    var o = JSON.createObjectNode();
    o.put("queue.html", queue);
    o.put("parts/head.html", head);
    return o.toString();
  }

  @Test
  void aTemplateMadeThroughOneGatewayIsServedByTheOtherAndSurvivesARestartOfEverything()
      throws Exception {
    startCoordinator();
    var one = gateway("dc1", FILE);
    var two = gateway("dc2", FILE);

    // the room's template and its partial in one change, through the first gateway
    var body = JSON.createObjectNode();
    body.put("id", "shop")
        .put("path", "/shop/")
        .put("queueAll", true)
        .put("template", "queue.html");
    body.set(
        "templates",
        JSON.readTree(
            templates("<html><body>KEPT-PAGE {{> parts/head}}</body></html>", "Winter sale")));
    var put = one.admin(ADMIN_TOKEN, "PUT", "/api/rooms/shop", body.toString());
    assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
    assertThat(page(one)).contains("KEPT-PAGE Winter sale");
    two.follow();
    assertThat(page(two))
        .as("the other gateway, without any templatesDir, serves the kept template")
        .contains("KEPT-PAGE Winter sale");

    // a template changed through the second gateway: the first follows
    var changed =
        two.admin(
            ADMIN_TOKEN,
            "PUT",
            "/api/rooms/shop/templates",
            templates("<html><body>CHANGED {{> parts/head}}</body></html>", "Spring sale"));
    assertThat(changed.statusCode()).as(changed.body()).isEqualTo(200);
    assertThat(page(two)).contains("CHANGED Spring sale");
    one.follow();
    assertThat(page(one)).contains("CHANGED Spring sale");
    JsonNode kept =
        JSON.readTree(one.admin(READ_TOKEN, "GET", "/api/rooms/shop/templates", null).body());
    assertThat(kept.path("parts/head.html").asText()).isEqualTo("Spring sale");
    assertThat(one.room("shop").settings().switches().queueAll())
        .as("a change of templates leaves the room's settings as they are")
        .isTrue();
    JsonNode audit =
        JSON.readTree(one.admin(READ_TOKEN, "GET", "/api/audit?limit=1", null).body())
            .path("entries")
            .get(0);
    assertThat(audit.path("action").asText()).isEqualTo("set templates");
    assertThat(audit.path("token").asText()).isEqualTo("lead");
    assertThat(audit.path("after").path("parts/head.html").path("chars").asInt()).isEqualTo(11);

    closeGateways();
    stopCoordinator();
    startCoordinator();
    var oneAgain = gateway("dc1", FILE);
    var twoAgain = gateway("dc2", FILE);
    assertThat(page(oneAgain)).contains("CHANGED Spring sale");
    assertThat(page(twoAgain)).contains("CHANGED Spring sale");
  }

  @Test
  void aRejectedTemplateChangeNamesEveryProblemAndChangesNothingAnywhere() throws Exception {
    startCoordinator();
    var one = gateway("dc1", FILE);
    var two = gateway("dc2", FILE);
    var body =
        "{\"id\":\"shop\",\"path\":\"/shop/\",\"queueAll\":true,\"template\":\"queue.html\","
            + "\"templates\":{\"queue.html\":\"<p>GOOD</p>\"}}";
    assertThat(one.admin(ADMIN_TOKEN, "PUT", "/api/rooms/shop", body).statusCode()).isEqualTo(200);
    two.follow();
    long version = one.documentsVersion();

    var o = JSON.createObjectNode();
    o.put("queue.html", "{{#open}} never closed");
    o.put("../secret", "x");
    o.put("parts/a.html", "{{> parts/missing}}");
    var bad = one.admin(ADMIN_TOKEN, "PUT", "/api/rooms/shop/templates", o.toString());
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(bad.body()).path("error").asText())
        .contains(
            "templates.\"queue.html\"", "not a valid Mustache",
            "templates.\"../secret\"", "not a template name",
            "templates.\"parts/a.html\"", "parts/missing.html");

    var none = one.admin(ADMIN_TOKEN, "PUT", "/api/rooms/shop/templates", "{}");
    assertThat(none.statusCode()).as("the room's template would be found nowhere").isEqualTo(400);
    assertThat(JSON.readTree(none.body()).path("error").asText())
        .contains("template", "queue.html", "no templatesDir");

    var notText = one.admin(ADMIN_TOKEN, "PUT", "/api/rooms/shop/templates", "{\"a.html\":1}");
    assertThat(notText.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(notText.body()).path("error").asText()).contains("\"a.html\"");

    var operator = one.admin(OPERATE_TOKEN, "PUT", "/api/rooms/shop/templates", "{}");
    assertThat(operator.statusCode()).as("templates need scope admin").isEqualTo(403);

    two.follow();
    assertThat(one.documentsVersion()).isEqualTo(version);
    assertThat(page(one)).contains("GOOD");
    assertThat(page(two)).contains("GOOD");
  }

  @Test
  void theDocumentsTemplateWinsOverAHostsTemplatesDirAndAnImportOfTheFileMakesTheFilesWin()
      throws Exception {
    startCoordinator();
    Path first = Files.createDirectories(dir.resolve("templates-one"));
    Path second = Files.createDirectories(dir.resolve("templates-two"));
    Files.writeString(first.resolve("queue.html"), "<p>FILE-ONE {{> head}}</p>");
    Files.writeString(first.resolve("head.html"), "from one");
    Files.writeString(second.resolve("queue.html"), "<p>FILE-TWO {{> head}}</p>");
    Files.writeString(second.resolve("head.html"), "from two");
    String rooms = "rooms: [ { id: shop, path: /shop/, queueAll: true, template: queue.html } ]";
    var one = gateway("dc1", "templatesDir: " + first + "\n" + rooms);
    assertThat(page(one)).contains("FILE-ONE from one");
    JsonNode kept =
        JSON.readTree(one.admin(READ_TOKEN, "GET", "/api/rooms/shop/templates", null).body());
    assertThat(kept.path("head.html").asText())
        .as("the first gateway's file imported the template and its partial")
        .isEqualTo("from one");

    logged.start();
    syncLog.addAppender(logged);
    String secondConfig = "templatesDir: " + second + "\n" + rooms;
    var two = gateway("dc2", secondConfig);
    assertThat(page(two)).as("the document's template is served").contains("FILE-ONE from one");
    var warnings =
        logged.list.stream()
            .filter(e -> e.getLevel() == Level.WARN)
            .map(ILoggingEvent::getFormattedMessage)
            .toList();
    assertThat(warnings)
        .anySatisfy(
            w ->
                assertThat(w)
                    .startsWith(
                        "room shop: template queue.html in this gateway's templatesDir differs")
                    .contains("the document's is served by every gateway")
                    .contains("anteroom rooms import --file FILE"))
        .anySatisfy(w -> assertThat(w).startsWith("room shop: template head.html"))
        .hasSize(2);

    // the second host's files made the deployment's, as the WARN line says
    Path config = dir.resolve("two.yaml");
    Files.writeString(config, secondConfig);
    Path token = dir.resolve("token");
    Files.writeString(token, ADMIN_TOKEN + "\n");
    var imported =
        CommandLines.run(
            "rooms",
            "import",
            "--file",
            config.toString(),
            "--admin",
            two.adminUrl(),
            "--token-file",
            token.toString());
    assertThat(imported.exit()).as(imported.err()).isZero();
    assertThat(imported.out()).contains("templates", "rooms shop written");
    assertThat(page(two)).contains("FILE-TWO from two");
    one.follow();
    assertThat(page(one))
        .as("the first gateway serves them too, whatever its own files")
        .contains("FILE-TWO from two");
  }

  @Test
  void anExportCarriesTheTemplatesAndAnImportElsewhereServesThem() throws Exception {
    startCoordinator();
    var one = gateway("dc1", FILE);
    var body =
        "{\"id\":\"shop\",\"path\":\"/shop/\",\"queueAll\":true,\"template\":\"q.html\","
            + "\"templates\":{\"q.html\":\"<p>EXPORTED {{> p}}</p>\",\"p.html\":\"partial\"}}";
    assertThat(one.admin(ADMIN_TOKEN, "PUT", "/api/rooms/shop", body).statusCode()).isEqualTo(200);
    String yaml = one.admin(READ_TOKEN, "GET", "/api/export/rooms", null).body();
    assertThat(yaml).contains("templates:", "q.html", "EXPORTED", "p.html");

    try (var lone =
        new Harness(
            dir.resolve("lone"),
            "rooms: [ { id: old, path: /old/ } ]",
            new TestOrigin(),
            new ManualScheduler(Harness.START),
            null,
            "dc9",
            1,
            TOKENS)) {
      var imported = lone.admin(ADMIN_TOKEN, "POST", "/api/import/rooms?prune=true", yaml);
      assertThat(imported.statusCode()).as(imported.body()).isEqualTo(200);
      assertThat(page(lone)).contains("EXPORTED partial");
      String again = lone.admin(READ_TOKEN, "GET", "/api/export/rooms", null).body();
      assertThat(again.substring(again.indexOf('\n')))
          .isEqualTo(yaml.substring(yaml.indexOf('\n')));
      var same = lone.admin(ADMIN_TOKEN, "POST", "/api/import/rooms", yaml);
      assertThat(JSON.readTree(same.body()).path("written")).isEmpty();
    }
  }
}
