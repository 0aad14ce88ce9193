package io.anteroom.gateway;

import io.anteroom.objects.storage.InMemoryStorageEngine;
import com.codahale.metrics.MetricRegistry;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * A gateway with real room code, in-process coordination, an injected clock, on port 0. Background
 * report ticks are off: tests report explicitly with {@link #report}, so every run is the same.
 */
final class Harness implements AutoCloseable {
  static final Instant START = Instant.parse("2026-11-22T10:00:05Z");
  final MutableClock clock;
  final TestOrigin origin;
  final Coordination coordination;
  final Gateway gateway;
  final String token = "test-token";
  private final boolean ownsCoordination;

  Harness(Path dataDir, String roomsYaml) throws Exception {
    this(dataDir, roomsYaml, new TestOrigin());
  }

  Harness(Path dataDir, String roomsYaml, TestOrigin origin) throws Exception {
    this(dataDir, roomsYaml, origin, new MutableClock(START), null, "dc1");
  }

  /** A gateway of data center {@code dc} on a shared coordination (null: its own, in-process). */
  Harness(Path dataDir, String roomsYaml, TestOrigin origin, MutableClock clock,
      Coordination shared, String dc) throws Exception {
    this(dataDir, roomsYaml, origin, clock, shared, dc, Gateway.defaultEventLoops());
  }

  /** As above, with the public listener on {@code eventLoops} event loops. */
  Harness(Path dataDir, String roomsYaml, TestOrigin origin, MutableClock clock,
      Coordination shared, String dc, int eventLoops) throws Exception {
    this.origin = origin;
    this.clock = clock;
    this.ownsCoordination = shared == null;
    this.coordination = shared != null ? shared : objects(clock, ObjectCoordination.REPORT_MAX_QPS);
    GatewayConfig config = ConfigLoader.parse("""
        listen: 127.0.0.1:0
        origin: %s
        dataDir: %s
        originTimeoutSeconds: 1
        drainSeconds: 1
        admin: { listen: 127.0.0.1:0, token: %s }
        %s
        """.formatted(origin.url(), dataDir, token, roomsYaml), "test");
    gateway = Gateway.start(config, s -> new CoordinatedRoomGate(s, dc, "gw-" + dc, coordination,
        clock), clock, s -> new MonitoredQueuePacing(s, clock), new MetricRegistry(), 0,
        eventLoops);
  }

  /** The room objects in an in-memory runtime on the test's virtual time. */
  static ObjectCoordination objects(MutableClock clock, double reportMaxQps) {
    return ObjectCoordination.embedded(runtime(clock), reportMaxQps);
  }

  static io.anteroom.objects.Runtime runtime(MutableClock clock) {
    return io.anteroom.objects.Runtime.builder()
        .storage(new io.anteroom.objects.storage.InMemoryStorageEngine())
        .clock(clock.scheduler.clock()).scheduler(clock.scheduler).build();
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

  /** Admin API call; returns status and body. */
  java.net.http.HttpResponse<String> admin(String method, String path, String body)
      throws Exception {
    var b = java.net.http.HttpRequest.newBuilder(java.net.URI.create(adminUrl() + path))
        .header("Authorization", "Bearer " + token)
        .method(method, body == null ? java.net.http.HttpRequest.BodyPublishers.noBody()
            : java.net.http.HttpRequest.BodyPublishers.ofString(body));
    return Browser.CLIENT.send(b.build(), java.net.http.HttpResponse.BodyHandlers.ofString());
  }

  @Override
  public void close() throws Exception {
    gateway.close();
    origin.close();
    if (ownsCoordination) {
      coordination.close();
    }
  }
}
