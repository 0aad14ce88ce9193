package io.anteroom.coordinator;

import io.anteroom.backpressure.ThresholdMonitor;
import io.anteroom.backpressure.ThroughputSignal;
import io.anteroom.objects.Namespace;
import io.anteroom.objects.Runtime;
import io.anteroom.room.CounterKey;

/**
 * Registers the room's coordinating durable objects in a {@link Runtime} and hands out their stubs.
 *
 * <pre>{@code
 * RoomObjects objects = RoomObjects.register(runtime, dcMonitor, globalMonitor);
 * StateReply reply = objects.dataCenter("shop", "dublin").report(config, worker.report(now));
 * Grant g = objects.counter(draw.counter()).takeCarrying(config.rules(), draw.counter(), draw.limit(), draw.carriedSince());
 * }</pre>
 *
 * <p>Namespaces and object names (for stubs over a remote transport, {@code Stubs.create(iface,
 * namespace, ObjectId.fromName(namespace, name), transport)}):
 *
 * <ul>
 *   <li>{@value #DATA_CENTER_NAMESPACE}: {@link DataCenterCoordinator}, name {@code
 *       room/dataCenter};
 *   <li>{@value #GLOBAL_NAMESPACE}: {@link GlobalCoordinator}, name {@code room} (data center
 *       objects call it in their own runtime);
 *   <li>{@value #COUNTER_NAMESPACE}: {@link RoomCounter}, name {@link CounterKey#objectName()};
 *   <li>{@value #AUDIT_NAMESPACE}: {@link DeploymentAudit}, name {@value #AUDIT_OBJECT} (one per
 *       deployment);
 *   <li>{@value #ROOMS_NAMESPACE}: {@link DeploymentRooms}, name {@value #AUDIT_OBJECT} (one per
 *       deployment).
 * </ul>
 */
public final class RoomObjects {
  public static final String DATA_CENTER_NAMESPACE = "room-datacenter";
  public static final String GLOBAL_NAMESPACE = "room-global";
  public static final String COUNTER_NAMESPACE = "room-counter";

  /** The deployment's audit log of admin changes: one object, {@value #AUDIT_OBJECT}. */
  public static final String AUDIT_NAMESPACE = "deployment-audit";

  public static final String AUDIT_OBJECT = "deployment";

  /** The deployment's room documents: one object, {@value #AUDIT_OBJECT}. */
  public static final String ROOMS_NAMESPACE = "deployment-rooms";

  private final Namespace<DataCenterCoordinator> dataCenters;
  private final Namespace<GlobalCoordinator> globals;
  private final Namespace<RoomCounter> counters;
  private final Namespace<DeploymentAudit> audits;
  private final Namespace<DeploymentRooms> documents;

  private RoomObjects(
      Namespace<DataCenterCoordinator> dataCenters,
      Namespace<GlobalCoordinator> globals,
      Namespace<RoomCounter> counters,
      Namespace<DeploymentAudit> audits,
      Namespace<DeploymentRooms> documents) {
    this.documents = documents;
    this.dataCenters = dataCenters;
    this.globals = globals;
    this.counters = counters;
    this.audits = audits;
  }

  /**
   * Registers the namespaces.
   *
   * @param dataCenterMonitor times worker reports; its {@code thresholdExceeded()} is the data
   *     center objects' throttle signal (one monitor for all data center objects of this runtime)
   * @param globalMonitor the same for the global objects
   */
  public static RoomObjects register(
      Runtime runtime, ThresholdMonitor dataCenterMonitor, ThresholdMonitor globalMonitor) {
    return register(runtime, dataCenterMonitor, globalMonitor, WebhookTargets.NONE);
  }

  /**
   * Registers the namespaces; each room's global object posts the room's state changes to {@code
   * webhooks}.
   */
  public static RoomObjects register(
      Runtime runtime,
      ThresholdMonitor dataCenterMonitor,
      ThresholdMonitor globalMonitor,
      WebhookTargets webhooks) {
    return new RoomObjects(
        runtime.namespace(
            DATA_CENTER_NAMESPACE,
            DataCenterCoordinator.class,
            ctx -> new DataCenterObject(ctx, dataCenterMonitor)),
        runtime.namespace(
            GLOBAL_NAMESPACE,
            GlobalCoordinator.class,
            ctx -> new GlobalObject(ctx, globalMonitor, webhooks)),
        runtime.namespace(COUNTER_NAMESPACE, RoomCounter.class, CounterObject::new),
        runtime.namespace(AUDIT_NAMESPACE, DeploymentAudit.class, AuditObject::new),
        runtime.namespace(ROOMS_NAMESPACE, DeploymentRooms.class, RoomDocumentsObject::new));
  }

  /**
   * Budget of worker reports per second per runtime before reporters are told to slow down: what a
   * process that hosts the room objects (the coordinator, or {@code anteroom run}) registers them
   * with.
   */
  public static final double REPORT_MAX_QPS = 500;

  /**
   * Registers the namespaces with monitors that throttle above {@code reportMaxQps} worker reports
   * per second (over ten seconds; {@link #REPORT_MAX_QPS} in production); each room's global object
   * posts the room's state changes to {@code webhooks}.
   */
  public static RoomObjects register(
      Runtime runtime, double reportMaxQps, WebhookTargets webhooks) {
    return register(
        runtime,
        reportMonitor(runtime, reportMaxQps),
        reportMonitor(runtime, reportMaxQps),
        webhooks);
  }

  private static ThresholdMonitor reportMonitor(Runtime runtime, double maxQps) {
    return ThresholdMonitor.builder()
        .maxQps(maxQps)
        .signal(ThroughputSignal.TEN_SECOND_WINDOW)
        .clock(runtime.clock())
        .build();
  }

  /** Registers the namespaces with monitors that measure but never throttle. */
  public static RoomObjects register(Runtime runtime) {
    return register(
        runtime,
        ThresholdMonitor.builder().clock(runtime.clock()).build(),
        ThresholdMonitor.builder().clock(runtime.clock()).build());
  }

  /**
   * Runs a room counter's draw on {@code runtime}, where {@link #register} registered the
   * namespaces, through its transport (decoding and encoding as a call from a gateway): a
   * coordinator peer does this at its start on a runtime in memory of its own, so that its first
   * draws as a new leader run loaded, compiled code (a first draw in a fresh JVM took 0.37-0.53 s,
   * the next new counter's 3-6 ms). Writes a counter of a room {@code warm-up} in that runtime.
   */
  public static void warmUp(Runtime runtime) {
    long minute = Math.floorDiv(runtime.clock().millis(), 60_000);
    CounterKey key = CounterKey.dataCenter("warm-up", "warm-up", minute);
    RoomCounter counter =
        io.anteroom.objects.Stubs.create(
            RoomCounter.class,
            COUNTER_NAMESPACE,
            io.anteroom.objects.ObjectId.fromName(COUNTER_NAMESPACE, key.objectName()),
            runtime.transport());
    for (int i = 0; i < 3; i++) {
      counter.takeCarrying(io.anteroom.room.Rules.published(), key, Long.MAX_VALUE, null);
    }
  }

  /** The object name of a data center's coordinator: {@code room/dataCenter}. */
  public static String dataCenterObjectName(String roomId, String dataCenter) {
    return roomId + "/" + dataCenter;
  }

  public DataCenterCoordinator dataCenter(String roomId, String dataCenter) {
    return dataCenters.get(dataCenterObjectName(roomId, dataCenter));
  }

  public GlobalCoordinator global(String roomId) {
    return globals.get(roomId);
  }

  /** The deployment's audit log. */
  public DeploymentAudit audit() {
    return audits.get(AUDIT_OBJECT);
  }

  /** The deployment's room documents. */
  public DeploymentRooms rooms() {
    return documents.get(AUDIT_OBJECT);
  }

  /** The counter object of {@code key} (its data center's, or the room's Anywhere counter). */
  public RoomCounter counter(CounterKey key) {
    return counters.get(key.objectName());
  }
}
