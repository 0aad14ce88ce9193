package io.anteroom.gateway.edge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.anteroom.gateway.Harness;
import io.anteroom.gateway.TestOrigin;
import io.anteroom.objects.ManualScheduler;
import java.io.IOException;
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
        assertThat(third.closedByServerAfterSending(Wire.get("/3", "shop"))).isTrue();
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
  void aHeadTrickledByteByByteIsClosedAtTheDeadlineCountedFromAccept() throws Exception {
    // h2c is on: before this fix a read-idle timeout that every byte restarted was the only bound
    try (var h = gateway("requestHeadTimeoutMillis: 500\nidleTimeoutSeconds: 600", "");
        var slow = new Wire(h.gateway.port())) {
      Thread trickle = trickle(slow, PARTIAL_HEAD + "a".repeat(10_000));
      try {
        assertThat(slow.closedByServer()).isTrue();
      } finally {
        trickle.interrupt();
      }
      assertThat(h.origin.received).isEmpty();
      await().atMost(Duration.ofSeconds(20)).until(() -> h.gateway.openPublicConnections() == 0);
    }
  }

  @Test
  void thePublicListenerCountsAConnectionFromAcceptNotFromItsFirstHead() throws Exception {
    try (var h = gateway("maxConnections: 2\nrequestHeadTimeoutMillis: 600000", "");
        var silent = new Wire(h.gateway.port());
        var slow = new Wire(h.gateway.port())) {
      slow.send("GET /slow HTTP/1.1\r\nHo");
      await().atMost(Duration.ofSeconds(20)).until(() -> h.gateway.openPublicConnections() == 2);
      try (var third = new Wire(h.gateway.port())) {
        assertThat(third.closedByServerAfterSending(Wire.get("/3", "shop"))).isTrue();
      }
      assertThat(h.origin.received).isEmpty();
      silent.close();
      await().atMost(Duration.ofSeconds(20)).until(() -> h.gateway.openPublicConnections() == 1);
      try (var fourth = new Wire(h.gateway.port())) {
        assertThat(fourth.send(Wire.get("/4", "shop")).read().status()).isEqualTo(200);
      }
    }
  }

  @Test
  void onTheNioTransportTooASilentConnectionIsCountedAndClosedAtItsDeadline() throws Exception {
    try (var h = gateway("transport: nio\nrequestHeadTimeoutMillis: 1000", "");
        var silent = new Wire(h.gateway.port())) {
      await().atMost(Duration.ofSeconds(20)).until(() -> h.gateway.openPublicConnections() == 1);
      assertThat(silent.closedByServer()).isTrue();
      await().atMost(Duration.ofSeconds(20)).until(() -> h.gateway.openPublicConnections() == 0);
    }
  }

  @Test
  void idleConnectionsAtTheAdminCapCannotLockOutAnOperatorWithTheToken() throws Exception {
    try (var h = gateway("", "maxConnections: 2, requestHeadTimeoutMillis: 600000");
        var idle1 = new Wire(h.gateway.adminPort());
        var idle2 = new Wire(h.gateway.adminPort())) {
      idle2.send("GET /api/rooms HTTP/1.1\r\nHo"); // a head that never ends
      await().atMost(Duration.ofSeconds(20)).until(() -> h.gateway.openAdminConnections() == 2);
      try (var operator = new Wire(h.gateway.adminPort())) {
        assertThat(operator.send(rooms(h)).read().status()).isEqualTo(200);
        // the oldest connection without the token made room for it
        assertThat(idle1.closedByServer()).isTrue();
        // newcomers push out the rest and each other, never the operator
        try (var newcomer = new Wire(h.gateway.adminPort())) {
          assertThat(idle2.closedByServer()).isTrue();
          try (var next = new Wire(h.gateway.adminPort())) {
            assertThat(newcomer.closedByServer()).isTrue();
            assertThat(operator.send(rooms(h)).read().status()).isEqualTo(200);
          }
        }
      }
    }
  }

  @Test
  void theAdminListenerRefusesANewcomerOnlyWhenEveryConnectionHasSentTheToken() throws Exception {
    try (var h = gateway("", "maxConnections: 2");
        var first = new Wire(h.gateway.adminPort());
        var second = new Wire(h.gateway.adminPort())) {
      assertThat(first.send(rooms(h)).read().status()).isEqualTo(200);
      assertThat(second.send(rooms(h)).read().status()).isEqualTo(200);
      try (var third = new Wire(h.gateway.adminPort())) {
        assertThat(third.closedByServer()).isTrue();
      }
      assertThat(first.send(Wire.get("/ready", "admin")).read().status()).isEqualTo(200);
      assertThat(second.send(Wire.get("/ready", "admin")).read().status()).isEqualTo(200);
      assertThat(h.gateway.openAdminConnections()).isEqualTo(2);
      // a wrong token vouches for nobody: that connection is the next to go
      second.close();
      await().atMost(Duration.ofSeconds(20)).until(() -> h.gateway.openAdminConnections() == 1);
      try (var guesser = new Wire(h.gateway.adminPort())) {
        String wrong = rooms(h).replace(h.token, "x".repeat(h.token.length()));
        assertThat(guesser.send(wrong).read().status()).isEqualTo(401);
        try (var operator = new Wire(h.gateway.adminPort())) {
          assertThat(operator.send(rooms(h)).read().status()).isEqualTo(200);
          assertThat(guesser.closedByServer()).isTrue();
        }
      }
    }
  }

  private static String rooms(Harness h) {
    return "GET /api/rooms HTTP/1.1\r\nHost: admin\r\nAuthorization: Bearer "
        + h.token
        + "\r\n\r\n";
  }

  /**
   * A virtual thread writing {@code text} to {@code wire} one byte every 50 ms, until the
   * connection fails or the thread is interrupted (the attack: its pace is not a wait of the test).
   */
  private static Thread trickle(Wire wire, String text) {
    return Thread.ofVirtual()
        .start(
            () -> {
              try {
                for (int i = 0; i < text.length(); i++) {
                  wire.send(text.substring(i, i + 1));
                  Thread.sleep(50);
                }
              } catch (IOException | InterruptedException e) {
                // closed by the server, or the test is over
              }
            });
  }
}
