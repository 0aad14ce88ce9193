package io.anteroom.gateway;

import com.codahale.metrics.MetricRegistry;
import io.anteroom.door.RoomRuntime;
import io.anteroom.door.Rooms;
import io.anteroom.door.admission.CoordinatedRoomGate;
import io.anteroom.door.admission.Coordination;
import io.anteroom.door.config.ConfigLoader;
import io.anteroom.door.config.GatewayConfig;
import io.anteroom.door.queue.MonitoredQueuePacing;
import io.anteroom.host.ObjectCoordination;
import io.anteroom.objects.ManualScheduler;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * A gateway with real room code, in-process coordination, an injected clock, on port 0. Background
 * report ticks are off: tests report explicitly with {@link #report}, so every run is the same.
 */
public final class Harness implements AutoCloseable {
  public static final Instant START = Instant.parse("2026-11-22T10:00:05Z");

  /** Virtual time: moving it also fires the durable objects' due alarms. */
  public final ManualScheduler scheduler;

  /** This gateway's HTTP client (browsers and admin calls), closed with it. */
  public final HttpClient client = Browser.newClient();

  public final TestOrigin origin;
  public final Coordination coordination;
  public final Gateway gateway;
  public final String token = "test-token-0123456789";
  private final boolean ownsCoordination;

  public Harness(Path dataDir, String roomsYaml) throws Exception {
    this(dataDir, roomsYaml, new TestOrigin());
  }

  public Harness(Path dataDir, String roomsYaml, TestOrigin origin) throws Exception {
    this(dataDir, roomsYaml, origin, new ManualScheduler(START), null, "dc1");
  }

  /** A gateway of data center {@code dc} on a shared coordination (null: its own, in-process). */
  public Harness(
      Path dataDir,
      String roomsYaml,
      TestOrigin origin,
      ManualScheduler scheduler,
      Coordination shared,
      String dc)
      throws Exception {
    this(dataDir, roomsYaml, origin, scheduler, shared, dc, Gateway.defaultEventLoops());
  }

  /** As above, with the public listener on {@code eventLoops} event loops. */
  public Harness(
      Path dataDir,
      String roomsYaml,
      TestOrigin origin,
      ManualScheduler scheduler,
      Coordination shared,
      String dc,
      int eventLoops)
      throws Exception {
    this(dataDir, roomsYaml, origin, scheduler, shared, dc, eventLoops, "");
  }

  /**
   * As above; {@code adminKeys} are more keys of {@code admin}, e.g. {@code protectMetrics: true}.
   */
  public Harness(
      Path dataDir,
      String roomsYaml,
      TestOrigin origin,
      ManualScheduler scheduler,
      Coordination shared,
      String dc,
      int eventLoops,
      String adminKeys)
      throws Exception {
    this.origin = origin;
    this.scheduler = scheduler;
    Clock clock = scheduler.clock();
    this.ownsCoordination = shared == null;
    this.coordination =
        shared != null
            ? shared
            : objects(scheduler, io.anteroom.coordinator.RoomObjects.REPORT_MAX_QPS);
    GatewayConfig config =
        ConfigLoader.parse(
            """
        listen: 127.0.0.1:0
        origin: %s
        dataDir: %s
        %s
        %s
        admin: { listen: 127.0.0.1:0, token: %s%s }
        %s
        """
                .formatted(
                    origin.url(),
                    dataDir,
                    // 1 s unless the test's own keys say otherwise
                    roomsYaml.contains("originTimeoutSeconds:") ? "" : "originTimeoutSeconds: 1",
                    roomsYaml.contains("drainSeconds:") ? "" : "drainSeconds: 1",
                    token,
                    adminKeys.isEmpty() ? "" : ", " + adminKeys,
                    roomsYaml),
            "test");
    gateway =
        Gateway.start(
            config,
            new io.anteroom.door.Rooms.GateFactory() {
              private final io.anteroom.door.admission.AuditLog audit = coordination.audit();
              private final io.anteroom.door.admission.RoomDocumentStore documents =
                  coordination.roomDocuments();

              @Override
              public io.anteroom.door.admission.RoomControl create(GatewayConfig.RoomSettings s) {
                return new CoordinatedRoomGate(s, dc, "gw-" + dc, coordination, clock);
              }

              @Override
              public io.anteroom.door.admission.AuditLog audit() {
                return audit;
              }

              @Override
              public io.anteroom.door.admission.RoomDocumentStore documents() {
                return documents;
              }
            },
            clock,
            s -> new MonitoredQueuePacing(s, clock),
            new MetricRegistry(),
            0,
            eventLoops);
  }

  /**
   * {@code link} for a gateway that keeps its config file's rooms: every call goes to {@code link}
   * except the room documents, which are this gateway's own (in memory). For tests of gateways
   * whose settings of one room differ on purpose (fail modes side by side, a config conflict), as
   * gateways that do not follow the deployment's documents would have.
   */
  public static Coordination withoutRoomDocuments(Coordination link) {
    var own = io.anteroom.door.admission.RoomDocumentStore.inMemory(System::currentTimeMillis);
    return (Coordination)
        java.lang.reflect.Proxy.newProxyInstance(
            Coordination.class.getClassLoader(),
            new Class<?>[] {Coordination.class},
            (proxy, method, args) -> {
              if (method.getName().equals("roomDocuments")) {
                return own;
              }
              try {
                return method.invoke(link, args);
              } catch (java.lang.reflect.InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  /** The room objects in an in-memory runtime on the test's virtual time. */
  public static ObjectCoordination objects(ManualScheduler scheduler, double reportMaxQps) {
    return ObjectCoordination.embedded(runtime(scheduler), reportMaxQps);
  }

  /**
   * An in-memory runtime on {@code scheduler}, whose alarms run at their virtual time ({@link
   * io.anteroom.objects.Runtime.Builder#virtualTime}).
   */
  public static io.anteroom.objects.Runtime runtime(ManualScheduler scheduler) {
    return io.anteroom.objects.Runtime.builder()
        .storage(new io.anteroom.objects.storage.InMemoryStorageEngine())
        .virtualTime(scheduler)
        .build();
  }

  public String url() {
    return "http://127.0.0.1:" + gateway.port();
  }

  public String adminUrl() {
    return "http://127.0.0.1:" + gateway.adminPort();
  }

  public Browser browser() {
    return new Browser(client, url());
  }

  public CoordinatedRoomGate gate(String room) {
    return (CoordinatedRoomGate) gateway.rooms().get(room).orElseThrow().gate();
  }

  /** One report round of every worker of the room, waited for. */
  public void report(String room) throws Exception {
    gate(room).reportNow().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** Admin API call; returns status and body. */
  public java.net.http.HttpResponse<String> admin(String method, String path, String body)
      throws Exception {
    return admin(token, method, path, body);
  }

  /** Admin API call with {@code bearer} as the token. */
  public java.net.http.HttpResponse<String> admin(
      String bearer, String method, String path, String body) throws Exception {
    var b =
        java.net.http.HttpRequest.newBuilder(java.net.URI.create(adminUrl() + path))
            .header("Authorization", "Bearer " + bearer)
            .timeout(Duration.ofSeconds(30))
            .method(
                method,
                body == null
                    ? java.net.http.HttpRequest.BodyPublishers.noBody()
                    : java.net.http.HttpRequest.BodyPublishers.ofString(body));
    return client.send(b.build(), java.net.http.HttpResponse.BodyHandlers.ofString());
  }

  /** The admin API of the gateway. */
  public io.anteroom.gateway.admin.AdminApi adminApi() {
    return gateway.admin();
  }

  /** The admin listener's router (its routes: path and methods). */
  public io.vertx.ext.web.Router adminRouter() {
    return gateway.admin().router();
  }

  /** The gateway's live rooms. */
  public Rooms rooms() {
    return gateway.rooms();
  }

  /**
   * One follow of the deployment's room documents, waited for (the timer's, driven by the test).
   */
  public void follow() throws Exception {
    gateway.documents().follow().get(10, TimeUnit.SECONDS);
  }

  /** The deployment's room documents version, as the coordinator answers it. */
  public long documentsVersion() throws Exception {
    return gateway
        .documents()
        .store()
        .since(0)
        .toCompletableFuture()
        .get(10, TimeUnit.SECONDS)
        .version();
  }

  /** The live runtime of a room. */
  public RoomRuntime room(String id) {
    return gateway.rooms().get(id).orElseThrow();
  }

  /** The proxy of a room's origin. */
  public io.anteroom.gateway.edge.OriginProxy proxy(String roomId) {
    return gateway.origins().apply(room(roomId));
  }

  /** The proxy of requests that match no room. */
  public io.anteroom.gateway.edge.OriginProxy defaultProxy() {
    return gateway.origins().defaultProxy();
  }

  /** One origin-protection step of every room, as the gateway's timer does it. */
  public void protect() {
    Gateway.protect(gateway.rooms());
  }

  @Override
  public void close() throws Exception {
    gateway.close();
    origin.close();
    client.close();
    if (ownsCoordination) {
      coordination.close();
    }
  }
}
