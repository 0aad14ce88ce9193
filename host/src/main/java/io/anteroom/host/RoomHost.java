package io.anteroom.host;

import com.codahale.metrics.MetricRegistry;
import io.anteroom.door.Door;
import io.anteroom.door.Rooms;
import io.anteroom.door.admission.CoordinatedRoomGate;
import io.anteroom.door.admission.Coordination;
import io.anteroom.door.config.DataDirectory;
import io.anteroom.door.config.GatewayConfig;
import io.anteroom.door.proof.ChallengeCodec;
import io.anteroom.door.queue.MonitoredQueuePacing;
import io.anteroom.door.ticket.TicketCodec;
import io.anteroom.door.ticket.TicketKeys;
import java.time.Clock;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rooms of one process and the door over them, wired the same way for every server that has no
 * event loop of its own to run their background work on (the Servlet filter, the Spring Boot
 * starter): one {@link CoordinatedRoomGate} per room over the {@link Coordination} ({@link
 * #gates}), the ticket keys and codec, the queue pacing, and one daemon thread that ticks the rooms
 * (reports when due, about four times a second) and steps origin protection.
 *
 * <pre>{@code
 * GatewayConfig config = ConfigLoader.load(Path.of("anteroom.yaml"));
 * RoomHost host = RoomHost.start(config, RoomHost.embedded(config), "local", Clock.systemUTC());
 * Answer answer = host.door().enter(facts, Runnable::run).toCompletableFuture().join();
 * }</pre>
 *
 * <p>Thread safety: the door and rooms are thread-safe; {@link #close} once.
 */
public final class RoomHost implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RoomHost.class);

  /** Period of the rooms' background ticks. */
  public static final long TICK_MILLIS = 250;

  /** How often origin protection re-evaluates the origin (AIMD step). */
  public static final long PROTECTION_TICK_MILLIS = 5_000;

  private final Coordination coordination;
  private final Rooms rooms;
  private final Door door;
  private final MetricRegistry metrics;
  private final ScheduledExecutorService ticker;
  private final String jwks;

  private RoomHost(
      Coordination coordination,
      Rooms rooms,
      Door door,
      MetricRegistry metrics,
      ScheduledExecutorService ticker,
      String jwks) {
    this.coordination = coordination;
    this.rooms = rooms;
    this.door = door;
    this.metrics = metrics;
    this.ticker = ticker;
    this.jwks = jwks;
  }

  /**
   * The room's coordinating objects in this process (the embedded topology): SQLite in {@code
   * dataDir}, which this process claims (a second process on the same directory is refused).
   */
  public static Coordination embedded(GatewayConfig config) {
    DataDirectory.claim(config.dataDir());
    return ObjectCoordination.embedded(
        io.anteroom.objects.Runtime.builder().dataDir(config.dataDir()).build(),
        io.anteroom.coordinator.RoomObjects.REPORT_MAX_QPS,
        ObjectCoordination.webhooks(config));
  }

  /**
   * The rooms of {@code config} as a gateway of the coordinators {@code link} names (the remote
   * topology, as {@code anteroom gateway}): the settings checked, the data directory claimed, the
   * deployment's ticket keys required, and one call to the coordinator ({@link
   * CoordinatorLink#probe}): a refused signature stops the start, an unreachable coordinator is one
   * warning (the rooms run degraded until it answers).
   *
   * @param env the value of {@value CoordinatorLink#SECRET_ENV} (null when unset)
   * @throws IllegalArgumentException one line saying what is wrong
   */
  public static RoomHost remote(
      GatewayConfig config, CoordinatorLink link, String env, Clock clock) {
    Coordination coordination = link.connect(config, env);
    try {
      String unreachable = link.probe(coordination, config);
      if (unreachable != null) {
        LOG.warn("anteroom: {}", unreachable);
      }
      return start(config, coordination, link.dataCenter(), clock);
    } catch (RuntimeException e) {
      coordination.close();
      throw e;
    }
  }

  /**
   * The admission of each room of a process: a {@link CoordinatedRoomGate} over {@code
   * coordination} in data center {@code dataCenter}, with the deployment's lottery key (derived
   * from its first ticket key, so every gateway of a deployment draws the same lots).
   */
  public static Rooms.GateFactory gates(
      GatewayConfig config, Coordination coordination, String dataCenter, Clock clock) {
    String processId = ProcessHandle.current().pid() + "-" + Long.toHexString(System.nanoTime());
    byte[] lotteryKey =
        CoordinatedRoomGate.lotteryKey(
            TicketKeys.resolve(config.ticketKeys(), config.dataDir()).getFirst().secret());
    io.anteroom.door.admission.AuditLog audit = coordination.audit();
    io.anteroom.door.admission.RoomDocumentStore documents = coordination.roomDocuments();
    return new Rooms.GateFactory() {
      @Override
      public io.anteroom.door.admission.RoomControl create(
          io.anteroom.door.config.GatewayConfig.RoomSettings s) {
        return new CoordinatedRoomGate(s, dataCenter, processId, coordination, clock, lotteryKey);
      }

      @Override
      public io.anteroom.door.admission.AuditLog audit() {
        return audit;
      }

      @Override
      public io.anteroom.door.admission.RoomDocumentStore documents() {
        return documents;
      }
    };
  }

  /**
   * Starts the rooms of {@code config} over {@code coordination} (owned from now on: closed with
   * this host), and their background ticks.
   */
  public static RoomHost start(
      GatewayConfig config, Coordination coordination, String dataCenter, Clock clock) {
    var metrics = new MetricRegistry();
    coordination.objectMetrics().ifPresent(metrics::registerAll);
    var keys = TicketKeys.resolve(config.ticketKeys(), config.dataDir());
    var rooms =
        new Rooms(
            config,
            gates(config, coordination, dataCenter, clock),
            metrics,
            s -> new MonitoredQueuePacing(s, clock),
            clock,
            new TicketCodec(keys, clock),
            new ChallengeCodec(keys));
    ScheduledExecutorService ticker =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "anteroom-rooms");
              t.setDaemon(true);
              return t;
            });
    ticker.scheduleAtFixedRate(
        () -> guarded(() -> rooms.tick(clock.millis())),
        TICK_MILLIS,
        TICK_MILLIS,
        TimeUnit.MILLISECONDS);
    ticker.scheduleAtFixedRate(
        () -> guarded(rooms::protect),
        PROTECTION_TICK_MILLIS,
        PROTECTION_TICK_MILLIS,
        TimeUnit.MILLISECONDS);
    var passKeys = io.anteroom.pass.PassKeys.openOrCreate(config.dataDir());
    passKeys
        .warnings()
        .forEach(w -> org.slf4j.LoggerFactory.getLogger(RoomHost.class).warn("pass keys: {}", w));
    var door =
        new Door(
            rooms,
            clock,
            io.anteroom.pass.PassIssuer.builder(passKeys).clock(clock).build(),
            new io.anteroom.door.queue.HeldPolls(config.publicListener().push().maxHeldPolls())
                .exportTo(metrics));
    var host = new RoomHost(coordination, rooms, door, metrics, ticker, passKeys.jwks());
    host.pollHoldSeconds = config.publicListener().push().pollHoldSeconds();
    return host;
  }

  /** A periodic task that failed must not cancel the later runs (a scheduled executor would). */
  private static void guarded(Runnable task) {
    try {
      task.run();
    } catch (RuntimeException e) {
      LOG.warn("rooms: a background tick failed: {}", e.toString());
    }
  }

  /**
   * The public keys of the signed pass its door puts on admitted requests, as a JWKS document (the
   * keys are {@code dataDir/pass-keys}, made at the first start).
   */
  public String jwks() {
    return jwks;
  }

  /** The door over this host's rooms. */
  public Door door() {
    return door;
  }

  private volatile int pollHoldSeconds = io.anteroom.door.queue.HeldPolls.DEFAULT_HOLD_SECONDS;

  /** How long a server adapter holds a push poll of the queue page ({@code pollHoldSeconds}). */
  public int pollHoldSeconds() {
    return pollHoldSeconds;
  }

  /** The live rooms. */
  public Rooms rooms() {
    return rooms;
  }

  /** The rooms' meters ({@code anteroom.room.<id>.<what>}) and the objects runtime's. */
  public MetricRegistry metrics() {
    return metrics;
  }

  @Override
  public void close() {
    ticker.shutdownNow();
    rooms.close();
    try {
      coordination.close();
    } catch (Exception e) {
      LOG.warn("rooms: the coordination did not close cleanly: {}", e.toString());
    }
  }
}
