package io.anteroom.host;

import io.anteroom.coordinator.DataCenterCoordinator;
import io.anteroom.coordinator.RoomCounter;
import io.anteroom.coordinator.RoomObjects;
import io.anteroom.door.admission.Coordination;
import io.anteroom.objects.ObjectId;
import io.anteroom.objects.ObjectTransport;
import io.anteroom.objects.Runtime;
import io.anteroom.objects.http.HttpObjectTransport;
import io.anteroom.objects.http.IncarnationWatch;
import io.anteroom.objects.http.RoutingObjectTransport;
import io.anteroom.objects.http.SharedSecret;
import io.anteroom.room.CounterKey;
import io.anteroom.room.Grant;
import io.anteroom.room.RoomConfig;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@link Coordination} through the room's coordinating durable objects ({@link RoomObjects}): the
 * data-center object, the global object and the counter objects, in an objects {@link Runtime} of
 * this process ({@code anteroom run}, SQLite in {@code dataDir}) or of a coordinator process
 * reached over HTTP ({@code anteroom gateway --coordinator URL[,URL...]}: one coordinator, or the
 * coordinators of a replicated cluster). Every call carries the room's {@link RoomConfig}, which
 * the objects need; a room's config is the one last announced with {@link #configure}.
 *
 * <p>Thread safety: the config map is concurrent; stubs are thread-safe; async stub calls never
 * block the caller (an event loop).
 */
public final class ObjectCoordination implements Coordination {

  /** Where the stubs come from: an embedded runtime or a remote one. */
  interface Stubs extends AutoCloseable {
    DataCenterCoordinator dataCenter(String roomId, String dataCenter);

    RoomCounter counter(CounterKey key);

    io.anteroom.coordinator.DeploymentAudit audit();

    io.anteroom.coordinator.DeploymentRooms rooms();

    @Override
    void close();
  }

  private final Stubs stubs;
  private final Map<String, RoomConfig> configs = new ConcurrentHashMap<>();

  /** What the remote coordinators' replies said of their objects' instances; null: embedded. */
  private final IncarnationWatch incarnations;

  /** The embedded runtime's metrics; null when the objects are remote. */
  private final com.codahale.metrics.MetricSet objectMetrics;

  ObjectCoordination(Stubs stubs) {
    this(stubs, null);
  }

  ObjectCoordination(Stubs stubs, com.codahale.metrics.MetricSet objectMetrics) {
    this(stubs, objectMetrics, null);
  }

  private ObjectCoordination(
      Stubs stubs, com.codahale.metrics.MetricSet objectMetrics, IncarnationWatch incarnations) {
    this.stubs = stubs;
    this.objectMetrics = objectMetrics;
    this.incarnations = incarnations;
  }

  @Override
  public long incarnationChanges() {
    return incarnations == null ? 0 : incarnations.changes();
  }

  @Override
  public java.util.Optional<com.codahale.metrics.MetricSet> objectMetrics() {
    return java.util.Optional.ofNullable(objectMetrics);
  }

  /** Registers the room objects in {@code runtime} (which this coordination then owns). */
  public static ObjectCoordination embedded(Runtime runtime) {
    return embedded(runtime, RoomObjects.REPORT_MAX_QPS);
  }

  /** As above, with the data center's report budget (reports per second per runtime). */
  public static ObjectCoordination embedded(Runtime runtime, double reportMaxQps) {
    return embedded(runtime, reportMaxQps, io.anteroom.coordinator.WebhookTargets.NONE);
  }

  /** As above; the rooms' state changes are posted to {@code webhooks}. */
  public static ObjectCoordination embedded(
      Runtime runtime, double reportMaxQps, io.anteroom.coordinator.WebhookTargets webhooks) {
    RoomObjects objects = RoomObjects.register(runtime, reportMaxQps, webhooks);
    return new ObjectCoordination(
        new Stubs() {
          @Override
          public DataCenterCoordinator dataCenter(String roomId, String dataCenter) {
            return objects.dataCenter(roomId, dataCenter);
          }

          @Override
          public RoomCounter counter(CounterKey key) {
            return objects.counter(key);
          }

          @Override
          public io.anteroom.coordinator.DeploymentAudit audit() {
            return objects.audit();
          }

          @Override
          public io.anteroom.coordinator.DeploymentRooms rooms() {
            return objects.rooms();
          }

          @Override
          public void close() {
            runtime.close();
          }
        },
        runtime.metrics());
  }

  /** The webhooks of {@code config}'s {@code admin.webhooks} (none when it has none). */
  public static io.anteroom.coordinator.WebhookTargets webhooks(
      io.anteroom.door.config.GatewayConfig config) {
    var w = config.admin().webhooks();
    if (w.urls().isEmpty()) {
      return io.anteroom.coordinator.WebhookTargets.NONE;
    }
    return new io.anteroom.coordinator.WebhookTargets(
        w.urls().stream().map(java.net.URI::toString).toList(),
        w.secret().getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  /**
   * Stubs of the room objects of the coordinator at {@code uri}, unsigned (a coordinator on this
   * host without a secret); calls time out after {@code timeout}.
   */
  public static ObjectCoordination remote(URI uri, Duration timeout) {
    return remote(uri, timeout, null, List.of());
  }

  /**
   * Stubs of the room objects of the coordinator at {@code uri}: every call signed with {@code
   * secret} (null: unsigned), {@code https://} coordinators' certificates checked against the PEM
   * files {@code trust} (empty: the JVM's trust store).
   */
  public static ObjectCoordination remote(
      URI uri, Duration timeout, SharedSecret secret, List<Path> trust) {
    return remote(List.of(uri), timeout, secret, trust);
  }

  /**
   * Stubs of the room objects of the coordinators at {@code uris}: one URI is a single coordinator
   * (as above); several are the coordinators of a replicated cluster ({@code anteroom coordinator
   * --cluster}), reached through a {@link RoutingObjectTransport}: each call goes to the leader of
   * its object's shard (following 421 answers) and is sent again only when it certainly did not
   * run.
   */
  public static ObjectCoordination remote(
      List<URI> uris, Duration timeout, SharedSecret secret, List<Path> trust) {
    if (uris.isEmpty()) {
      throw new IllegalArgumentException("at least one coordinator URI is needed");
    }
    ObjectTransport transport;
    var incarnations = new IncarnationWatch();
    if (uris.size() == 1) {
      var http =
          HttpObjectTransport.builder(uris.getFirst())
              .timeout(timeout)
              .incarnations(incarnations)
              .trust(trust.toArray(Path[]::new));
      if (secret != null) {
        http.secret(secret);
      }
      transport = http.build();
    } else {
      var routing =
          RoutingObjectTransport.builder(uris)
              .timeout(timeout)
              .incarnations(incarnations)
              .trust(trust.toArray(Path[]::new));
      if (secret != null) {
        routing.secret(secret);
      }
      transport = routing.build();
    }
    return new ObjectCoordination(
        new Stubs() {
          @Override
          public DataCenterCoordinator dataCenter(String roomId, String dataCenter) {
            return stub(
                transport,
                RoomObjects.DATA_CENTER_NAMESPACE,
                DataCenterCoordinator.class,
                RoomObjects.dataCenterObjectName(roomId, dataCenter));
          }

          @Override
          public RoomCounter counter(CounterKey key) {
            return stub(
                transport, RoomObjects.COUNTER_NAMESPACE, RoomCounter.class, key.objectName());
          }

          @Override
          public io.anteroom.coordinator.DeploymentAudit audit() {
            return stub(
                transport,
                RoomObjects.AUDIT_NAMESPACE,
                io.anteroom.coordinator.DeploymentAudit.class,
                RoomObjects.AUDIT_OBJECT);
          }

          @Override
          public io.anteroom.coordinator.DeploymentRooms rooms() {
            return stub(
                transport,
                RoomObjects.ROOMS_NAMESPACE,
                io.anteroom.coordinator.DeploymentRooms.class,
                RoomObjects.AUDIT_OBJECT);
          }

          @Override
          public void close() {
            transport.close();
          }
        },
        null,
        incarnations);
  }

  private static <T> T stub(
      ObjectTransport transport, String namespace, Class<T> iface, String name) {
    return io.anteroom.objects.Stubs.create(
        iface, namespace, ObjectId.fromName(namespace, name), transport);
  }

  @Override
  public CompletionStage<Void> configure(RoomConfig config) {
    configs.put(config.roomId(), config);
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public CompletionStage<Coordination.ReportReply> report(
      String roomId,
      io.anteroom.room.WorkerReport report,
      io.anteroom.room.ConfigAgreement.Fingerprint fingerprint) {
    RoomConfig config = configs.get(roomId);
    if (config == null) {
      return unknown(roomId);
    }
    try {
      return stubs
          .dataCenter(roomId, report.dataCenter())
          .syncAsync(config, report, fingerprint)
          .thenApply(
              r ->
                  new Coordination.ReportReply(
                      r.state(), r.throttle(), r.overridesVersion(), r.agreement()));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e); // transport refused the call at once
    }
  }

  @Override
  public CompletionStage<io.anteroom.room.RoomOverrides> overrides(
      String roomId, String dataCenter) {
    try {
      return stubs.dataCenter(roomId, dataCenter).overridesAsync(roomId);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public CompletionStage<io.anteroom.room.RoomOverrides> override(
      String roomId, String dataCenter, Map<String, String> changes) {
    try {
      return stubs.dataCenter(roomId, dataCenter).overrideAsync(roomId, changes);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public CompletionStage<Boolean> claimChallenge(
      String roomId, String dataCenter, String nonce, long expiresAtMillis) {
    try {
      return stubs
          .dataCenter(roomId, dataCenter)
          .claimAsync(roomId, nonce, expiresAtMillis)
          .thenApply(r -> r.first());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public CompletionStage<io.anteroom.room.AccountPlaces.Reply> place(
      String roomId,
      String dataCenter,
      String account,
      io.anteroom.room.AccountPlaces.Place offer,
      long replacesId) {
    try {
      return stubs
          .dataCenter(roomId, dataCenter)
          .placeAsync(roomId, account, offer, replacesId)
          .thenApply(
              r -> new io.anteroom.room.AccountPlaces.Reply(r.place(), r.stored(), r.full()));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public CompletionStage<io.anteroom.room.report.RoomReport> eventReport(
      String roomId, String dataCenter, long fromDay, long toDay) {
    try {
      return stubs
          .dataCenter(roomId, dataCenter)
          .eventReportAsync(roomId, fromDay, toDay)
          .thenApply(r -> new io.anteroom.room.report.RoomReport(r.days(), r.events()));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public CompletionStage<java.util.List<io.anteroom.room.history.HistoryRow>> history(
      String roomId, String dataCenter, long fromMinute, long toMinute) {
    try {
      return stubs
          .dataCenter(roomId, dataCenter)
          .historyAsync(roomId, fromMinute, toMinute)
          .thenApply(r -> r.rows());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public CompletionStage<Grant> take(CounterKey key, long limit, Instant carriedSince) {
    RoomConfig config = configs.get(key.roomId());
    if (config == null) {
      return unknown(key.roomId());
    }
    try {
      return stubs.counter(key).takeCarryingAsync(config.rules(), key, limit, carriedSince);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public CompletionStage<Long> charge(CounterKey key, long admissions, long limit) {
    RoomConfig config = configs.get(key.roomId());
    if (config == null) {
      return unknown(key.roomId());
    }
    try {
      return stubs.counter(key).chargeAsync(config.rules(), key, admissions, limit);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private static <T> CompletableFuture<T> unknown(String roomId) {
    return CompletableFuture.failedFuture(
        new IllegalStateException("room \"" + roomId + "\" was not announced with configure()"));
  }

  @Override
  public CompletionStage<Void> remove(String roomId) {
    configs.remove(roomId);
    return CompletableFuture.completedFuture(null);
  }

  /**
   * The deployment's room documents: their object at the coordinator ({@link RoomObjects#rooms}).
   */
  @Override
  public io.anteroom.door.admission.RoomDocumentStore roomDocuments() {
    return new io.anteroom.door.admission.RoomDocumentStore() {
      @Override
      public CompletionStage<io.anteroom.room.documents.RoomDocuments.Written> write(
          io.anteroom.room.documents.RoomDocuments.Write write) {
        try {
          return stubs.rooms().writeAsync(write);
        } catch (RuntimeException e) {
          return CompletableFuture.failedFuture(e);
        }
      }

      @Override
      public CompletionStage<io.anteroom.room.documents.RoomDocuments.Changes> since(long version) {
        try {
          return stubs.rooms().sinceAsync(version);
        } catch (RuntimeException e) {
          return CompletableFuture.failedFuture(e);
        }
      }
    };
  }

  /** The deployment's audit log: its object at the coordinator ({@link RoomObjects#audit}). */
  @Override
  public io.anteroom.door.admission.AuditLog audit() {
    return new io.anteroom.door.admission.AuditLog() {
      @Override
      public CompletionStage<io.anteroom.room.audit.AuditEntry> append(
          io.anteroom.room.audit.AuditEntry entry) {
        try {
          return stubs.audit().appendAsync(entry);
        } catch (RuntimeException e) {
          return CompletableFuture.failedFuture(e);
        }
      }

      @Override
      public CompletionStage<List<io.anteroom.room.audit.AuditEntry>> page(long before, int limit) {
        try {
          return stubs.audit().pageAsync(before, limit).thenApply(p -> p.entries());
        } catch (RuntimeException e) {
          return CompletableFuture.failedFuture(e);
        }
      }
    };
  }

  @Override
  public void close() {
    stubs.close();
  }
}
