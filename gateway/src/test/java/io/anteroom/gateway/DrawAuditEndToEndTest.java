package io.anteroom.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.anteroom.door.queue.DrawResponder;
import io.anteroom.room.Draw;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.commons.math3.stat.correlation.SpearmansCorrelation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A lottery anyone can audit, through the public listener in virtual time: the commitment of an
 * event's shuffle is public before its pre-queue opens, its secret is not before the start and is
 * after it, every queued user's JSON carries its receipt, and {@code anteroom verify-draw} on the
 * collected receipts reproduces the places the room gave (and the room admitted in their order).
 */
class DrawAuditEndToEndTest {
  @TempDir Path dir;

  static final ObjectMapper JSON = new ObjectMapper();

  static final String ROOM =
      """
      rooms:
        - id: shop
          totalActiveUsers: 1000
          newUsersPerMinute: 20
          sessionDurationMinutes: 60
          events:
            - name: launch
              prequeueStartTime: 2026-11-22T10:05:00Z
              eventStartTime: 2026-11-22T10:10:00Z
              eventEndTime: 2026-11-22T12:00:00Z
              shuffleAtEventStart: true
      """;

  static final Instant PREQUEUE = Instant.parse("2026-11-22T10:05:00Z");
  static final Instant START = Instant.parse("2026-11-22T10:10:00Z");

  /** The room's one draw in the public list at the harness's current time. */
  static JsonNode publishedDraw(Harness h) throws Exception {
    HttpResponse<String> r = h.browser().get(DrawResponder.DRAWS_PATH);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Cache-Control")).hasValue("no-store");
    assertThat(Browser.reachedOrigin(r)).isFalse();
    JsonNode draws = JSON.readTree(r.body()).get("draws");
    assertThat(draws).hasSize(1);
    return draws.get(0);
  }

  static JsonNode json(HttpResponse<String> r) throws Exception {
    return JSON.readTree(r.body());
  }

  /**
   * The gateway on one event loop, so one worker decides for the room and one report a round brings
   * its state: the admissions depend on the places and virtual time, not on which thread served
   * which request. With a worker per event loop, the workers' reports go out together and the
   * gateway keeps each reply's state unless it is older than the one it holds, but in virtual time
   * they all have the same {@code asOf}: the one kept is the last to arrive, and under load that
   * was at times a state computed before another worker's report, without the moves of that
   * worker's users to their places. A whole bucket counted short gives its whole-bucket places to
   * fewer users than it holds ({@code TicketLedger#takeWholeBucketPlace}); the others draw like the
   * partial bucket's and, while whole buckets took every slot, were let in after everyone (users of
   * places 1 to 21 let in last, Spearman 0.65 to 0.81, about one run in 35).
   */
  static Harness oneWorker(Path dir, String roomsYaml) throws Exception {
    return new Harness(
        dir,
        roomsYaml,
        new TestOrigin(),
        new io.anteroom.objects.ManualScheduler(Harness.START),
        null,
        "dc1",
        1);
  }

  @Test
  void theCommitmentComesBeforeThePrequeueTheSecretOnlyAfterTheDrawAndTheReceiptsVerify()
      throws Exception {
    try (var h = oneWorker(dir, ROOM)) {
      // before the pre-queue opens: the commitment, no secret
      assertThat(h.scheduler.clock().instant()).isBefore(PREQUEUE);
      JsonNode before = publishedDraw(h);
      assertThat(before.get("room").asText()).isEqualTo("shop");
      assertThat(before.get("kind").asText()).isEqualTo("shuffle");
      assertThat(before.get("event").asText()).isEqualTo("launch");
      assertThat(before.get("from").asText()).isEqualTo(PREQUEUE.toString());
      assertThat(before.get("revealAt").asText()).isEqualTo(START.toString());
      String commitment = before.get("commitment").asText();
      assertThat(commitment).matches("[0-9a-f]{64}");
      assertThat(before.get("secret").isNull()).isTrue();

      h.scheduler.advance(Duration.between(h.scheduler.clock().instant(), PREQUEUE));
      List<Browser> users = new ArrayList<>();
      for (int i = 0; i < 120; i++) {
        Browser b = h.browser();
        JsonNode j = json(b.get("/", "Accept", "application/json"));
        assertThat(j.get("isPrequeue").asBoolean()).isTrue();
        JsonNode receipt = j.get("drawReceipt");
        assertThat(receipt.get("commitment").asText()).isEqualTo(commitment);
        assertThat(receipt.get("ticket").asText()).matches("[0-9]+");
        // no place before the draw: it would tell a client which of its tickets to keep
        assertThat(receipt.has("place")).isFalse();
        users.add(b);
        h.scheduler.advance(Duration.ofSeconds(2)); // 10:05:00 .. 10:09:00
        if (i % 20 == 19) {
          h.report("shop");
        }
      }
      // the pre-queue keeps refreshing, as its pages do (a ticket silent for queueTimeoutMinutes
      // would start over, without a place in the shuffle), the last time 30 s before the start
      h.scheduler.advance(Duration.between(h.scheduler.clock().instant(), START.minusSeconds(30)));
      for (Browser b : users) {
        JsonNode j = json(b.get("/", "Accept", "application/json"));
        assertThat(j.get("drawReceipt").has("place")).isFalse();
      }
      h.report("shop");
      // the last moment before the draw: still no secret, the same commitment
      h.scheduler.advance(Duration.between(h.scheduler.clock().instant(), START).minusMillis(1));
      JsonNode justBefore = publishedDraw(h);
      assertThat(justBefore.get("secret").isNull()).isTrue();
      assertThat(justBefore.get("commitment").asText()).isEqualTo(commitment);

      Map<Browser, Instant> admittedAt = new HashMap<>();
      Map<Browser, JsonNode> receipts = new HashMap<>();
      for (int round = 0; round < 60 && admittedAt.size() < users.size(); round++) {
        h.scheduler.advance(Duration.ofSeconds(20));
        h.report("shop");
        Instant now = h.scheduler.clock().instant();
        var waiting = users.stream().filter(u -> !admittedAt.containsKey(u)).toList();
        var answers = new ArrayList<CompletableFuture<HttpResponse<String>>>();
        for (Browser b : waiting) {
          answers.add(b.getAsync("/", "Accept", "application/json"));
        }
        for (int i = 0; i < waiting.size(); i++) {
          HttpResponse<String> r = answers.get(i).join();
          if (Browser.reachedOrigin(r)) {
            admittedAt.put(waiting.get(i), now);
          } else {
            JsonNode receipt = json(r).get("drawReceipt");
            assertThat(receipt).as("the receipt in %s", r.body()).isNotNull();
            assertThat(receipt.get("place").asInt()).isBetween(0, 59);
            receipts.put(waiting.get(i), receipt);
          }
        }
      }
      assertThat(admittedAt).hasSize(users.size());
      assertThat(h.gate("shop").shardCount()).as("workers that decided").isEqualTo(1);

      // after the draw: the secret, which hashes to the commitment published before
      JsonNode after = publishedDraw(h);
      String secret = after.get("secret").asText();
      assertThat(after.get("commitment").asText()).isEqualTo(commitment);
      assertThat(io.anteroom.door.admission.DrawSecrets.commitment(HexFormat.of().parseHex(secret)))
          .isEqualTo(commitment);

      // every user that waited after the start holds a receipt with its place (those let in at
      // their first request after it never waited); verify-draw recomputes them all
      Instant firstRound = START.plusSeconds(20).minusMillis(1);
      long atOnce = admittedAt.values().stream().filter(firstRound::equals).count();
      assertThat(receipts).hasSize(users.size() - (int) atOnce);
      assertThat(receipts.size()).isGreaterThanOrEqualTo(90);
      Path file = dir.resolve("receipts.jsonl");
      var lines = new ArrayList<String>();
      receipts.values().forEach(r -> lines.add(r.toString()));
      Files.write(file, lines);
      var out = new StringWriter();
      var cl = Main.commandLine("verify-draw");
      cl.setOut(new PrintWriter(out, true));
      cl.setErr(new PrintWriter(new StringWriter(), true));
      int exit =
          cl.execute(
              "verify-draw",
              "--secret",
              secret,
              "--commitment",
              commitment,
              "--receipts",
              file.toString());
      assertThat(out.toString())
          .contains("verified: the commitment holds and all " + receipts.size() + " receipts");
      assertThat(exit).isZero();

      // and the places on the receipts are the order the room let people in
      var inOrder = new ArrayList<>(receipts.keySet());
      double[] places =
          inOrder.stream().mapToDouble(b -> receipts.get(b).get("place").asInt()).toArray();
      double[] admissions =
          inOrder.stream().mapToDouble(b -> admittedAt.get(b).toEpochMilli()).toArray();
      assertThat(new SpearmansCorrelation().correlation(places, admissions)).isGreaterThan(0.9);
    }
  }

  @Test
  void aRoomThatDrawsNothingPublishesNoDrawAndItsQueueJsonNoReceipt() throws Exception {
    try (var h = new Harness(dir, "rooms: [ { id: shop, totalActiveUsers: 1 } ]")) {
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue();
      HttpResponse<String> r = h.browser().get(DrawResponder.DRAWS_PATH);
      assertThat(json(r).get("draws")).isEmpty();
      JsonNode queued = json(h.browser().get("/", "Accept", "application/json"));
      assertThat(queued.get("inWaitingRoom").asBoolean()).isTrue();
      assertThat(queued.has("drawReceipt")).isFalse();
    }
  }

  @Test
  void aDrawAddedToARoomIsInTheListAtOnceThoughTheListWasServedBefore() throws Exception {
    try (var h =
        new Harness(dir, "rooms: [ { id: shop, totalActiveUsers: 1, queueingMethod: random } ]")) {
      int hours = json(h.browser().get(DrawResponder.DRAWS_PATH)).get("draws").size();
      assertThat(json(h.browser().get(DrawResponder.DRAWS_PATH)).get("draws")).hasSize(hours);

      var changed =
          h.admin(
              "PUT",
              "/api/rooms/shop",
              """
              {"id": "shop", "totalActiveUsers": 1, "queueingMethod": "random",
               "events": [{"name": "launch", "prequeueStartTime": "2026-11-22T10:05:00Z",
                           "eventStartTime": "2026-11-22T10:10:00Z",
                           "eventEndTime": "2026-11-22T12:00:00Z", "shuffleAtEventStart": true}]}
              """);
      assertThat(changed.statusCode()).as(changed.body()).isEqualTo(200);

      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  json(h.browser().get(DrawResponder.DRAWS_PATH)).get("draws").size() == hours + 1);
    }
  }

  @Test
  void randomQueueingPublishesTheHoursAndItsReceiptsCarryTheMinutesLot() throws Exception {
    try (var h =
        new Harness(dir, "rooms: [ { id: shop, totalActiveUsers: 1, queueingMethod: random } ]")) {
      Instant now = h.scheduler.clock().instant();
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue();
      JsonNode draws = json(h.browser().get(DrawResponder.DRAWS_PATH)).get("draws");
      Map<String, JsonNode> byFrom = new HashMap<>();
      draws.forEach(d -> byFrom.put(d.get("from").asText(), d));
      Draw current = Draw.randomAt("shop", now);
      Draw previous = Draw.randomAt("shop", current.from().minusSeconds(1));
      Draw next = Draw.randomAt("shop", current.revealAt());
      // the current and the next hour: committed, not revealed; the last one: revealed
      assertThat(byFrom.get(current.from().toString()).get("secret").isNull()).isTrue();
      assertThat(byFrom.get(next.from().toString()).get("secret").isNull()).isTrue();
      assertThat(byFrom.get(previous.from().toString()).get("secret").asText())
          .matches("[0-9a-f]{64}");
      assertThat(byFrom.keySet()).noneMatch(f -> Instant.parse(f).isAfter(next.from()));

      Browser b = h.browser();
      b.get("/"); // queued: the first lot comes at the next request
      JsonNode receipt = json(b.get("/", "Accept", "application/json")).get("drawReceipt");
      assertThat(receipt.get("kind").asText()).isEqualTo("random");
      assertThat(receipt.get("from").asText()).isEqualTo(current.from().toString());
      assertThat(receipt.get("commitment").asText())
          .isEqualTo(byFrom.get(current.from().toString()).get("commitment").asText());
      assertThat(receipt.get("minute").asText())
          .isEqualTo(Instant.ofEpochSecond(now.getEpochSecond() / 60 * 60).toString());
      assertThat(receipt.get("lot").asDouble()).isBetween(0.0, 1.0);

      // an hour later the hour's secret is out, and the receipt's lot is what it gives
      h.scheduler.advance(Duration.between(now, current.revealAt()));
      JsonNode revealed = null;
      for (JsonNode d : json(h.browser().get(DrawResponder.DRAWS_PATH)).get("draws")) {
        if (d.get("from").asText().equals(current.from().toString())) {
          revealed = d;
        }
      }
      byte[] secret = HexFormat.of().parseHex(revealed.get("secret").asText());
      assertThat(
              current.lot(
                  Draw.lotteryOf(secret),
                  Long.parseUnsignedLong(receipt.get("ticket").asText()),
                  Draw.minuteOf(now)))
          .isEqualTo(receipt.get("lot").asDouble());
    }
  }
}
