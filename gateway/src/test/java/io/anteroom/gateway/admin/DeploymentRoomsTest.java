package io.anteroom.gateway.admin;

import static io.anteroom.gateway.admin.AdminRolesTest.ADMIN_TOKEN;
import static io.anteroom.gateway.admin.AdminRolesTest.READ_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.anteroom.coordinator.CoordinatorServer;
import io.anteroom.door.RoomDocumentSync;
import io.anteroom.gateway.Harness;
import io.anteroom.gateway.TestOrigin;
import io.anteroom.host.ObjectCoordination;
import io.anteroom.objects.ManualScheduler;
import io.anteroom.objects.http.HttpObjectServer;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The deployment's rooms are documents at the coordinator: a room created, changed or deleted
 * through the admin API of one gateway takes effect at every other gateway of the deployment, and
 * survives restarts; the config file is the bootstrap, and the coordinator's document wins over it.
 * Two gateways of two data centers, each with its own link to one coordinator over HTTP.
 */
class DeploymentRoomsTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKENS =
      "tokens: [ { name: desk, scope: read, token: "
          + READ_TOKEN
          + " }, { name: lead, scope: admin, token: "
          + ADMIN_TOKEN
          + " } ]";

  @TempDir Path dir;

  private final ManualScheduler scheduler = new ManualScheduler(Harness.START);
  private final List<AutoCloseable> open = new ArrayList<>();
  private io.anteroom.objects.Runtime runtime;
  private HttpObjectServer server;
  private URI coordinator;

  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
  private final Logger syncLog = (Logger) LoggerFactory.getLogger(RoomDocumentSync.class);

  /** A coordinator over HTTP whose objects are kept in SQLite under {@code dir/coordinator}. */
  private void startCoordinator() throws Exception {
    runtime =
        io.anteroom.objects.Runtime.builder()
            .dataDir(dir.resolve("coordinator"))
            .virtualTime(scheduler)
            .build();
    server = CoordinatorServer.serve(runtime, "127.0.0.1", coordinator == null ? 0 : port());
    coordinator = URI.create("http://127.0.0.1:" + server.actualPort());
  }

  private int port() {
    return coordinator.getPort();
  }

  private void stopCoordinator() {
    server.close();
    runtime.close();
  }

  /** A gateway of data center {@code dc} with the config file's {@code rooms}. */
  private Harness gateway(String dc, String rooms) throws Exception {
    var link = ObjectCoordination.remote(coordinator, Duration.ofSeconds(5));
    var h = new Harness(dir.resolve(dc), rooms, new TestOrigin(), scheduler, link, dc, 1, TOKENS);
    open.add(link);
    open.add(h);
    return h;
  }

  @AfterEach
  void close() throws Exception {
    syncLog.detachAppender(logged);
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
    if (server != null) {
      stopCoordinator();
    }
  }

  private static JsonNode body(java.net.http.HttpResponse<String> r) throws Exception {
    return JSON.readTree(r.body());
  }

  @Test
  void aRoomCreatedChangedAndDeletedThroughOneGatewayTakesEffectAtTheOther() throws Exception {
    startCoordinator();
    var one = gateway("dc1", "rooms: [ { id: shop, path: /shop/ } ]");
    var two = gateway("dc2", "rooms: [ { id: shop, path: /shop/ } ]");

    var created =
        one.admin(
            ADMIN_TOKEN,
            "POST",
            "/api/rooms",
            "{\"id\":\"blog\",\"path\":\"/blog/\",\"totalActiveUsers\":1}");
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    two.follow();
    assertThat(two.rooms().get("blog")).as("created at the other gateway").isPresent();
    assertThat(two.room("blog").settings().limits().totalActiveUsers()).isEqualTo(1);
    assertThat(two.browser().get("/blog/1").headers().allValues("set-cookie"))
        .as("the other gateway serves the room")
        .anyMatch(c -> c.startsWith("__anteroom_blog="));

    var changed =
        one.admin(
            ADMIN_TOKEN,
            "PUT",
            "/api/rooms/blog",
            "{\"id\":\"blog\",\"path\":\"/blog/\",\"totalActiveUsers\":7}");
    assertThat(changed.statusCode()).as(changed.body()).isEqualTo(200);
    two.follow();
    assertThat(two.room("blog").settings().limits().totalActiveUsers()).isEqualTo(7);

    assertThat(one.admin(ADMIN_TOKEN, "DELETE", "/api/rooms/blog", null).statusCode())
        .isEqualTo(204);
    two.follow();
    assertThat(two.rooms().get("blog")).as("deleted at the other gateway").isEmpty();
    assertThat(one.rooms().get("blog")).isEmpty();
  }

  @Test
  void theRoomsSurviveARestartOfBothGatewaysAndTheCoordinator() throws Exception {
    startCoordinator();
    String file = "rooms: [ { id: shop, path: /shop/, totalActiveUsers: 5 } ]";
    var one = gateway("dc1", file);
    var two = gateway("dc2", file);
    assertThat(
            one.admin(ADMIN_TOKEN, "POST", "/api/rooms", "{\"id\":\"blog\",\"path\":\"/blog/\"}")
                .statusCode())
        .isEqualTo(201);
    assertThat(
            one.admin(ADMIN_TOKEN, "POST", "/api/rooms", "{\"id\":\"news\",\"path\":\"/news/\"}")
                .statusCode())
        .isEqualTo(201);
    assertThat(
            two.admin(
                    ADMIN_TOKEN,
                    "PUT",
                    "/api/rooms/shop",
                    "{\"id\":\"shop\",\"path\":\"/shop/\",\"totalActiveUsers\":9}")
                .statusCode())
        .isEqualTo(200);
    assertThat(two.admin(ADMIN_TOKEN, "DELETE", "/api/rooms/news", null).statusCode())
        .isEqualTo(204);

    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
    open.clear();
    stopCoordinator();
    startCoordinator();

    // the same config files: the coordinator's documents are in force at start
    var oneAgain = gateway("dc1", file);
    var twoAgain = gateway("dc2", file);
    for (Harness h : List.of(oneAgain, twoAgain)) {
      assertThat(h.rooms().get("blog")).as("created through the API").isPresent();
      assertThat(h.rooms().get("news")).as("deleted through the API").isEmpty();
      assertThat(h.room("shop").settings().limits().totalActiveUsers()).as("changed").isEqualTo(9);
    }
  }

  @Test
  void aRejectedChangeChangesNothingAnywhereAndNamesEveryProblem() throws Exception {
    startCoordinator();
    var one = gateway("dc1", "rooms: [ { id: shop, path: /shop/ }, { id: blog, path: /blog/ } ]");
    var two = gateway("dc2", "rooms: [ { id: shop, path: /shop/ }, { id: blog, path: /blog/ } ]");
    long version = one.documentsVersion();

    var bad =
        one.admin(
            ADMIN_TOKEN,
            "POST",
            "/api/rooms",
            "{\"id\":\"news\",\"path\":\"/news/\",\"strategy\":\"fast\",\"totalActiveUsers\":-1}");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(body(bad).get("error").asText()).contains("strategy", "totalActiveUsers");

    var clash =
        one.admin(ADMIN_TOKEN, "PUT", "/api/rooms/shop", "{\"id\":\"shop\",\"path\":\"/blog/\"}");
    assertThat(clash.statusCode()).isEqualTo(400);
    assertThat(body(clash).get("error").asText()).contains("is already used by another room");

    var badImport =
        one.admin(
            ADMIN_TOKEN,
            "POST",
            "/api/import/rooms",
            "rooms: [ { id: shop, totalActiveUsers: 0 }, { id: x, path: /x/, nope: 1 } ]");
    assertThat(badImport.statusCode()).isEqualTo(400);
    assertThat(body(badImport).get("error").asText()).contains("totalActiveUsers", "nope");

    var reader = one.admin(READ_TOKEN, "DELETE", "/api/rooms/shop", null);
    assertThat(reader.statusCode()).as("a reader may not delete").isEqualTo(403);

    two.follow();
    assertThat(one.documentsVersion()).isEqualTo(version);
    for (Harness h : List.of(one, two)) {
      assertThat(h.rooms().list()).extracting(s -> s.id()).containsExactly("shop", "blog");
      assertThat(h.room("shop").settings().routing().path()).isEqualTo("/shop/");
    }
  }

  @Test
  void theCoordinatorsDocumentWinsOverTheFileAndTheLogSaysHowToMakeTheFileWin() throws Exception {
    startCoordinator();
    String file =
        "rooms: [ { id: shop, path: /shop/, totalActiveUsers: 5 }, { id: blog, path: /blog/ } ]";
    var one = gateway("dc1", file);
    assertThat(
            one.admin(
                    ADMIN_TOKEN,
                    "PUT",
                    "/api/rooms/shop",
                    "{\"id\":\"shop\",\"path\":\"/shop/\",\"totalActiveUsers\":9}")
                .statusCode())
        .isEqualTo(200);
    assertThat(one.admin(ADMIN_TOKEN, "DELETE", "/api/rooms/blog", null).statusCode())
        .isEqualTo(204);

    logged.start();
    syncLog.addAppender(logged);
    // a gateway whose file still says 5, still has blog, and has a room the deployment lacks
    var two =
        gateway(
            "dc2",
            "rooms: [ { id: shop, path: /shop/, totalActiveUsers: 5 }, { id: blog, path: /blog/ },"
                + " { id: news, path: /news/ } ]");

    assertThat(two.room("shop").settings().limits().totalActiveUsers()).isEqualTo(9);
    assertThat(two.rooms().get("blog")).as("deleted from the deployment").isEmpty();
    assertThat(two.rooms().get("news")).as("the file's new room is in force").isPresent();
    one.follow();
    assertThat(one.rooms().get("news")).as("and imported for the deployment").isPresent();

    var warnings =
        logged.list.stream()
            .filter(e -> e.getLevel() == ch.qos.logback.classic.Level.WARN)
            .map(ILoggingEvent::getFormattedMessage)
            .toList();
    assertThat(warnings)
        .anySatisfy(
            w ->
                assertThat(w)
                    .startsWith("room shop: its settings in the config file differ")
                    .contains("the document's are in force", "anteroom rooms import --file"))
        .anySatisfy(
            w ->
                assertThat(w)
                    .startsWith("room blog: it is in the config file but was deleted")
                    .contains("anteroom rooms import --file"))
        .noneSatisfy(w -> assertThat(w).startsWith("room news"))
        .hasSize(2);
  }

  @Test
  void anExportImportedElsewhereMakesTheSameRoomsAndPruneDeletesTheOthers() throws Exception {
    startCoordinator();
    var one = gateway("dc1", "rooms: [ { id: shop, path: /shop/, totalActiveUsers: 5 } ]");
    assertThat(
            one.admin(
                    ADMIN_TOKEN,
                    "POST",
                    "/api/rooms",
                    "{\"id\":\"blog\",\"path\":\"/blog/\",\"generation\":4,"
                        + "\"events\":[{\"name\":\"launch\",\"eventStartTime\":\"2026-12-01T10:00:00Z\","
                        + "\"eventEndTime\":\"2026-12-01T12:00:00Z\",\"totalActiveUsers\":2}]}")
                .statusCode())
        .isEqualTo(201);
    Path exported = dir.resolve("rooms.yaml");
    String admin = one.adminUrl();
    Path token = dir.resolve("token");
    java.nio.file.Files.writeString(token, ADMIN_TOKEN + "\n");
    var export =
        io.anteroom.gateway.CommandLines.run(
            "rooms",
            "export",
            "--admin",
            admin,
            "--token-file",
            token.toString(),
            "--out",
            exported.toString());
    assertThat(export.exit()).as(export.err()).isZero();
    String yaml = java.nio.file.Files.readString(exported);
    assertThat(yaml).contains("id: blog", "generation: 4", "name: launch");

    // another deployment, with a room of its own: the import makes its rooms those of the export
    var other = new ManualScheduler(Harness.START);
    try (var lone =
        new Harness(
            dir.resolve("lone"),
            "rooms: [ { id: old, path: /old/ } ]",
            new TestOrigin(),
            other,
            null,
            "dc9",
            1,
            TOKENS)) {
      var imported =
          io.anteroom.gateway.CommandLines.run(
              "rooms",
              "import",
              "--prune",
              "--file",
              exported.toString(),
              "--admin",
              lone.adminUrl(),
              "--token-file",
              token.toString());
      assertThat(imported.exit()).as(imported.err()).isZero();
      assertThat(imported.out()).contains("rooms shop, blog, old written");
      assertThat(lone.rooms().list())
          .extracting(s -> s.id())
          .containsExactlyInAnyOrder("shop", "blog");
      assertThat(lone.room("blog").settings().generation()).isEqualTo(4);
      assertThat(lone.room("shop").settings().limits().totalActiveUsers()).isEqualTo(5);
      String again = lone.admin(READ_TOKEN, "GET", "/api/export/rooms", null).body();
      assertThat(again.substring(again.indexOf('\n')))
          .isEqualTo(yaml.substring(yaml.indexOf('\n')));

      var same =
          io.anteroom.gateway.CommandLines.run(
              "rooms",
              "import",
              "--file",
              exported.toString(),
              "--admin",
              lone.adminUrl(),
              "--token-file",
              token.toString());
      assertThat(same.out()).contains("nothing to change");

      java.nio.file.Files.writeString(exported, "rooms: [ { id: shop, strategy: fast } ]");
      var refused =
          io.anteroom.gateway.CommandLines.run(
              "rooms",
              "import",
              "--file",
              exported.toString(),
              "--admin",
              lone.adminUrl(),
              "--token-file",
              token.toString());
      assertThat(refused.exit()).isEqualTo(2);
      assertThat(refused.err()).contains("refused (HTTP 400)", "strategy");
    }
  }
}
