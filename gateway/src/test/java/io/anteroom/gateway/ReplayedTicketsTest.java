package io.anteroom.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.room.TicketLedger;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Copied and replayed cookies, black-box over real sockets: a ticket admits one client, a revoke
 * frees one slot, a stale cookie moves its count once. Each test reproduces an attack that worked
 * before tickets had ids (see {@code docs/security.md}).
 */
class ReplayedTicketsTest {

  private static final String COOKIE = "__anteroom_shop";

  @TempDir Path dataDir;

  @Test
  void aQueuedCookieCopiedIntoThirtyClientsAdmitsOneOfThem() throws Exception {
    try (var h =
        new Harness(
            dataDir, "rooms: [ { id: shop, totalActiveUsers: 3, sessionDurationMinutes: 1 } ]")) {
      for (int i = 0; i < 3; i++) {
        assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue(); // the room is full
      }
      Browser queued = h.browser();
      assertThat(Browser.reachedOrigin(queued.get("/"))).isFalse();
      String queuedCookie = queued.cookies.get(COOKIE);
      var clones = new ArrayList<Browser>();
      for (int i = 0; i < 30; i++) {
        Browser clone = h.browser();
        clone.cookies.put(COOKIE, queuedCookie);
        clones.add(clone);
      }
      // the queued page refreshes every 20 s (so its bucket counts it); the three sessions end:
      // three slots free, the queued user's bucket is whole
      for (int i = 0; i < 4; i++) {
        h.scheduler.advance(Duration.ofSeconds(20));
        h.report("shop");
        if (i < 3) {
          assertThat(Browser.reachedOrigin(queued.get("/"))).isFalse();
        }
      }

      var everyone = new ArrayList<Browser>(clones);
      everyone.add(queued);
      List<Browser> inFirstRound = admitted(everyone);

      assertThat(inFirstRound).hasSize(1);
      // a clone that lost the race is shown the queue and keeps its cookie (a tab of the winner
      // would now send the admitted cookie its jar got)
      Browser loser = everyone.stream().filter(b -> !inFirstRound.contains(b)).findFirst().get();
      assertThat(loser.cookies.get(COOKIE)).isEqualTo(queuedCookie);

      // later the copies are new arrivals: they share the two slots left with anyone else new
      h.scheduler.advance(TicketLedger.RACE_GRACE.plusSeconds(1));
      h.report("shop");
      everyone.remove(inFirstRound.get(0));
      List<Browser> later = admitted(everyone);
      assertThat(later.size())
          .as("distinct clients admitted beyond the limit")
          .isLessThanOrEqualTo(2);
      assertThat(loser.cookies.get(COOKIE)).isNotEqualTo(queuedCookie);
    }
  }

  @Test
  void aTabRacingItsOwnAdmissionKeepsTheAdmittedCookie() throws Exception {
    try (var h =
        new Harness(
            dataDir, "rooms: [ { id: shop, totalActiveUsers: 3, sessionDurationMinutes: 1 } ]")) {
      for (int i = 0; i < 3; i++) {
        assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue();
      }
      Browser person = h.browser();
      assertThat(Browser.reachedOrigin(person.get("/"))).isFalse();
      String queuedCookie = person.cookies.get(COOKIE);
      h.scheduler.advance(Duration.ofSeconds(80));
      h.report("shop");

      // tab 1 is admitted; tab 2's request left with the queued cookie before tab 1's answer
      assertThat(Browser.reachedOrigin(person.get("/"))).isTrue();
      String admittedCookie = person.cookies.get(COOKIE);
      Browser tab2 = h.browser();
      tab2.cookies.put(COOKIE, queuedCookie);
      HttpResponse<String> raced = tab2.get("/");

      assertThat(Browser.reachedOrigin(raced)).isFalse();
      assertThat(raced.headers().allValues("set-cookie")).noneMatch(c -> c.startsWith(COOKIE));
      // the jar still holds the admitted cookie, and both tabs go on with it
      assertThat(Browser.reachedOrigin(person.get("/"))).isTrue();
      assertThat(person.cookies.get(COOKIE)).isNotEqualTo(queuedCookie);
      assertThat(admittedCookie).isNotNull();
    }
  }

  @Test
  void replayingARevokeFreesOneSlot() throws Exception {
    try (var h = new Harness(dataDir, "rooms: [ { id: shop, totalActiveUsers: 3 } ]")) {
      Browser leaver = h.browser();
      assertThat(Browser.reachedOrigin(leaver.get("/"))).isTrue();
      String original = leaver.cookies.get(COOKIE);
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue();
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue(); // full

      assertThat(Browser.reachedOrigin(leaver.get("/revoke"))).isTrue(); // logs out: one slot
      for (int i = 0; i < 30; i++) {
        Browser replay = h.browser();
        replay.cookies.put(COOKIE, original);
        replay.get("/revoke");
      }
      // the next minute: a new minute's newcomers, the state counts every report
      h.scheduler.advance(Duration.ofSeconds(60));
      h.report("shop");
      h.report("shop");

      // one logout, one slot: two sessions still count, however often the logout is replayed
      assertThat(h.gate("shop").status(h.scheduler.clock().millis()).estimatedTotalActiveUsers())
          .isEqualTo(2);
      int newcomersIn = 0;
      for (int i = 0; i < 3; i++) {
        newcomersIn += Browser.reachedOrigin(h.browser().get("/")) ? 1 : 0;
      }
      // (a room the replays had emptied admits all three; a worker's share may round one up)
      assertThat(newcomersIn).as("newcomers admitted after one logout").isLessThan(3);
    }
  }

  @Test
  void replayingAStaleCookieTwoThousandTimesCountsOneUser() throws Exception {
    try (var h =
        new Harness(
            dataDir, "rooms: [ { id: shop, totalActiveUsers: 5, sessionDurationMinutes: 1 } ]")) {
      Browser user = h.browser();
      assertThat(Browser.reachedOrigin(user.get("/"))).isTrue(); // 10:00:05
      String first = user.cookies.get(COOKIE);
      h.scheduler.advance(Duration.ofSeconds(57)); // 10:01:02: the next minute, session valid

      for (int i = 0; i < 2000; i++) {
        Browser replay = h.browser();
        replay.cookies.put(COOKIE, first);
        assertThat(Browser.reachedOrigin(replay.get("/"))).isTrue(); // sharing stays possible
      }
      h.scheduler.advance(Duration.ofSeconds(5));
      h.report("shop");

      assertThat(h.gate("shop").status(h.scheduler.clock().millis()).estimatedTotalActiveUsers())
          .isEqualTo(1);
      int newcomersIn = 0;
      for (int i = 0; i < 4; i++) {
        newcomersIn += Browser.reachedOrigin(h.browser().get("/")) ? 1 : 0;
      }
      // (the room holds back one slot for admissions the state may not count yet)
      assertThat(newcomersIn).isGreaterThanOrEqualTo(3);
    }
  }

  private static List<Browser> admitted(List<Browser> browsers) {
    var in = new ArrayList<Browser>();
    for (Browser b : browsers) {
      if (Browser.reachedOrigin(b.get("/"))) {
        in.add(b);
      }
    }
    return in;
  }
}
