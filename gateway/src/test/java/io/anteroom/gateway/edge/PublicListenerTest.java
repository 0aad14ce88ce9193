package io.anteroom.gateway.edge;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.door.config.GatewayConfig.ConnectionLimits;
import io.anteroom.door.config.GatewayConfig.PublicListenerSettings;
import io.anteroom.door.config.GatewayConfig.TlsFiles;
import io.anteroom.door.config.IoTransport;
import io.anteroom.gateway.Harness;
import io.anteroom.gateway.TestOrigin;
import io.anteroom.objects.ManualScheduler;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The public listener runs one server per event loop on one port, and all of them serve. */
class PublicListenerTest {

  @TempDir Path dataDir;

  private static final String ROOM = "rooms: [ { id: shop, totalActiveUsers: 100 } ]";

  @Test
  void requestsOnSeveralConnectionsAreDecidedOnSeveralEventLoops() throws Exception {
    try (var h =
        new Harness(
            dataDir, ROOM, new TestOrigin(), new ManualScheduler(Harness.START), null, "dc1", 3)) {
      assertThat(h.gateway.publicEventLoops()).isEqualTo(3);
      assertThat(h.gateway.publicPorts()).containsExactly(h.gateway.port());
      // Vert.x hands each new connection to the next server instance in turn
      for (int i = 0; i < 6; i++) {
        String reply =
            ProxyBehaviourTest.raw(
                h.gateway.port(),
                "GET /item/" + i + " HTTP/1.1\r\nHost: shop\r\nConnection: close\r\n\r\n");
        assertThat(reply).startsWith("HTTP/1.1 200").contains("origin:/item/" + i);
      }
      // the room keeps one worker shard per event-loop thread that decided a request
      assertThat(h.gate("shop").shardCount()).isGreaterThan(1);
    }
  }

  @Test
  void eachEventLoopForwardsOverItsOwnOriginConnections() throws Exception {
    try (var h =
        new Harness(
            dataDir, ROOM, new TestOrigin(), new ManualScheduler(Harness.START), null, "dc1", 3)) {
      for (int i = 0; i < 6; i++) {
        assertThat(
                ProxyBehaviourTest.raw(
                    h.gateway.port(),
                    "GET /item/" + i + " HTTP/1.1\r\nHost: shop\r\nConnection: close\r\n\r\n"))
            .startsWith("HTTP/1.1 200");
      }
      // a shared client would hand a request connections of other loops (thread hand-offs)
      var threads = h.defaultProxy().clientThreads();
      assertThat(threads)
          .hasSize(h.gate("shop").shardCount())
          .hasSizeGreaterThan(1)
          .allSatisfy(t -> assertThat(t.getName()).startsWith("vert.x-eventloop-thread"));
    }
  }

  @Test
  void aSingleEventLoopStillServesOnTheSamePortAfterPortZero() throws Exception {
    try (var h =
        new Harness(
            dataDir, ROOM, new TestOrigin(), new ManualScheduler(Harness.START), null, "dc1", 1)) {
      assertThat(h.gateway.publicEventLoops()).isEqualTo(1);
      assertThat(h.gateway.port()).isPositive();
      assertThat(h.browser().get("/a").statusCode()).isEqualTo(200);
      assertThat(h.gate("shop").shardCount()).isEqualTo(1);
    }
  }

  @Test
  void everyPublicListenerWritesResponsesInStrictThreadModeWhateverItsSettings() {
    // the admitted path writes every response on its connection's event loop; strict mode makes
    // Vert.x write straight to the channel (and throw on a write from another thread)
    for (var tls :
        List.of(
            Optional.<TlsFiles>empty(),
            Optional.of(new TlsFiles(dataDir.resolve("c"), dataDir.resolve("k"))))) {
      for (boolean proxyProtocol : new boolean[] {false, true}) {
        var settings =
            new PublicListenerSettings(
                tls, proxyProtocol, ConnectionLimits.PUBLIC, false, IoTransport.AUTO);
        assertThat(PublicListener.options(settings).getStrictThreadMode())
            .as("tls %s, PROXY protocol %s", tls.isPresent(), proxyProtocol)
            .isTrue();
      }
    }
  }
}
