package io.anteroom.gateway.edge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.anteroom.gateway.Harness;
import io.anteroom.gateway.TestOrigin;
import io.anteroom.objects.ManualScheduler;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No cheap denial of service on the public and admin listeners: a client cannot hold a connection
 * without sending a request head in time (slowloris), nor open more connections than the cap.
 * Deadlines are short here and every wait is on the socket (end of stream), bounded by {@link
 * Wire#READ_TIMEOUT_MILLIS}, far above the deadlines and far below the defaults' idle timeouts.
 */
class ListenerLimitsTest {

  @TempDir Path dataDir;

  private static final String ROOM = "rooms: [ { id: shop } ]\n";

  private static final String PARTIAL_HEAD = "GET /slow HTTP/1.1\r\nHost: shop\r\nX-Slow: 1";

  private Harness gateway(String topLevel, String adminKeys) throws Exception {
    return new Harness(
        dataDir,
        ROOM + topLevel,
        new TestOrigin(),
        new ManualScheduler(Harness.START),
        null,
        "dc1",
        2, // two event loops share one connection cap
        adminKeys);
  }

  @Test
  void thePublicListenerClosesAConnectionThatSendsNothing() throws Exception {
    try (var h = gateway("requestHeadTimeoutMillis: 300", "");
        var silent = new Wire(h.gateway.port())) {
      assertThat(silent.closedByServer()).isTrue();
    }
  }

  @Test
  void thePublicListenerClosesAConnectionWhoseHeadNeverEnds() throws Exception {
    try (var h = gateway("requestHeadTimeoutMillis: 300", "");
        var slow = new Wire(h.gateway.port())) {
      slow.send(PARTIAL_HEAD);
      assertThat(slow.closedByServer()).isTrue();
      assertThat(h.origin.received).isEmpty();
    }
  }

  @Test
  void aKeepAliveConnectionMustSendItsNextHeadInTime() throws Exception {
    try (var h = gateway("requestHeadTimeoutMillis: 300", "");
        var client = new Wire(h.gateway.port())) {
      assertThat(client.send(Wire.get("/first", "shop")).read().body()).isEqualTo("origin:/first:");
      client.send(PARTIAL_HEAD);
      assertThat(client.closedByServer()).isTrue();
    }
  }

  @Test
  void aRequestWaitingForItsOriginLongerThanTheHeadDeadlineIsStillAnswered() throws Exception {
    // the origin never answers /hang: the gateway's origin timeout (1 s here) answers 504
    try (var h = gateway("requestHeadTimeoutMillis: 300", "");
        var client = new Wire(h.gateway.port())) {
      assertThat(client.send(Wire.get("/hang", "shop")).read().status()).isEqualTo(504);
    }
  }

  @Test
  void theAdminListenerClosesAConnectionThatSendsNothing() throws Exception {
    try (var h = gateway("", "requestHeadTimeoutMillis: 300");
        var silent = new Wire(h.gateway.adminPort())) {
      assertThat(silent.closedByServer()).isTrue();
    }
  }

  @Test
  void theAdminListenerClosesAKeepAliveConnectionWhoseNextHeadIsLate() throws Exception {
    try (var h = gateway("", "requestHeadTimeoutMillis: 300");
        var client = new Wire(h.gateway.adminPort())) {
      String rooms =
          "GET /api/rooms HTTP/1.1\r\nHost: admin\r\nAuthorization: Bearer " + h.token + "\r\n\r\n";
      assertThat(client.send(rooms).read().status()).isEqualTo(200);
      client.send("GET /health HTTP/1.1\r\nHost: ad");
      assertThat(client.closedByServer()).isTrue();
    }
  }

  @Test
  void theAdminListenerClosesAnIdleConnection() throws Exception {
    try (var h = gateway("", "idleTimeoutSeconds: 1, requestHeadTimeoutMillis: 600000");
        var client = new Wire(h.gateway.adminPort())) {
      assertThat(client.send(Wire.get("/health", "admin")).read().body()).isEqualTo("ok\n");
      assertThat(client.closedByServer()).isTrue();
    }
  }

  @Test
  void thePublicListenerClosesAnIdleConnection() throws Exception {
    try (var h = gateway("idleTimeoutSeconds: 1\nrequestHeadTimeoutMillis: 600000", "");
        var client = new Wire(h.gateway.port())) {
      client.send(PARTIAL_HEAD);
      assertThat(client.closedByServer()).isTrue();
    }
  }

  @Test
  void thePublicListenerClosesConnectionsAboveItsCapAndCountsClosedOnesExactly() throws Exception {
    try (var h = gateway("maxConnections: 2", "");
        var first = new Wire(h.gateway.port());
        var second = new Wire(h.gateway.port())) {
      assertThat(first.send(Wire.get("/1", "shop")).read().status()).isEqualTo(200);
      assertThat(second.send(Wire.get("/2", "shop")).read().status()).isEqualTo(200);
      try (var third = new Wire(h.gateway.port())) {
        third.send(Wire.get("/3", "shop"));
        assertThat(third.closedByServer()).isTrue();
      }
      assertThat(h.origin.received).noneMatch(r -> r.endsWith(" /3"));
      // the first two still work
      assertThat(first.send(Wire.get("/1b", "shop")).read().status()).isEqualTo(200);
      assertThat(second.send(Wire.get("/2b", "shop")).read().status()).isEqualTo(200);
      // a closed connection gives its place back
      first.close();
      await().atMost(Duration.ofSeconds(20)).until(() -> h.gateway.openPublicConnections() == 1);
      try (var fourth = new Wire(h.gateway.port())) {
        assertThat(fourth.send(Wire.get("/4", "shop")).read().status()).isEqualTo(200);
      }
    }
  }

  @Test
  void theAdminListenerClosesConnectionsAboveItsCap() throws Exception {
    try (var h = gateway("", "maxConnections: 2");
        var first = new Wire(h.gateway.adminPort());
        var second = new Wire(h.gateway.adminPort())) {
      assertThat(first.send(Wire.get("/health", "admin")).read().status()).isEqualTo(200);
      assertThat(second.send(Wire.get("/health", "admin")).read().status()).isEqualTo(200);
      try (var third = new Wire(h.gateway.adminPort())) {
        assertThat(third.closedByServer()).isTrue();
      }
      assertThat(first.send(Wire.get("/ready", "admin")).read().status()).isEqualTo(200);
      assertThat(second.send(Wire.get("/ready", "admin")).read().status()).isEqualTo(200);
      assertThat(h.gateway.openAdminConnections()).isEqualTo(2);
    }
  }
}
