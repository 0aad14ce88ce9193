package io.anteroom.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.commons.math3.stat.correlation.SpearmansCorrelation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A scheduled event through the real gateway on loopback, in virtual time: 200 browsers join the
 * pre-queue one by one; nobody reaches the origin before the start; after it they get in within the
 * limits, in an order unrelated to their arrival.
 */
class EventPrequeueEndToEndTest {
  @TempDir Path dataDir;

  static final String ROOM =
      """
      rooms:
        - id: shop
          totalActiveUsers: 1000
          newUsersPerMinute: 20
          sessionDurationMinutes: 60
          events:
            - name: launch
              prequeueStartTime: 2026-11-22T10:00:00Z
              eventStartTime: 2026-11-22T10:10:00Z
              eventEndTime: 2026-11-22T12:00:00Z
              shuffleAtEventStart: true
      """;

  static final Instant START = Instant.parse("2026-11-22T10:10:00Z");

  @Test
  void aPrequeueOf200IsHeldUntilTheStartThenAdmittedInShuffledOrderWithinTheLimits()
      throws Exception {
    try (var h = new Harness(dataDir, ROOM)) {
      List<Browser> users = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        Browser b = h.browser();
        HttpResponse<String> first = b.get("/");
        assertThat(Browser.reachedOrigin(first)).isFalse();
        assertThat(first.body()).contains("launch opens at 10:10:00 UTC");
        users.add(b);
        h.scheduler.advance(
            Duration.ofSeconds(1)); // arrival order: index order, 10:00:05..10:03:25
        if (i % 20 == 19) {
          h.report("shop");
        }
      }
      Map<Browser, Instant> admittedAt = new HashMap<>();
      Map<Long, Integer> perMinute = new HashMap<>();
      // every 20 s each waiting browser refreshes; the gateway reports before each round
      for (int round = 0; round < 80 && admittedAt.size() < users.size(); round++) {
        h.scheduler.advance(Duration.ofSeconds(20));
        h.report("shop");
        Instant now = h.scheduler.clock().instant();
        var waiting = users.stream().filter(u -> !admittedAt.containsKey(u)).toList();
        var answers = new ArrayList<CompletableFuture<HttpResponse<String>>>();
        for (Browser b : waiting) {
          answers.add(b.getAsync("/"));
        }
        for (int i = 0; i < waiting.size(); i++) {
          if (Browser.reachedOrigin(answers.get(i).join())) {
            admittedAt.put(waiting.get(i), now);
            perMinute.merge(now.getEpochSecond() / 60, 1, Integer::sum);
          }
        }
        if (now.isBefore(START)) {
          assertThat(admittedAt).as("admitted before the start at %s", now).isEmpty();
          assertThat(h.origin.requests.get()).isZero();
        }
      }
      assertThat(admittedAt).hasSize(200);
      assertThat(admittedAt.values()).allSatisfy(t -> assertThat(t).isAfterOrEqualTo(START));
      assertThat(perMinute.values()).allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(20));

      // not arrival order: the rank correlation of arrival and admission is near 0 (|rho| for 200
      // independent ranks is below 0.3 with probability > 0.99998); FIFO would give about 1
      double[] arrival = new double[200];
      double[] admission = new double[200];
      for (int i = 0; i < 200; i++) {
        arrival[i] = i;
        admission[i] = admittedAt.get(users.get(i)).toEpochMilli();
      }
      assertThat(Math.abs(new SpearmansCorrelation().correlation(arrival, admission)))
          .isLessThan(0.3);
    }
  }

  @Test
  void thePrequeueJsonSaysWhenTheEventOpens() throws Exception {
    try (var h = new Harness(dataDir, ROOM)) {
      JsonNode j =
          new ObjectMapper().readTree(h.browser().get("/", "Accept", "application/json").body());
      assertThat(j.get("inWaitingRoom").asBoolean()).isTrue();
      assertThat(j.get("isPrequeue").asBoolean()).isTrue();
      assertThat(j.get("eventName").asText()).isEqualTo("launch");
      assertThat(j.get("eventStartTime").asText()).isEqualTo("2026-11-22T10:10:00Z");
      assertThat(j.get("secondsUntilEventStart").asLong()).isEqualTo(595);
      assertThat(j.get("isRandomQueue").asBoolean()).isFalse();
    }
  }

  @Test
  void aRandomRoomSaysSoInItsJson() throws Exception {
    try (var h =
        new Harness(
            dataDir, "rooms: [ { id: shop, totalActiveUsers: 1, queueingMethod: random } ]")) {
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue();
      JsonNode j =
          new ObjectMapper().readTree(h.browser().get("/", "Accept", "application/json").body());
      assertThat(j.get("queueingMethod").asText()).isEqualTo("random");
      assertThat(j.get("isRandomQueue").asBoolean()).isTrue();
      assertThat(j.get("isFIFOQueue").asBoolean()).isFalse();
      assertThat(j.has("isPrequeue")).isFalse();
    }
  }
}
