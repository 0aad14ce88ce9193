package io.anteroom.door;

import com.codahale.metrics.MetricRegistry;
import io.anteroom.door.admission.OriginProtection;
import io.anteroom.door.admission.RoomControl;
import io.anteroom.door.admission.RoomGate;
import io.anteroom.door.config.GatewayConfig;
import io.anteroom.door.config.GatewayConfig.RoomSettings;
import io.anteroom.door.config.GatewayConfig.Route;
import io.anteroom.door.config.InvitationKey;
import io.anteroom.door.config.LiveOverrides;
import io.anteroom.door.config.RoomTemplates;
import io.anteroom.door.config.TemplateDirectory;
import io.anteroom.door.proof.ChallengeCodec;
import io.anteroom.door.proof.DoorCheck;
import io.anteroom.door.proof.Invitations;
import io.anteroom.door.queue.QueuePacing;
import io.anteroom.door.queue.QueueResponder;
import io.anteroom.door.route.ClientAddress;
import io.anteroom.door.route.RoomRouter;
import io.anteroom.door.route.RuleMatcher;
import io.anteroom.door.ticket.TicketCodec;
import io.anteroom.door.ticket.TicketCookie;
import io.anteroom.room.RoomOverrides;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The live set of rooms. Readers (request threads) take the current {@link Snapshot} from a
 * volatile field and never lock; writers (admin API, start-up) are serialized by this object's
 * monitor, build a new snapshot and publish it. A room keeps its {@link RoomControl} across
 * updates, so its counts survive a settings change; a deleted room's is closed.
 *
 * <p>A room's settings in force are its configured settings (file or admin API) with its live
 * overrides applied ({@link LiveOverrides}); the overrides come from the room's control ({@link
 * RoomControl#onOverrides}), newest version only, and survive a change of the configured settings.
 */
public final class Rooms implements AutoCloseable {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Rooms.class);

  /** Builds the admission of a room (embedded objects, remote coordinator, or a test fake). */
  public interface GateFactory {
    public RoomControl create(RoomSettings settings);

    /**
     * Where the admin API records its changes: the coordination's audit log; by default one in this
     * process's memory (a factory of test fakes).
     */
    default io.anteroom.door.admission.AuditLog audit() {
      return io.anteroom.door.admission.AuditLog.inMemory(System::currentTimeMillis);
    }

    /**
     * The deployment's room documents this gateway follows: the coordination's; by default ones in
     * this process's memory (a factory of test fakes).
     */
    default io.anteroom.door.admission.RoomDocumentStore documents() {
      return io.anteroom.door.admission.RoomDocumentStore.inMemory(System::currentTimeMillis);
    }
  }

  public record Snapshot(RoomRouter<RoomRuntime> router, Map<String, RoomRuntime> byId) {}

  private final GateFactory gates;

  /** Told the gate of every room deleted ({@link #onDeleted}). */
  private final List<java.util.function.Consumer<RoomGate>> deleted =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  private final MetricRegistry registry;
  private final Function<RoomSettings, QueuePacing> pacing;
  private final java.time.Clock clock;
  private final TicketCodec codec;
  private final ChallengeCodec challenges;
  private final TemplateDirectory templates;
  private final ClientAddress clients;

  /** The highest generation each room id has had in this process (deleted rooms' too). */
  private final Map<String, Long> generations = new HashMap<>();

  private final Answers answers;
  private volatile Snapshot snapshot;

  /** Each room's settings as configured, before its live overrides (guarded by this). */
  private final Map<String, RoomSettings> configured = new HashMap<>();

  /**
   * Each room's templates kept with its document at the coordinator, by name (guarded by this); a
   * room without an entry reads its templates from {@code templatesDir} only.
   */
  private final Map<String, Map<String, String>> kept = new HashMap<>();

  /** Each room's live overrides in force (guarded by this). */
  private final Map<String, RoomOverrides> overrides = new HashMap<>();

  /**
   * The rooms of {@code config}, each with the admission {@code gates} builds, its meters in {@code
   * registry} and its queue pacing; tickets sealed with {@code codec}, challenges signed with
   * {@code challenges}.
   */
  public Rooms(
      GatewayConfig config,
      GateFactory gates,
      MetricRegistry registry,
      Function<RoomSettings, QueuePacing> pacing,
      java.time.Clock clock,
      TicketCodec codec,
      ChallengeCodec challenges) {
    this.clock = clock;
    this.codec = codec;
    this.challenges = challenges;
    this.gates = gates;
    this.registry = registry;
    this.pacing = pacing;
    this.answers = new Answers(clock);
    this.templates = new TemplateDirectory(config.templatesDir());
    this.clients = new ClientAddress(config.trustedProxies());
    var byId = new LinkedHashMap<String, RoomRuntime>();
    var created = new ArrayList<RoomControl>();
    for (RoomSettings s : config.rooms()) {
      RoomControl gate = gates.create(s);
      byId.put(s.id(), build(s, gate, null, new QueueResponder(s, templates)));
      configured.put(s.id(), s);
      remember(s);
      created.add(gate);
    }
    publish(byId);
    for (int i = 0; i < created.size(); i++) {
      String id = config.rooms().get(i).id();
      created.get(i).onOverrides(o -> applyOverrides(id, o));
    }
  }

  /**
   * Applies a room's live overrides if they are newer than the ones in force; returns the room's
   * runtime (empty when the room is gone).
   */
  public synchronized Optional<RoomRuntime> applyOverrides(String id, RoomOverrides o) {
    RoomRuntime old = snapshot.byId().get(id);
    if (old == null) {
      return Optional.empty();
    }
    RoomOverrides current = overrides.get(id);
    if (current != null && current.version() >= o.version()) {
      return Optional.of(old);
    }
    overrides.put(id, o);
    RoomSettings s = LiveOverrides.apply(configured.get(id), o);
    if (s.equals(old.settings())) {
      return Optional.of(old);
    }
    try {
      return Optional.of(replace(old, s));
    } catch (IllegalArgumentException e) {
      // e.g. a room override whose routes clash with another room of this gateway's config
      LOG.warn(
          "room {}: the live overrides (version {}) cannot apply on this gateway, keeping its"
              + " settings: {}",
          id,
          o.version(),
          e.getMessage());
      return Optional.of(old);
    }
  }

  /** A room's settings as configured, before its live overrides (null: no such room). */
  public synchronized RoomSettings configured(String id) {
    return configured.get(id);
  }

  /** The live overrides in force for a room (null: none heard yet). */
  public synchronized RoomOverrides overrides(String id) {
    return overrides.get(id);
  }

  public Snapshot snapshot() {
    return snapshot;
  }

  /** Who clients are (the peer, or what a trusted proxy says). */
  public ClientAddress clients() {
    return clients;
  }

  public List<RoomSettings> list() {
    return snapshot.byId().values().stream().map(RoomRuntime::settings).toList();
  }

  public Optional<RoomRuntime> get(String id) {
    return Optional.ofNullable(snapshot.byId().get(id));
  }

  /**
   * Adds a room with the generation its settings name; see {@link #create(RoomSettings, boolean)}.
   */
  public RoomRuntime create(RoomSettings s) {
    return create(s, true);
  }

  /**
   * Adds a room; throws {@link IllegalArgumentException} when the id or a route is taken.
   *
   * <p>A room id this process has known before (configured, or created and deleted through the
   * admin API) is a new room for its old tickets: without {@code generationGiven} it gets a fresh
   * generation, the greater of the highest one the id had plus 1 and the current time in epoch
   * seconds; a given generation must be above the highest one the id had (else old tickets would
   * open again). An id never seen keeps the generation of its settings (default 0), so that
   * gateways of one deployment agree on it.
   */
  public synchronized RoomRuntime create(RoomSettings s, boolean generationGiven) {
    return create(s, generationGiven, null);
  }

  /**
   * Adds a room whose queue pages read {@code templates} (kept with its document; null: none)
   * before this gateway's {@code templatesDir}; see {@link #create(RoomSettings, boolean)}.
   */
  public synchronized RoomRuntime create(
      RoomSettings s, boolean generationGiven, Map<String, String> templates) {
    var byId = new LinkedHashMap<>(snapshot.byId());
    if (byId.containsKey(s.id())) {
      throw new IllegalArgumentException(
          "room \"" + s.id() + "\" already exists; use PUT to" + " change it");
    }
    Long highest = generations.get(s.id());
    if (highest != null) {
      if (!generationGiven && highest < RoomSettings.MAX_GENERATION) {
        s = s.withGeneration(Math.max(highest + 1, clock.millis() / 1000));
      } else if (s.generation() <= highest) {
        throw new IllegalArgumentException(
            "generation: "
                + s.generation()
                + " is not above "
                + highest
                + ", the highest generation room \""
                + s.id()
                + "\" has had: its old tickets would open again; give a greater one, or leave"
                + " generation out to get a fresh one");
      }
    }
    checkRoutes(byId, s);
    // a refused template changes nothing
    var responder = new QueueResponder(s, new RoomTemplates(templates, this.templates));
    RoomControl gate = gates.create(s);
    RoomRuntime runtime = build(s, gate, null, responder);
    byId.put(s.id(), runtime);
    configured.put(s.id(), s);
    overrides.remove(s.id());
    keep(s.id(), templates);
    remember(s);
    publish(byId);
    String id = s.id();
    gate.onOverrides(o -> applyOverrides(id, o));
    return snapshot.byId().get(id);
  }

  /**
   * Replaces a room's settings live, generation included; see {@link #update(RoomSettings,
   * boolean)}.
   */
  public RoomRuntime update(RoomSettings s) {
    return update(s, true);
  }

  /**
   * Replaces a room's settings live, keeping its gate (and thus its counts). Without {@code
   * generationGiven} the room keeps its generation; a given one is honoured (tickets of the old
   * generation then open as new users).
   */
  public synchronized RoomRuntime update(RoomSettings s, boolean generationGiven) {
    return update(s, generationGiven, null);
  }

  /**
   * Replaces a room's settings and its kept templates ({@code templates}; null: it keeps its own)
   * live; see {@link #update(RoomSettings, boolean)}. A refused template changes nothing.
   */
  public synchronized RoomRuntime update(
      RoomSettings s, boolean generationGiven, Map<String, String> templates) {
    var byId = new LinkedHashMap<>(snapshot.byId());
    RoomRuntime old = byId.get(s.id());
    if (old == null) {
      throw new IllegalArgumentException(
          "no room \"" + s.id() + "\"; use POST /rooms to create" + " it");
    }
    if (!generationGiven) {
      s = s.withGeneration(old.settings().generation());
    }
    Map<String, String> had = kept.get(s.id());
    if (templates != null) {
      keep(s.id(), templates);
    }
    RoomRuntime runtime;
    try {
      runtime = replace(old, LiveOverrides.apply(s, overrides.get(s.id())));
    } catch (IllegalArgumentException e) {
      keep(s.id(), had);
      throw e;
    }
    configured.put(s.id(), s);
    return runtime;
  }

  /** Swaps a room's runtime for one with settings {@code s}, keeping its gate. */
  /**
   * Checks that {@code s} could replace its room here (routes, templates) without changing
   * anything.
   *
   * @throws IllegalArgumentException naming the problem
   */
  public synchronized void check(RoomSettings s) {
    var byId = new LinkedHashMap<>(snapshot.byId());
    if (byId.remove(s.id()) == null) {
      throw new IllegalArgumentException(
          "no room \"" + s.id() + "\"; use POST /rooms to create" + " it");
    }
    checkRoutes(byId, s);
    new QueueResponder(s, templatesOf(s.id()));
  }

  /**
   * Checks that the queue pages of {@code s} (its template and its events', with their partials)
   * compile from this gateway's {@code templatesDir}, without changing anything.
   *
   * @throws IllegalArgumentException naming the problem
   */
  public void checkTemplates(RoomSettings s) {
    queuePage(s);
  }

  /**
   * The queue page {@code s} would have here (its template from this gateway's {@code
   * templatesDir}), for a preview; nothing changes.
   *
   * @throws IllegalArgumentException naming the problem
   */
  public QueueResponder queuePage(RoomSettings s) {
    return new QueueResponder(s, templatesOf(s.id()));
  }

  /**
   * The queue page {@code s} would have here with {@code templates} kept with its document (null:
   * the ones its room keeps now), for a preview; nothing changes.
   *
   * @throws IllegalArgumentException naming the problem
   */
  public QueueResponder queuePage(RoomSettings s, Map<String, String> templates) {
    return new QueueResponder(
        s, templates == null ? templatesOf(s.id()) : new RoomTemplates(templates, this.templates));
  }

  /** A room's templates as this gateway reads them: kept with its document, then templatesDir. */
  public synchronized RoomTemplates templatesOf(String id) {
    return new RoomTemplates(kept.get(id), templates);
  }

  /** The templates kept with a room's document, by name (empty: none). */
  public synchronized Map<String, String> keptTemplates(String id) {
    return kept.getOrDefault(id, Map.of());
  }

  private void keep(String id, Map<String, String> templates) {
    if (templates == null || templates.isEmpty()) {
      kept.remove(id);
    } else {
      kept.put(id, Map.copyOf(templates));
    }
  }

  private RoomRuntime replace(RoomRuntime old, RoomSettings s) {
    var byId = new LinkedHashMap<>(snapshot.byId());
    byId.remove(s.id());
    checkRoutes(byId, s);
    // a refused template changes nothing
    var responder = new QueueResponder(s, templatesOf(s.id()));
    old.control().reconfigure(s);
    RoomRuntime runtime = build(s, old.control(), old, responder);
    byId.put(s.id(), runtime);
    remember(s);
    publish(byId);
    return runtime;
  }

  private void remember(RoomSettings s) {
    generations.merge(s.id(), s.generation(), Math::max);
  }

  /** Called with the gate of every room deleted, once it no longer takes requests. */
  public void onDeleted(java.util.function.Consumer<RoomGate> listener) {
    deleted.add(listener);
  }

  public synchronized boolean delete(String id) {
    var byId = new LinkedHashMap<>(snapshot.byId());
    RoomRuntime old = byId.remove(id);
    if (old == null) {
      return false;
    }
    configured.remove(id);
    overrides.remove(id);
    kept.remove(id);
    publish(byId);
    old.control().close();
    RoomRuntime.Meters.unregister(registry, id);
    deleted.forEach(listener -> listener.accept(old.gate()));
    return true;
  }

  private static void checkRoutes(Map<String, RoomRuntime> others, RoomSettings s) {
    for (RoomRuntime r : others.values()) {
      for (Route route : s.routes()) {
        if (r.settings().routes().contains(route)) {
          throw new IllegalArgumentException(
              "route "
                  + route.host()
                  + route.path()
                  + " already belongs to room \""
                  + r.settings().id()
                  + "\"");
        }
      }
    }
  }

  private RoomRuntime build(
      RoomSettings s, RoomControl gate, RoomRuntime previous, QueueResponder responder) {
    var meters =
        previous != null ? previous.meters() : RoomRuntime.Meters.register(registry, s.id());
    if (!s.resilience().originProtection().enabled()) {
      gate.limitNewUsersPerMinute(s.limits().newUsersPerMinute());
    }
    var protection =
        s.resilience().originProtection().enabled() ? new OriginProtection(s, clock) : null;
    registry.remove("anteroom.room." + s.id() + ".effective_new_users_per_minute");
    registry.gauge(
        "anteroom.room." + s.id() + ".effective_new_users_per_minute",
        () ->
            () ->
                protection != null
                    ? protection.effectiveNewUsersPerMinute()
                    : s.limits().newUsersPerMinute());
    var cookie =
        new TicketCookie(
            s.id(),
            s.generation(),
            s.cookie().cookieSuffix(),
            s.cookie().cookieSecure(),
            s.cookie().cookieSameSite(),
            codec);
    return new RoomRuntime(
        s,
        gate,
        cookie,
        new RuleMatcher(s.id(), s.allRules()),
        responder,
        pacing.apply(s),
        meters,
        protection,
        door(s, previous),
        limit(s, previous),
        human(s),
        previous != null && previous.humanFailures() != null
            ? previous.humanFailures()
            : new io.anteroom.door.proof.RepeatedFailures(65_536, 1),
        invitations(s, previous),
        RoomAccounts.of(s, codec, previous == null ? null : previous.accounts()),
        answers);
  }

  /**
   * The room's proof-of-work check, keeping the previous one's memories across a change; present
   * when the room or any of its events turns the check on (the edge asks which applies now).
   */
  private DoorCheck door(RoomSettings s, RoomRuntime previous) {
    boolean anyEvent =
        s.events().stream().anyMatch(e -> e.proofOfWork().map(p -> p.enabled()).orElse(false));
    boolean anyRule =
        s.allRules().stream()
            .anyMatch(
                r -> r.action() == io.anteroom.door.config.GatewayConfig.RuleAction.CHALLENGE);
    if (!s.protection().proofOfWork().enabled() && !anyEvent && !anyRule) {
      return null;
    }
    if (previous != null && previous.door() != null) {
      return previous.door().withSettings(s.id(), s.generation(), s.protection().proofOfWork());
    }
    return new DoorCheck(
        s.id(), s.generation(), s.protection().proofOfWork(), challenges, DoorCheck.secureNonces());
  }

  /**
   * The room's human-check verifier (siteverify), with the secret read from its file now; null when
   * the check is off or the secret cannot be read (then one log line, and the door answers as the
   * check's {@code onUnavailable} says).
   */
  private static io.anteroom.door.proof.HumanVerifier human(RoomSettings s) {
    var h = s.protection().humanCheck();
    if (!h.enabled()) {
      return null;
    }
    String secret;
    try {
      secret = java.nio.file.Files.readString(h.secretFile()).strip();
    } catch (java.io.IOException | RuntimeException e) {
      org.slf4j.LoggerFactory.getLogger(Rooms.class)
          .warn(
              "room {}: cannot read the human check's secret {} ({}); the check is unavailable",
              s.id(),
              h.secretFile(),
              e.getClass().getSimpleName());
      return (token, ip) ->
          java.util.concurrent.CompletableFuture.completedFuture(
              new io.anteroom.door.proof.HumanVerifier.Result(
                  io.anteroom.door.proof.HumanVerifier.Outcome.UNAVAILABLE, "no secret"));
    }
    return new io.anteroom.door.proof.SiteVerify(
        h.verifyUrl(), secret, java.time.Duration.ofMillis(h.timeoutMillis()));
  }

  /** The room's address limit, keeping the previous one's counts while its rate is unchanged. */
  private static io.anteroom.door.proof.NewIdentityLimit limit(
      RoomSettings s, RoomRuntime previous) {
    if (!s.protection().addressLimit().enabled()) {
      return null;
    }
    int perMinute = s.protection().addressLimit().newIdentitiesPerMinute();
    if (previous != null
        && previous.limit() != null
        && previous.limit().perMinute() == perMinute
        && previous.settings().protection().addressLimit().equals(s.protection().addressLimit())) {
      return previous.limit();
    }
    return new io.anteroom.door.proof.NewIdentityLimit(
        perMinute, io.anteroom.door.proof.NewIdentityLimit.DEFAULT_CAPACITY);
  }

  /**
   * The room's invitations, keeping the previous memory of used ones across a change; present when
   * the room or any of its events requires invitations.
   *
   * @throws IllegalArgumentException when the key file cannot be read (any more)
   */
  private static Invitations invitations(RoomSettings s, RoomRuntime previous) {
    boolean anyEvent = s.events().stream().anyMatch(e -> e.invitationsRequired().orElse(false));
    if (!s.protection().invitations().required() && !anyEvent
        || s.protection().invitations().keyFile().isEmpty()) {
      return null;
    }
    byte[] key = InvitationKey.read(s.protection().invitations().keyFile().get());
    if (previous != null && previous.invitations() != null) {
      return previous.invitations().withKey(s.id(), key);
    }
    return new Invitations(s.id(), key);
  }

  private void publish(Map<String, RoomRuntime> byId) {
    var rooms = new ArrayList<>(byId.values());
    snapshot =
        new Snapshot(
            RoomRouter.of(rooms, r -> r.settings().routes()),
            java.util.Collections.unmodifiableMap(new LinkedHashMap<>(byId)));
  }

  /**
   * The rooms' background work at {@code nowMillis} (reports when due, event boundaries): called
   * about four times a second by the server's timer. Must not block.
   */
  public void tick(long nowMillis) {
    snapshot.byId().values().forEach(r -> r.control().tick(nowMillis));
  }

  /** One origin-protection step (AIMD) of every room that has it on. */
  public void protect() {
    for (RoomRuntime r : snapshot.byId().values()) {
      if (r.protection() != null) {
        r.control().limitNewUsersPerMinute(r.protection().tick());
      }
    }
  }

  @Override
  public synchronized void close() {
    snapshot.byId().values().forEach(r -> r.control().close());
  }
}
