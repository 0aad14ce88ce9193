package io.anteroom.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.anteroom.coordinator.CoordinatorServer;
import io.anteroom.gateway.Browser;
import io.anteroom.gateway.Harness;
import io.anteroom.gateway.TestOrigin;
import io.anteroom.host.ObjectCoordination;
import io.anteroom.objects.ManualScheduler;
import io.anteroom.objects.storage.SqliteStorageEngine;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /api/rooms/{id}/analytics}: the room's per-minute history, merged over gateways and
 * data centers, its range rules, and its survival of a coordinator restart.
 */
class AnalyticsApiTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ROOM = "rooms: [ { id: shop, totalActiveUsers: 5 } ]";

  /** The minutes of a short run, whatever virtual time passes after it. */
  private static final String RUN = "?from=2026-11-22T09:59:00Z&to=2026-11-22T10:30:00Z";

  @TempDir Path dataDir;

  private static long admitted(List<CompletableFuture<HttpResponse<String>>> responses) {
    return responses.stream().map(CompletableFuture::join).filter(Browser::reachedOrigin).count();
  }

  /** Arrivals spread over the given gateways, one at a time. */
  private static long arrive(int users, Harness... gateways) {
    var responses = new ArrayList<CompletableFuture<HttpResponse<String>>>();
    for (int i = 0; i < users; i++) {
      responses.add(gateways[i % gateways.length].browser().getAsync("/"));
      responses.getLast().join();
    }
    return admitted(responses);
  }

  /**
   * One report round while virtual time passes one report interval, waiting until every alarm that
   * came due has run at its virtual time ({@link io.anteroom.objects.Runtime.Builder#virtualTime}).
   */
  private static void settle(ManualScheduler scheduler, Harness... gateways) throws Exception {
    for (Harness h : gateways) {
      h.report("shop");
    }
    scheduler.advance(Duration.ofSeconds(6));
    for (Harness h : gateways) {
      h.report("shop");
    }
  }

  /**
   * Settle rounds until {@code done} holds; at most {@value #ROUNDS} (a minute of virtual time).
   */
  private static void settleUntil(
      java.util.concurrent.Callable<Boolean> done, Callback round, String what) throws Exception {
    for (int i = 0; i < ROUNDS; i++) {
      round.run();
      if (done.call()) {
        return;
      }
    }
    throw new AssertionError("not reached after " + ROUNDS + " report rounds: " + what);
  }

  private static final int ROUNDS = 10;

  @FunctionalInterface
  private interface Callback {
    void run() throws Exception;
  }

  private static JsonNode analytics(Harness h, String query) throws Exception {
    var r = h.admin("GET", "/api/rooms/shop/analytics" + query, null);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  private static JsonNode minute(JsonNode series, String start) {
    for (JsonNode m : series.get("minutes")) {
      if (m.get("minute").asText().equals(start)) {
        return m;
      }
    }
    throw new AssertionError("no minute " + start + " in " + series);
  }

  @Test
  void twoGatewaysInTwoDataCentersAreMergedIntoOneRowPerMinute() throws Exception {
    var scheduler = new ManualScheduler(Harness.START);
    var runtime = Harness.runtime(scheduler);
    var coordinator = CoordinatorServer.serve(runtime, "127.0.0.1", 0);
    URI uri = URI.create("http://127.0.0.1:" + coordinator.actualPort());
    var dublinLink = ObjectCoordination.remote(uri, Duration.ofSeconds(5));
    var nairobiLink = ObjectCoordination.remote(uri, Duration.ofSeconds(5));
    try (var dublin =
            new Harness(
                dataDir.resolve("a"), ROOM, new TestOrigin(), scheduler, dublinLink, "dublin");
        var nairobi =
            new Harness(
                dataDir.resolve("b"), ROOM, new TestOrigin(), scheduler, nairobiLink, "nairobi")) {
      assertThat(arrive(12, dublin, nairobi)).isEqualTo(5);
      settleUntil(
          () -> {
            JsonNode m = minute(analytics(dublin, RUN), "2026-11-22T10:00:00Z");
            return m.get("dataCenters").size() == 2
                && m.get("admissions").asLong() == 5
                && m.path("waitingUsers").asLong() == 7;
          },
          () -> settle(scheduler, dublin, nairobi),
          "both data centers in the first minute");

      JsonNode fromDublin = analytics(dublin, RUN);
      JsonNode first = minute(fromDublin, "2026-11-22T10:00:00Z");
      assertThat(first.get("admissions").asLong()).as("summed over both gateways").isEqualTo(5);
      assertThat(first.get("arrivals").asLong()).as("queued arrivals").isEqualTo(7);
      assertThat(first.get("dataCenters").toString()).isEqualTo("[\"dublin\",\"nairobi\"]");
      assertThat(first.get("admittedMeasured").asLong()).isEqualTo(5);
      assertThat(first.get("realWaitP95Seconds").asLong()).as("let in at once").isZero();
      assertThat(first.get("totalActiveUsers").asLong()).isEqualTo(5);
      assertThat(first.get("activeUsers").asLong()).as("the global view's count").isEqualTo(5);
      assertThat(first.get("waitingUsers").asLong()).isEqualTo(7);
      JsonNode fromNairobi = minute(analytics(nairobi, RUN), "2026-11-22T10:00:00Z");
      for (String key : List.of("admissions", "arrivals", "dataCenters", "admittedMeasured")) {
        assertThat(fromNairobi.get(key))
            .as("both gateways read the same room history: " + key)
            .isEqualTo(first.get(key));
      }
    } finally {
      dublinLink.close();
      nairobiLink.close();
      coordinator.close();
      runtime.close();
    }
  }

  @Test
  void aQueuedUserAdmittedLaterHasItsRealWaitMeasuredFromItsArrivalMinute() throws Exception {
    String room =
        "rooms: [ { id: shop, totalActiveUsers: 1, sessionDurationMinutes: 1,"
            + " queueRefreshSeconds: 5 } ]";
    try (var h = new Harness(dataDir, room)) {
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue();
      Browser waiting = h.browser();
      assertThat(Browser.reachedOrigin(waiting.get("/"))).isFalse();
      boolean in = false;
      for (int step = 0; step < 30 && !in; step++) {
        h.scheduler.advance(Duration.ofSeconds(5));
        h.report("shop");
        in = Browser.reachedOrigin(waiting.get("/"));
      }
      assertThat(in).as("the waiting user got in").isTrue();
      settleUntil(
          () -> measured(analytics(h, RUN)) == 2,
          () -> settle(h.scheduler, h),
          "both admissions measured");
      JsonNode series = analytics(h, RUN);
      long longest = 0;
      for (JsonNode m : series.get("minutes")) {
        longest = Math.max(longest, m.path("realWaitP95Seconds").asLong(0));
      }
      assertThat(measured(series)).isEqualTo(2);
      assertThat(longest)
          .as("at least a session (60 s) waited; the bucket above it")
          .isGreaterThanOrEqualTo(60)
          .isLessThanOrEqualTo(180);
    }
  }

  private static long measured(JsonNode series) {
    long measured = 0;
    for (JsonNode m : series.get("minutes")) {
      measured += m.get("admittedMeasured").asLong();
    }
    return measured;
  }

  @Test
  void theRangeIsCheckedWithAClearMessage() throws Exception {
    try (var h = new Harness(dataDir, ROOM)) {
      var bad = h.admin("GET", "/api/rooms/shop/analytics?from=yesterday", null);
      assertThat(bad.statusCode()).isEqualTo(400);
      assertThat(JSON.readTree(bad.body()).get("error").asText())
          .startsWith("from: expected an ISO-8601 instant")
          .contains("yesterday");
      var reversed =
          h.admin(
              "GET",
              "/api/rooms/shop/analytics?from=2026-11-22T10:00:00Z&to=2026-11-22T09:00:00Z",
              null);
      assertThat(reversed.statusCode()).isEqualTo(400);
      assertThat(reversed.body()).contains("must be before to");
      var tooLong =
          h.admin(
              "GET",
              "/api/rooms/shop/analytics?from=2026-11-01T00:00:00Z&to=2026-11-22T00:00:00Z",
              null);
      assertThat(tooLong.statusCode()).isEqualTo(400);
      assertThat(tooLong.body()).contains("at most 7 days");
      var twice = h.admin("GET", "/api/rooms/shop/analytics?to=1&to=2", null);
      assertThat(twice.statusCode()).isEqualTo(400);
      assertThat(twice.body()).contains("to: given 2 times");
      assertThat(h.admin("GET", "/api/rooms/nope/analytics", null).statusCode()).isEqualTo(404);
      var anonymous =
          h.client.send(
              java.net.http.HttpRequest.newBuilder(
                      URI.create(h.adminUrl() + "/api/rooms/shop/analytics"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(anonymous.statusCode()).isEqualTo(401);

      long start = Harness.START.getEpochSecond();
      JsonNode epoch = analytics(h, "?from=" + (start - 120) + "&to=" + (start + 1));
      assertThat(epoch.get("from").asText()).isEqualTo("2026-11-22T09:58:00Z");
      assertThat(epoch.get("to").asText())
          .as("the minute holding `to` is included")
          .isEqualTo("2026-11-22T10:01:00Z");
      JsonNode byDefault = analytics(h, "");
      assertThat(byDefault.get("from").asText()).isEqualTo("2026-11-22T09:00:00Z");
      assertThat(byDefault.get("to").asText()).isEqualTo("2026-11-22T10:01:00Z");
    }
  }

  @Test
  void anUnreachableCoordinatorIsA503() throws Exception {
    var scheduler = new ManualScheduler(Harness.START);
    var runtime = Harness.runtime(scheduler);
    var coordinator = CoordinatorServer.serve(runtime, "127.0.0.1", 0);
    URI uri = URI.create("http://127.0.0.1:" + coordinator.actualPort());
    coordinator.close();
    runtime.close();
    var link = ObjectCoordination.remote(uri, Duration.ofSeconds(2));
    try (var h = new Harness(dataDir, ROOM, new TestOrigin(), scheduler, link, "dc1")) {
      var r = h.admin("GET", "/api/rooms/shop/analytics", null);
      assertThat(r.statusCode()).isEqualTo(503);
      assertThat(JSON.readTree(r.body()).get("error").asText())
          .startsWith("the history of room \"shop\" is unavailable");
    } finally {
      link.close();
    }
  }

  @Test
  void theHistorySurvivesACoordinatorRestart() throws Exception {
    Path objects = dataDir.resolve("objects");
    java.nio.file.Files.createDirectories(objects);
    var scheduler = new ManualScheduler(Harness.START);
    JsonNode before;
    var engine = SqliteStorageEngine.open(objects);
    var first = ObjectCoordination.embedded(sqliteRuntime(engine, scheduler));
    String global =
        io.anteroom.coordinator.RoomObjects.GLOBAL_NAMESPACE
            + "/"
            + io.anteroom.objects.ObjectId.fromName(
                io.anteroom.coordinator.RoomObjects.GLOBAL_NAMESPACE, "shop");
    String row = "history/" + String.format("%012d", Harness.START.getEpochSecond() / 60);
    try (var h =
        new Harness(dataDir.resolve("a"), ROOM, new TestOrigin(), scheduler, first, "dc1")) {
      assertThat(arrive(8, h)).isEqualTo(5);
      settleUntil(
          () -> {
            byte[] stored = engine.get(global, row);
            return stored != null
                && new String(stored, java.nio.charset.StandardCharsets.UTF_8)
                    .contains("\"admissions\":5");
          },
          () -> settle(scheduler, h),
          "the global object's alarm stored the minute with its five admissions");
      before = analytics(h, "?from=2026-11-22T10:00:00Z&to=2026-11-22T10:05:00Z");
      assertThat(minute(before, "2026-11-22T10:00:00Z").get("admissions").asLong()).isEqualTo(5);
    } finally {
      first.close();
    }

    var later = new ManualScheduler(Harness.START.plus(Duration.ofMinutes(30)));
    var second =
        ObjectCoordination.embedded(sqliteRuntime(SqliteStorageEngine.open(objects), later));
    try (var h = new Harness(dataDir.resolve("b"), ROOM, new TestOrigin(), later, second, "dc1")) {
      JsonNode after =
          minute(
              analytics(h, "?from=2026-11-22T10:00:00Z&to=2026-11-22T10:05:00Z"),
              "2026-11-22T10:00:00Z");
      JsonNode was = minute(before, "2026-11-22T10:00:00Z");
      for (String key :
          List.of(
              "admissions", "arrivals", "dataCenters", "admittedMeasured", "totalActiveUsers")) {
        assertThat(after.get(key)).as(key).isEqualTo(was.get(key));
      }
    } finally {
      second.close();
    }
  }

  private static io.anteroom.objects.Runtime sqliteRuntime(
      SqliteStorageEngine engine, ManualScheduler scheduler) {
    return io.anteroom.objects.Runtime.builder().storage(engine).virtualTime(scheduler).build();
  }

  @Test
  void aMinuteIsOneInstantApartFromTheNext() {
    var range =
        AnalyticsRange.parse(
            List.of("2026-11-22T10:00:30Z"), List.of("2026-11-22T10:02:00Z"), Instant.EPOCH);
    assertThat(range.toMinute() - range.fromMinute()).isEqualTo(2);
  }
}
