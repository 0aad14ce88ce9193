package io.anteroom.gateway;

import com.codahale.metrics.MetricRegistry;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/** A gateway with real room code, in-process coordination, an injected clock, on port 0. */
final class Harness implements AutoCloseable {
  final MutableClock clock = new MutableClock(Instant.parse("2026-11-22T10:00:05Z"));
  final TestOrigin origin;
  final LocalCoordination coordination = new LocalCoordination(clock);
  final Gateway gateway;
  final String token = "test-token";

  Harness(Path dataDir, String roomsYaml) throws Exception {
    this(dataDir, roomsYaml, new TestOrigin());
  }

  Harness(Path dataDir, String roomsYaml, TestOrigin origin) throws Exception {
    this.origin = origin;
    GatewayConfig config = ConfigLoader.parse("""
        listen: 127.0.0.1:0
        origin: %s
        dataDir: %s
        originTimeoutSeconds: 1
        drainSeconds: 1
        admin: { listen: 127.0.0.1:0, token: %s }
        %s
        """.formatted(origin.url(), dataDir, token, roomsYaml), "test");
    gateway = Gateway.start(config, s -> new CoordinatedRoomGate(s, "dc1", "gw1", coordination,
        clock), clock, s -> QueuePacing.fixed(s.queueRefreshSeconds()), new MetricRegistry());
  }

  String url() {
    return "http://127.0.0.1:" + gateway.port();
  }

  String adminUrl() {
    return "http://127.0.0.1:" + gateway.adminPort();
  }

  Browser browser() {
    return new Browser(url());
  }

  CoordinatedRoomGate gate(String room) {
    return (CoordinatedRoomGate) gateway.rooms().get(room).orElseThrow().gate();
  }

  /** One report round of every worker of the room, waited for. */
  void report(String room) throws Exception {
    gate(room).reportNow().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws Exception {
    gateway.close();
    origin.close();
  }
}
