package io.anteroom.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.anteroom.door.Door;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The queue page's push, black-box through the public listener on virtual time: a waiting user's
 * held poll is answered as soon as a room state lets its bucket enter (the report that carries the
 * freed slot, no refresh interval later), never admits by itself, wakes no more users than there
 * are slots, and costs its place among the held polls only while it is held.
 */
class QueuePushTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ROOM =
      "rooms: [ { id: shop, totalActiveUsers: 1, sessionDurationMinutes: 1 } ]";

  @TempDir Path dataDir;

  /** The {@code lastUpdated} of the queue JSON this waiting user gets now, in epoch ms. */
  private static long seen(Browser user) throws Exception {
    HttpResponse<String> r = user.get("/", "Accept", "application/json");
    assertThat(Browser.reachedOrigin(r)).as("queued").isFalse();
    JsonNode j = JSON.readTree(r.body());
    assertThat(j.get("inWaitingRoom").asBoolean()).isTrue();
    return Instant.parse(j.get("lastUpdated").asText()).toEpochMilli();
  }

  private static CompletableFuture<HttpResponse<String>> watch(Browser user, long seen) {
    return user.getAsync("/", "Accept", "application/json", Door.WATCH_HEADER, Long.toString(seen));
  }

  private static void awaitHeld(Harness h, int n) {
    await().atMost(Duration.ofSeconds(10)).until(() -> h.gateway.heldPolls().held() == n);
  }

  /**
   * Virtual time passes with the gateway's reports until the first user's session is over: it ends
   * a minute after its last request, and the room releases the sessions ending in a minute over
   * that minute (one session: at its end).
   */
  private static void endTheFirstSession(Harness h) throws Exception {
    for (int step = 0; step < 6; step++) { // 10:00:05 + 120 s
      h.scheduler.advance(Duration.ofSeconds(20));
      h.report("shop");
    }
  }

  @Test
  void aHeldPollIsToldToEnterByTheReportThatFreesASlotAndTheReloadEnters() throws Exception {
    try (var h = new Harness(dataDir, ROOM)) {
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue(); // the only place
      Browser waiting = h.browser();
      long seen = seen(waiting);
      h.report("shop");
      int originRequests = h.origin.requests.get();

      var poll = watch(waiting, seen);
      awaitHeld(h, 1);
      assertThat(h.admin("GET", "/metrics", null).body())
          .contains("anteroom_push_held_polls 1.0", "anteroom_push_max_held_polls 10000.0");
      h.scheduler.advance(Duration.ofSeconds(50));
      h.report("shop");
      assertThat(poll).as("no slot yet: still held").isNotDone();

      h.scheduler.advance(Duration.ofSeconds(70)); // 10:02:05: the first session is over
      h.report("shop"); // the state with the free slot
      HttpResponse<String> told = poll.get(10, java.util.concurrent.TimeUnit.SECONDS);

      assertThat(told.statusCode()).isEqualTo(200);
      assertThat(JSON.readTree(told.body()).get("enter").asBoolean()).isTrue();
      assertThat(told.headers().allValues("set-cookie")).as("the push sets no cookie").isEmpty();
      assertThat(told.headers().firstValue("cache-control")).contains("no-store");
      assertThat(h.origin.requests.get())
          .as("the poll never reaches the origin")
          .isEqualTo(originRequests);
      assertThat(h.gateway.heldPolls().held()).isZero();

      assertThat(Browser.reachedOrigin(waiting.get("/")))
          .as("the page's reload is let in through the door")
          .isTrue();
    }
  }

  @Test
  void aDeletedRoomsHeldPollIsAnsweredNotYetAtOnce() throws Exception {
    try (var h = new Harness(dataDir, ROOM)) {
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue();
      Browser waiting = h.browser();
      var poll = watch(waiting, seen(waiting));
      awaitHeld(h, 1);

      assertThat(h.admin("DELETE", "/api/rooms/shop", null).statusCode()).isEqualTo(204);

      HttpResponse<String> told = poll.get(10, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(told.statusCode()).isEqualTo(200);
      assertThat(JSON.readTree(told.body()).get("enter").asBoolean())
          .as("answered 'not yet': the page's next refresh finds out what became of the room")
          .isFalse();
      assertThat(h.gateway.heldPolls().held()).isZero();
    }
  }

  @Test
  void thePushNeverAdmitsByItself() throws Exception {
    try (var h = new Harness(dataDir, ROOM)) {
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue();
      Browser waiting = h.browser();
      long seen = seen(waiting);
      String waitingTicket = waiting.cookieHeader();
      var poll = watch(waiting, seen);
      awaitHeld(h, 1);

      endTheFirstSession(h);
      assertThat(
              JSON.readTree(poll.get(10, java.util.concurrent.TimeUnit.SECONDS).body())
                  .get("enter")
                  .asBoolean())
          .isTrue();
      h.report("shop");
      h.report("shop");

      assertThat(waiting.cookieHeader()).as("still the waiting ticket").isEqualTo(waitingTicket);
      assertThat(h.gate("shop").lastState().activeUsers())
          .as("nobody was let in by the push: the freed slot is still free")
          .isZero();
      // a poll with an admitted-looking but forged cookie gets nothing either
      Browser forger = h.browser();
      forger.cookies.put("__anteroom_shop", "forged");
      HttpResponse<String> forged = watch(forger, 0).join();
      assertThat(JSON.readTree(forged.body()).get("push").asBoolean()).isFalse();
      assertThat(forged.headers().allValues("set-cookie")).isEmpty();
    }
  }

  @Test
  void oneFreeSlotWakesOneOfTwoWaitingUsersOfABucket() throws Exception {
    try (var h = new Harness(dataDir, ROOM)) {
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue();
      Browser first = h.browser();
      Browser second = h.browser();
      var one = watch(first, seen(first));
      awaitHeld(h, 1);
      var two = watch(second, seen(second));
      awaitHeld(h, 2);

      for (int step = 0; step < 12 && h.gateway.heldPolls().held() == 2; step++) {
        h.scheduler.advance(Duration.ofSeconds(10));
        h.report("shop");
      }

      assertThat(
              JSON.readTree(one.get(10, java.util.concurrent.TimeUnit.SECONDS).body())
                  .get("enter")
                  .asBoolean())
          .as("the poll held first")
          .isTrue();
      assertThat(two).as("no slot for the second: still held").isNotDone();
      assertThat(h.gateway.heldPolls().held()).isEqualTo(1);

      assertThat(Browser.reachedOrigin(first.get("/"))).as("the woken user's reload").isTrue();
      h.report("shop");
      h.scheduler.advance(Duration.ofSeconds(5));
      h.report("shop");
      assertThat(two).as("the slot is taken: the second stays held").isNotDone();
    }
  }

  @Test
  void beyondMaxHeldPollsAPollIsRefusedAndItsPageKeepsRefreshing() throws Exception {
    try (var h = new Harness(dataDir, "maxHeldPolls: 1\n" + ROOM)) {
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue();
      Browser first = h.browser();
      Browser second = h.browser();
      var held = watch(first, seen(first));
      awaitHeld(h, 1);

      HttpResponse<String> refused = watch(second, seen(second)).join();

      assertThat(refused.statusCode()).isEqualTo(503);
      assertThat(refused.headers().firstValue("retry-after")).isPresent();
      assertThat(JSON.readTree(refused.body()).get("push").asBoolean()).isFalse();
      assertThat(held).isNotDone();
      assertThat(seen(second)).as("its refresh is served as before").isPositive();
    }
  }

  @Test
  void aClientThatLeavesFreesItsPlaceAtOnce() throws Exception {
    try (var h = new Harness(dataDir, ROOM)) {
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue();
      Browser waiting = h.browser();
      long seen = seen(waiting);
      var client = Browser.newClient();
      try {
        var leaving = new Browser(client, h.url(), waiting.cookies);
        watch(leaving, seen);
        awaitHeld(h, 1);
      } finally {
        client.shutdownNow(); // closes its connections
      }
      awaitHeld(h, 0);
    }
  }

  @Test
  void aPollWithoutAWaitingTicketIsToldToKeepRefreshingAndIsNeverProxied() throws Exception {
    try (var h = new Harness(dataDir, ROOM)) {
      int before = h.origin.requests.get();
      HttpResponse<String> r = watch(h.browser(), 0).join();

      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(JSON.readTree(r.body()).get("push").asBoolean()).isFalse();
      assertThat(h.origin.requests.get()).isEqualTo(before);
      assertThat(h.gateway.heldPolls().held()).isZero();
    }
  }
}
