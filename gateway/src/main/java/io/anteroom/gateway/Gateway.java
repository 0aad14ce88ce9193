package io.anteroom.gateway;

import com.codahale.metrics.MetricRegistry;
import io.anteroom.door.Door;
import io.anteroom.door.Rooms;
import io.anteroom.door.config.GatewayConfig;
import io.anteroom.door.config.GatewayConfig.RoomSettings;
import io.anteroom.door.config.IoTransport;
import io.anteroom.door.proof.ChallengeCodec;
import io.anteroom.door.queue.QueuePacing;
import io.anteroom.door.route.ClientAddress;
import io.anteroom.door.ticket.TicketCodec;
import io.anteroom.door.ticket.TicketKeys;
import io.anteroom.gateway.admin.AdminApi;
import io.anteroom.gateway.admin.AdminToken;
import io.anteroom.gateway.edge.Gatekeeper;
import io.anteroom.gateway.edge.GuardedTransport;
import io.anteroom.gateway.edge.ListenerGuard;
import io.anteroom.gateway.edge.PublicListener;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.transport.Transport;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running gateway: the public listener (rooms, proxy, queue) and the admin listener (admin API,
 * status page, metrics, health). Built by {@link #start}; {@link #close} drains in-flight requests
 * for up to {@code drainSeconds} before closing.
 *
 * <pre>{@code
 * GatewayConfig config = ConfigLoader.forOrigin(URI.create("http://127.0.0.1:3000"));
 * try (Gateway gw = Gateway.start(config, gates, Clock.systemUTC())) {
 *   System.out.println("listening on " + gw.port());
 * }
 * }</pre>
 *
 * <p>Thread safety: start and close are called once, from one thread; everything else runs on
 * Vert.x event loops (see {@link Gatekeeper}, {@link AdminApi}).
 */
public final class Gateway implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Gateway.class);

  private final Vertx vertx;
  private final Rooms rooms;
  private final Gatekeeper.Origins origins;

  /** The public listener's servers, one per event loop, all on the same port. */
  private final List<HttpServer> publicServers;

  private final ListenerGuard publicGuard;
  private final HttpServer adminServer;
  private final ListenerGuard adminGuard;
  private final AdminApi admin;
  private final int drainSeconds;
  private volatile io.anteroom.door.queue.HeldPolls heldPolls;
  private final java.util.concurrent.atomic.AtomicBoolean closed =
      new java.util.concurrent.atomic.AtomicBoolean();

  private Gateway(
      Vertx vertx,
      Rooms rooms,
      Gatekeeper.Origins origins,
      List<HttpServer> publicServers,
      ListenerGuard publicGuard,
      HttpServer adminServer,
      ListenerGuard adminGuard,
      AdminApi admin,
      int drainSeconds) {
    this.vertx = vertx;
    this.rooms = rooms;
    this.origins = origins;
    this.publicServers = List.copyOf(publicServers);
    this.publicGuard = publicGuard;
    this.adminServer = adminServer;
    this.adminGuard = adminGuard;
    this.admin = admin;
    this.drainSeconds = drainSeconds;
  }

  /** The queue pages' push polls this gateway holds now ({@code maxHeldPolls}). */
  public io.anteroom.door.queue.HeldPolls heldPolls() {
    return heldPolls;
  }

  /**
   * Starts both listeners; ports 0 pick free ports (see {@link #port()}, {@link #adminPort()}).
   * Fails with a message naming the address when a port is taken.
   */
  static Gateway start(
      GatewayConfig config,
      Rooms.GateFactory gates,
      Clock clock,
      Function<RoomSettings, QueuePacing> pacing,
      MetricRegistry registry) {
    return start(config, gates, clock, pacing, registry, TICK_MILLIS);
  }

  /** Period of the rooms' background ticks (reports when due). */
  static final long TICK_MILLIS = 250;

  /** As above; {@code tickMillis} 0 turns background ticks off (tests drive reports). */
  static Gateway start(
      GatewayConfig config,
      Rooms.GateFactory gates,
      Clock clock,
      Function<RoomSettings, QueuePacing> pacing,
      MetricRegistry registry,
      long tickMillis) {
    return start(config, gates, clock, pacing, registry, tickMillis, defaultEventLoops());
  }

  /**
   * The Vert.x transport of this setting on this machine; logs which one, and why io_uring is not
   * used when {@code auto} falls back to NIO.
   */
  static Transport transport(IoTransport setting) {
    if (resolvedTransport(setting) == IoTransport.IO_URING) {
      LOG.info("event loops on io_uring (transport: {})", setting.configName());
      return Transport.IO_URING;
    }
    if (setting == IoTransport.AUTO) {
      LOG.info("event loops on NIO: io_uring is not available here ({})", ioUringUnavailable());
    } else {
      LOG.info("event loops on NIO (transport: nio)");
    }
    return Transport.NIO;
  }

  /**
   * {@link IoTransport#IO_URING} or {@link IoTransport#NIO}: what {@code setting} runs on here
   * (also for {@code anteroom check}).
   *
   * @throws IllegalStateException when io_uring is required but not available
   */
  static IoTransport resolvedTransport(IoTransport setting) {
    return setting.resolve(Transport.IO_URING.available(), ioUringUnavailable());
  }

  private static String ioUringUnavailable() {
    return Transport.IO_URING.available()
        ? ""
        : String.valueOf(Transport.IO_URING.unavailabilityCause());
  }

  /**
   * Event loops serving the public listener by default: one per core, as nginx runs one worker per
   * core (a single loop capped the admitted path at one core's worth of requests).
   */
  static int defaultEventLoops() {
    return Runtime.getRuntime().availableProcessors();
  }

  /** As above, with the public listener on {@code eventLoops} event loops (at least 1). */
  static Gateway start(
      GatewayConfig config,
      Rooms.GateFactory gates,
      Clock clock,
      Function<RoomSettings, QueuePacing> pacing,
      MetricRegistry registry,
      long tickMillis,
      int eventLoops) {
    if (eventLoops < 1) {
      throw new IllegalArgumentException(
          "eventLoops: "
              + eventLoops
              + " is not allowed; the "
              + "public listener needs at least 1 event loop");
    }
    // at least as many event loops as listener instances, so each instance gets its own loop;
    // the transport hands the listeners' guards every connection at accept
    var guarded = new GuardedTransport();
    Vertx vertx =
        Vertx.builder()
            .with(
                new VertxOptions()
                    .setPreferNativeTransport(false)
                    .setEventLoopPoolSize(
                        Math.max(VertxOptions.DEFAULT_EVENT_LOOP_POOL_SIZE, eventLoops)))
            .withTransport(guarded.wrap(transport(config.publicListener().transport())))
            .build();
    try {
      var keys = TicketKeys.resolve(config.ticketKeys(), config.dataDir());
      var codec = new TicketCodec(keys, clock);
      var passKeys = io.anteroom.pass.PassKeys.openOrCreate(config.dataDir());
      passKeys.warnings().forEach(w -> LOG.warn("pass keys: {}", w));
      var rooms =
          new Rooms(config, gates, registry, pacing, clock, codec, new ChallengeCodec(keys));
      var documents = new io.anteroom.door.RoomDocumentSync(rooms, gates.documents(), config);
      followAtStart(documents);
      var origins =
          new Gatekeeper.Origins(
              vertx, config.origin(), config.originTimeoutSeconds(), rooms.clients());
      var heldPolls =
          new io.anteroom.door.queue.HeldPolls(config.publicListener().push().maxHeldPolls())
              .exportTo(registry);
      var gatekeeper =
          new Gatekeeper(
              new Door(
                  rooms,
                  clock,
                  io.anteroom.pass.PassIssuer.builder(passKeys).clock(clock).build(),
                  heldPolls),
              origins,
              origins.defaultProxy(),
              config.publicListener().accessLog(),
              config.publicListener().push().pollHoldSeconds());
      List<HttpServer> publicServers = new CopyOnWriteArrayList<>();
      // Vert.x shares one bound socket among servers on the same host:port and hands them the
      // connections in turn; port 0 is never shared, a negative port means "one free port shared
      // by every server listening on this same negative port"
      int port = config.listen().port() == 0 ? -1 : config.listen().port();
      var publicOptions = PublicListener.options(config.publicListener());
      var publicGuard =
          PublicListener.guard(
              guarded, config.publicListener(), new ClientAddress(config.trustedProxies()));
      await(
          vertx.deployVerticle(
              () ->
                  new PublicListener(
                      gatekeeper,
                      port,
                      config.listen().host(),
                      publicServers,
                      publicOptions,
                      publicGuard),
              new DeploymentOptions().setInstances(eventLoops)),
          "listen",
          config.listen().toString(),
          config.publicListener().tls().isPresent()
              ? "is another process using the port, or are tls.certFile and tls.keyFile not a"
                  + " certificate and its key?"
              : PORT_HINT);
      var admin =
          new AdminApi(
              vertx,
              rooms,
              registry,
              AdminToken.all(config),
              config.admin().protectMetrics(),
              passKeys.jwks(),
              clock,
              gates.audit(),
              documents);
      // at its cap the admin listener closes the oldest connection that never sent the token
      var adminGuard = ListenerGuard.evicting(guarded, config.admin().limits(), admin::authorized);
      HttpServer adminServer =
          await(
              adminGuard.listen(
                  vertx,
                  ListenerGuard.options(
                      // plain HTTP/1.1: nothing on the admin listener needs HTTP/2
                      new HttpServerOptions().setHttp2ClearTextEnabled(false),
                      config.admin().limits()),
                  config.admin().listen().host(),
                  config.admin().listen().port(),
                  admin.router()),
              "admin.listen",
              config.admin().listen().toString());
      // background work of the rooms (reports to the coordinator) on one periodic timer
      if (tickMillis > 0) {
        vertx.setPeriodic(tickMillis, id -> tick(rooms, clock.millis()));
        vertx.setPeriodic(PROTECTION_TICK_MILLIS, id -> protect(rooms));
        vertx.setPeriodic(
            FOLLOW_MILLIS,
            id -> {
              if (documents.idle()) {
                documents.follow();
              }
            });
      }
      var gateway =
          new Gateway(
              vertx,
              rooms,
              origins,
              publicServers,
              publicGuard,
              adminServer,
              adminGuard,
              admin,
              config.drainSeconds());
      gateway.heldPolls = heldPolls;
      LOG.info(
          "started: public listener {}:{}{}, admin {}:{}, rooms {}",
          config.listen().host(),
          gateway.port(),
          config.publicListener().tls().isPresent() ? " (TLS)" : "",
          config.admin().listen().host(),
          gateway.adminPort(),
          rooms.list().stream().map(RoomSettings::id).toList());
      return gateway;
    } catch (RuntimeException e) {
      vertx.close();
      throw e;
    }
  }

  /** How often the gateway asks the coordinator for room documents written since its version. */
  static final long FOLLOW_MILLIS = 1_000;

  /** How long a start waits for the deployment's room documents before serving the file's rooms. */
  static final long FOLLOW_AT_START_MILLIS = 5_000;

  /**
   * The first follow of the deployment's room documents (the file's rooms imported where the
   * deployment has none), waited for up to {@link #FOLLOW_AT_START_MILLIS}, so that a gateway whose
   * coordinator answers starts with the deployment's rooms rather than the file's.
   */
  private static void followAtStart(io.anteroom.door.RoomDocumentSync documents) {
    try {
      documents.follow().get(FOLLOW_AT_START_MILLIS, TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      LOG.warn(
          "room documents: the coordinator did not answer within {} ms; serving the config file's"
              + " rooms until it does",
          FOLLOW_AT_START_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
  }

  /** How often origin protection re-evaluates the origin (AIMD step). */
  static final long PROTECTION_TICK_MILLIS = 5_000;

  static void tick(Rooms rooms, long nowMillis) {
    rooms.tick(nowMillis);
  }

  /** One origin-protection step for every room that has it on. */
  static void protect(Rooms rooms) {
    rooms.protect();
  }

  private static final String PORT_HINT = "is another process using the port?";

  private static <T> T await(Future<T> listening, String key, String address) {
    return await(listening, key, address, PORT_HINT);
  }

  private static <T> T await(Future<T> listening, String key, String address, String hint) {
    try {
      return listening.await(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(
          key + ": cannot listen on " + address + " (" + e.getMessage() + "); " + hint, e);
    }
  }

  /** The public port (useful when configured as 0). */
  public int port() {
    return publicServers.getFirst().actualPort();
  }

  /** How many event loops serve the public listener. */
  public int publicEventLoops() {
    return publicServers.size();
  }

  /** The ports the public listener's servers report (one, shared by all of them). */
  public java.util.Set<Integer> publicPorts() {
    return publicServers.stream()
        .map(HttpServer::actualPort)
        .collect(java.util.stream.Collectors.toSet());
  }

  /** Connections the public listener holds open now (counted from accept). */
  public int openPublicConnections() {
    return publicGuard.openConnections();
  }

  /** Connections the admin listener holds open now. */
  public int openAdminConnections() {
    return adminGuard.openConnections();
  }

  /** The admin port. */
  public int adminPort() {
    return adminServer.actualPort();
  }

  Rooms rooms() {
    return rooms;
  }

  /** This gateway's following of the deployment's room documents. */
  io.anteroom.door.RoomDocumentSync documents() {
    return admin.documents();
  }

  /** The proxies of the rooms' origins. */
  Gatekeeper.Origins origins() {
    return origins;
  }

  AdminApi admin() {
    return admin;
  }

  Vertx vertx() {
    return vertx;
  }

  /**
   * Graceful shutdown: stops accepting, lets in-flight requests finish (up to {@code
   * drainSeconds}), then closes the rooms and Vert.x; logs one line as the drain begins and one
   * with the requests it drained. A second call does nothing.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    long answeredBefore = publicGuard.requestsAnswered();
    long unansweredBefore = publicGuard.requestsUnanswered();
    int inFlight = publicGuard.requestsInFlight();
    long began = System.nanoTime();
    LOG.info(
        "stopping: no new connections; draining {} {} in flight for up to {} s (drainSeconds)",
        inFlight,
        inFlight == 1 ? "request" : "requests",
        drainSeconds);
    long drainMillis = -1;
    try {
      admin.markDraining();
      Future.all(
              publicServers.stream().map(s -> s.shutdown(drainSeconds, TimeUnit.SECONDS)).toList())
          .await(drainSeconds + 5L, TimeUnit.SECONDS);
      drainMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);
      adminServer.close().await(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.warn("shutdown did not complete cleanly: {}", e.toString());
    } finally {
      if (drainMillis < 0) drainMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);
      rooms.close();
      // a request still waiting on its origin now is cut off, never answered with a 502, even if
      // Vert.x has not closed its client's connection yet (OriginClient#close)
      origins.close();
      try {
        vertx.close().await(10, TimeUnit.SECONDS);
      } catch (Exception e) {
        LOG.warn("Vert.x did not close in time: {}", e.toString());
      }
      // counted once Vert.x has closed (every request's handlers have run): a request the drain
      // cut off counts once, as unanswered or as still in flight
      long drained = publicGuard.requestsAnswered() - answeredBefore;
      long cutOff =
          publicGuard.requestsUnanswered() - unansweredBefore + publicGuard.requestsInFlight();
      LOG.info(
          "drained: {} {} answered during the drain, {} cut off, in {} ms",
          drained,
          drained == 1 ? "request" : "requests",
          cutOff,
          drainMillis);
    }
  }
}
