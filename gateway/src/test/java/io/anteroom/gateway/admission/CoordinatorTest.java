package io.anteroom.gateway.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.anteroom.coordinator.CoordinatorServer;
import io.anteroom.coordinator.RoomObjects;
import io.anteroom.door.admission.Coordination;
import io.anteroom.gateway.Browser;
import io.anteroom.gateway.Harness;
import io.anteroom.gateway.TestOrigin;
import io.anteroom.host.ObjectCoordination;
import io.anteroom.objects.ManualScheduler;
import io.anteroom.objects.ObjectId;
import io.anteroom.objects.http.HttpObjectServer;
import io.anteroom.objects.http.HttpObjectTransport;
import io.anteroom.objects.http.SharedSecret;
import io.vertx.core.net.SelfSignedCertificate;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Gateways against a coordinator process's room objects over HTTP (in-process here). */
class CoordinatorTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dataDir;

  private static long admittedOf(List<CompletableFuture<HttpResponse<String>>> responses) {
    return responses.stream().map(CompletableFuture::join).filter(Browser::reachedOrigin).count();
  }

  private static URI uri(HttpObjectServer server) {
    return URI.create("http://127.0.0.1:" + server.actualPort());
  }

  @Test
  void twoGatewaysInTwoDataCentersOnOneCoordinatorHoldTheGlobalLimit() throws Exception {
    var scheduler = new ManualScheduler(Harness.START);
    var runtime = Harness.runtime(scheduler);
    var coordinator = CoordinatorServer.serve(runtime, "127.0.0.1", 0);
    var dublinLink = ObjectCoordination.remote(uri(coordinator), Duration.ofSeconds(5));
    var nairobiLink = ObjectCoordination.remote(uri(coordinator), Duration.ofSeconds(5));
    String room = "rooms: [ { id: shop, totalActiveUsers: 20 } ]";
    try (var dublin =
            new Harness(
                dataDir.resolve("a"), room, new TestOrigin(), scheduler, dublinLink, "dublin");
        var nairobi =
            new Harness(
                dataDir.resolve("b"), room, new TestOrigin(), scheduler, nairobiLink, "nairobi")) {
      var responses = new ArrayList<CompletableFuture<HttpResponse<String>>>();
      for (int i = 0; i < 60; i++) {
        responses.add((i % 2 == 0 ? dublin : nairobi).browser().getAsync("/"));
      }
      assertThat(admittedOf(responses)).isEqualTo(20);
      assertThat(dublin.origin.requests.get() + nairobi.origin.requests.get()).isEqualTo(20);

      // both report; the data centers' alarms carry their aggregates to the global object
      for (int round = 0; round < 3; round++) {
        dublin.report("shop");
        nairobi.report("shop");
        scheduler.advance(Duration.ofSeconds(6));
      }
      dublin.report("shop");
      nairobi.report("shop");
      var more = new ArrayList<CompletableFuture<HttpResponse<String>>>();
      for (int i = 0; i < 20; i++) {
        more.add((i % 2 == 0 ? dublin : nairobi).browser().getAsync("/"));
      }
      assertThat(admittedOf(more)).as("the site is full across both data centers").isZero();
      var st = JSON.readTree(dublin.admin("GET", "/api/rooms/shop/status", null).body());
      assertThat(st.get("estimatedTotalActiveUsers").asLong()).isEqualTo(20);
    } finally {
      dublinLink.close();
      nairobiLink.close();
      coordinator.close();
      runtime.close();
    }
  }

  private static final SharedSecret SECRET = SharedSecret.generate("k1");

  /** Key generation is slow on a shared machine: one certificate for the TLS tests. */
  private static final class Certificate {
    static final SelfSignedCertificate LOCALHOST = SelfSignedCertificate.create("localhost");
  }

  @Test
  void gatewaysHoldingTheDeploymentSecretShareTheRoomOverTls() throws Exception {
    var scheduler = new ManualScheduler(Harness.START);
    var runtime = Harness.runtime(scheduler);
    var cert = Certificate.LOCALHOST;
    var coordinator =
        CoordinatorServer.serve(
            runtime,
            CoordinatorServer.Options.builder("127.0.0.1", 0)
                .secrets(List.of(SECRET))
                .tls(Path.of(cert.certificatePath()), Path.of(cert.privateKeyPath()))
                .build());
    URI uri = URI.create("https://localhost:" + coordinator.actualPort());
    var link =
        ObjectCoordination.remote(
            uri, Duration.ofSeconds(5), SECRET, List.of(Path.of(cert.certificatePath())));
    try (var gw =
        new Harness(
            dataDir,
            "rooms: [ { id: shop, totalActiveUsers: 2 } ]",
            new TestOrigin(),
            scheduler,
            link,
            "dublin")) {
      assertThat(coordinator.authenticated()).isTrue();
      assertThat(Browser.reachedOrigin(gw.browser().get("/"))).isTrue();
      assertThat(Browser.reachedOrigin(gw.browser().get("/"))).isTrue();
      gw.report("shop");
      var st = JSON.readTree(gw.admin("GET", "/api/rooms/shop/status", null).body());
      assertThat(st.get("degraded").asBoolean()).as("reports are accepted").isFalse();
      assertThat(Browser.reachedOrigin(gw.browser().get("/")))
          .as("the counters are shared: the room is full")
          .isFalse();
    } finally {
      link.close();
      coordinator.close();
      runtime.close();
    }
  }

  @Test
  void aGatewayWithAWrongSecretIsRefusedAndItsRoomDegrades() throws Exception {
    var scheduler = new ManualScheduler(Harness.START);
    var runtime = Harness.runtime(scheduler);
    var coordinator =
        CoordinatorServer.serve(
            runtime,
            CoordinatorServer.Options.builder("127.0.0.1", 0).secrets(List.of(SECRET)).build());
    var intruder =
        ObjectCoordination.remote(
            uri(coordinator), Duration.ofSeconds(5), SharedSecret.generate("k1"), List.of());
    var unsigned = ObjectCoordination.remote(uri(coordinator), Duration.ofSeconds(5));
    try (var wrong =
            new Harness(
                dataDir.resolve("wrong"),
                "rooms: [ { id: shop, totalActiveUsers: 2, failMode: closed } ]",
                new TestOrigin(),
                scheduler,
                intruder,
                "dublin");
        var none =
            new Harness(
                dataDir.resolve("none"),
                "rooms: [ { id: shop, totalActiveUsers: 2, failMode: closed } ]",
                new TestOrigin(),
                scheduler,
                unsigned,
                "nairobi")) {
      for (Harness h : List.of(wrong, none)) {
        assertThat(Browser.reachedOrigin(h.browser().get("/")))
            .as("no counter call succeeds: closed queues")
            .isFalse();
        h.report("shop");
        var st = JSON.readTree(h.admin("GET", "/api/rooms/shop/status", null).body());
        assertThat(st.get("degraded").asBoolean()).isTrue();
        // a balancer should prefer gateways that reach their coordinator
        var ready = h.admin("GET", "/ready", null);
        assertThat(ready.statusCode()).isEqualTo(503);
        assertThat(ready.body()).contains("coordinator is unreachable for room(s) shop");
        assertThat(h.admin("GET", "/metrics", null).body())
            .contains("anteroom_room_degraded{room=\"shop\"} 1.0");
      }
    } finally {
      intruder.close();
      unsigned.close();
      coordinator.close();
      runtime.close();
    }
  }

  @Test
  void onlyTheGatewaysRpcSurfaceIsExported() throws Exception {
    var runtime = Harness.runtime(new ManualScheduler(Harness.START));
    var coordinator =
        CoordinatorServer.serve(
            runtime,
            CoordinatorServer.Options.builder("127.0.0.1", 0).secrets(List.of(SECRET)).build());
    try (var transport = HttpObjectTransport.builder(uri(coordinator)).secret(SECRET).build()) {
      var call =
          transport.call(
              RoomObjects.GLOBAL_NAMESPACE,
              ObjectId.fromName(RoomObjects.GLOBAL_NAMESPACE, "shop"),
              "report",
              new byte[0]);
      assertThatThrownBy(call::join).hasMessageContaining("HTTP 404");
    } finally {
      coordinator.close();
      runtime.close();
    }
  }

  private Harness edge(ManualScheduler scheduler, Coordination link, String failMode)
      throws Exception {
    // two event loops: the degrade bound below is one even-split share for the whole process,
    // however many loops decide (one shared fallback worker, not one per loop); each gateway
    // keeps its own fail mode for the room, so none follows the deployment's room documents
    return new Harness(
        dataDir.resolve(failMode),
        """
        rooms: [ { id: shop, totalActiveUsers: 10, failMode: %s } ]"""
            .formatted(failMode),
        new TestOrigin(),
        scheduler,
        Harness.withoutRoomDocuments(link),
        "dc1",
        2);
  }

  private static boolean degraded(Harness h) throws Exception {
    return JSON.readTree(h.admin("GET", "/api/rooms/shop/status", null).body())
        .get("degraded")
        .asBoolean();
  }

  @Test
  void whenTheCoordinatorIsDownAdmittedUsersStayAndNewUsersFollowTheFailMode() throws Exception {
    var scheduler = new ManualScheduler(Harness.START);
    var runtime = Harness.runtime(scheduler);
    var coordinator = CoordinatorServer.serve(runtime, "127.0.0.1", 0);
    int port = coordinator.actualPort();
    var links = new ArrayList<ObjectCoordination>();
    for (int i = 0; i < 3; i++) {
      links.add(ObjectCoordination.remote(uri(coordinator), Duration.ofSeconds(2)));
    }
    try (var degrade = edge(scheduler, links.get(0), "degrade");
        var open = edge(scheduler, links.get(1), "open");
        var closed = edge(scheduler, links.get(2), "closed")) {
      var insiders = new ArrayList<Browser>();
      for (Harness h : List.of(degrade, open, closed)) {
        Browser b = h.browser();
        assertThat(Browser.reachedOrigin(b.get("/"))).isTrue();
        insiders.add(b);
        // the premise of the degrade bound below: the last known state holds the insider. A
        // first call may outlast the link's 2 s timeout on a busy machine: report again then
        for (int attempt = 0; attempt < 5 && (attempt == 0 || degraded(h)); attempt++) {
          h.report("shop");
        }
        assertThat(degraded(h)).as("the coordinator answered a report").isFalse();
      }
      coordinator.close();
      runtime.close();
      for (Harness h : List.of(degrade, open, closed)) {
        h.report("shop"); // fails: the gateway notices
        var st = JSON.readTree(h.admin("GET", "/api/rooms/shop/status", null).body());
        assertThat(st.get("degraded").asBoolean()).isTrue();
        // a balancer should prefer gateways that reach their coordinator
        var ready = h.admin("GET", "/ready", null);
        assertThat(ready.statusCode()).isEqualTo(503);
        assertThat(ready.body()).contains("coordinator is unreachable for room(s) shop");
        assertThat(h.admin("GET", "/metrics", null).body())
            .contains("anteroom_room_degraded{room=\"shop\"} 1.0");
      }
      for (Browser b : insiders) {
        assertThat(Browser.reachedOrigin(b.get("/")))
            .as("admitted users keep being served")
            .isTrue();
      }
      // degrade: even split of the last known state, no counter calls
      var newcomers = new ArrayList<CompletableFuture<HttpResponse<String>>>();
      for (int i = 0; i < 12; i++) {
        newcomers.add(degrade.browser().getAsync("/"));
      }
      assertThat(admittedOf(newcomers)).isGreaterThan(0).isLessThanOrEqualTo(9);
      assertThat(Browser.reachedOrigin(open.browser().get("/"))).as("open lets through").isTrue();
      assertThat(Browser.reachedOrigin(closed.browser().get("/"))).as("closed queues").isFalse();

      // the coordinator comes back on the same address (empty): the gateways recover
      var runtime2 = Harness.runtime(scheduler);
      var again = CoordinatorServer.serve(runtime2, "127.0.0.1", port);
      try {
        closed.report("shop");
        var st = JSON.readTree(closed.admin("GET", "/api/rooms/shop/status", null).body());
        assertThat(st.get("degraded").asBoolean()).isFalse();
        assertThat(closed.admin("GET", "/ready", null).statusCode()).isEqualTo(200);
        // new users wait W = r_w + 2 r_dc (15 s) before counters are drawn again, so that other
        // gateways back from the same outage have charged what they admitted without them
        assertThat(Browser.reachedOrigin(closed.browser().get("/")))
            .as("a new user right after the recovery")
            .isFalse();
        scheduler.advance(Duration.ofSeconds(16));
        closed.report("shop");
        assertThat(Browser.reachedOrigin(closed.browser().get("/")))
            .as("a new user once W has passed")
            .isTrue();
      } finally {
        again.close();
        runtime2.close();
      }
    } finally {
      links.forEach(ObjectCoordination::close);
    }
  }
}
