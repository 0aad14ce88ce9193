package io.anteroom.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CoordinatorTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dataDir;

  private static long admittedOf(List<CompletableFuture<HttpResponse<String>>> responses) {
    return responses.stream().map(CompletableFuture::join).filter(Browser::reachedOrigin).count();
  }

  @Test
  void twoGatewaysInTwoDataCentersOnOneCoordinatorHoldTheGlobalLimit() throws Exception {
    var clock = new MutableClock(Harness.START);
    var coordinator = new CoordinatorServer(new LocalCoordination(clock), "127.0.0.1", 0);
    var remote = new HttpCoordination(java.net.URI.create("http://127.0.0.1:" + coordinator.port()),
        Duration.ofSeconds(5));
    String room = "rooms: [ { id: shop, totalActiveUsers: 20 } ]";
    try (var dublin = new Harness(dataDir.resolve("a"), room, new TestOrigin(), clock, remote,
            "dublin");
        var nairobi = new Harness(dataDir.resolve("b"), room, new TestOrigin(), clock, remote,
            "nairobi")) {
      var responses = new ArrayList<CompletableFuture<HttpResponse<String>>>();
      for (int i = 0; i < 60; i++) {
        responses.add((i % 2 == 0 ? dublin : nairobi).browser().getAsync("/"));
      }
      assertThat(admittedOf(responses)).isEqualTo(20);
      assertThat(dublin.origin.requests.get() + nairobi.origin.requests.get()).isEqualTo(20);

      // after both report, each data center sees the other's users
      dublin.report("shop");
      nairobi.report("shop");
      dublin.report("shop");
      var more = new ArrayList<CompletableFuture<HttpResponse<String>>>();
      for (int i = 0; i < 20; i++) {
        more.add((i % 2 == 0 ? dublin : nairobi).browser().getAsync("/"));
      }
      assertThat(admittedOf(more)).as("the site is full across both data centers").isZero();
      var st = JSON.readTree(dublin.admin("GET", "/api/rooms/shop/status", null).body());
      assertThat(st.get("estimatedTotalActiveUsers").asLong()).isEqualTo(20);
    } finally {
      remote.close();
      coordinator.close();
    }
  }

  private Harness edge(MutableClock clock, HttpCoordination remote, String failMode)
      throws Exception {
    return new Harness(dataDir.resolve(failMode), """
        rooms: [ { id: shop, totalActiveUsers: 10, failMode: %s } ]""".formatted(failMode),
        new TestOrigin(), clock, remote, "dc1");
  }

  @Test
  void whenTheCoordinatorIsDownAdmittedUsersStayAndNewUsersFollowTheFailMode() throws Exception {
    var clock = new MutableClock(Harness.START);
    var coordination = new LocalCoordination(clock);
    var coordinator = new CoordinatorServer(coordination, "127.0.0.1", 0);
    int port = coordinator.port();
    var remote = new HttpCoordination(java.net.URI.create("http://127.0.0.1:" + port),
        Duration.ofSeconds(2));
    try (var degrade = edge(clock, remote, "degrade");
        var open = edge(clock, remote, "open");
        var closed = edge(clock, remote, "closed")) {
      var insiders = new ArrayList<Browser>();
      for (Harness h : List.of(degrade, open, closed)) {
        Browser b = h.browser();
        assertThat(Browser.reachedOrigin(b.get("/"))).isTrue();
        insiders.add(b);
        h.report("shop");
      }
      coordinator.close();
      for (Harness h : List.of(degrade, open, closed)) {
        h.report("shop"); // fails: the gateway notices
        var st = JSON.readTree(h.admin("GET", "/api/rooms/shop/status", null).body());
        assertThat(st.get("degraded").asBoolean()).isTrue();
      }
      for (Browser b : insiders) {
        assertThat(Browser.reachedOrigin(b.get("/"))).as("admitted users keep being served")
            .isTrue();
      }
      // degrade: even split of the last known state (one worker shard reporting: up to 9 more)
      var newcomers = new ArrayList<CompletableFuture<HttpResponse<String>>>();
      for (int i = 0; i < 12; i++) {
        newcomers.add(degrade.browser().getAsync("/"));
      }
      long degradedIn = admittedOf(newcomers);
      assertThat(degradedIn).isGreaterThan(0).isLessThanOrEqualTo(9);
      assertThat(Browser.reachedOrigin(open.browser().get("/"))).as("open lets through").isTrue();
      assertThat(Browser.reachedOrigin(closed.browser().get("/"))).as("closed queues").isFalse();

      // the coordinator comes back on the same address, empty: gateways re-announce and recover
      var again = new CoordinatorServer(new LocalCoordination(clock), "127.0.0.1", port);
      try {
        closed.report("shop");
        var st = JSON.readTree(closed.admin("GET", "/api/rooms/shop/status", null).body());
        assertThat(st.get("degraded").asBoolean()).isFalse();
        assertThat(Browser.reachedOrigin(closed.browser().get("/"))).isTrue();
      } finally {
        again.close();
      }
    } finally {
      remote.close();
    }
  }
}
