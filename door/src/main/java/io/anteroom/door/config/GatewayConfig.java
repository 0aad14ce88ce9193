package io.anteroom.door.config;

import io.anteroom.room.RoomConfig;
import io.anteroom.room.slots.StrategyKind;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The whole gateway configuration, as read from YAML by {@link ConfigLoader} and validated there.
 * Every field has a documented default (see {@code docs/gateway.md}); records here are immutable,
 * so a live update from the admin API replaces a {@link RoomSettings} instead of mutating it.
 *
 * <pre>{@code
 * GatewayConfig config = ConfigLoader.load(Path.of("anteroom.yaml"));
 * GatewayConfig quick = ConfigLoader.forOrigin(URI.create("http://127.0.0.1:3000"));
 * }</pre>
 *
 * @param listen address the public listener binds, {@code host:port}
 * @param origin default upstream for rooms without their own {@code origin}
 * @param dataDir directory for SQLite storage and generated ticket keys
 * @param admin admin listener and its bearer token
 * @param ticketKeys configured ticket keys (first one seals); empty = generated into {@code
 *     dataDir}
 * @param originTimeoutSeconds how long the origin may take to answer before a 504
 * @param drainSeconds how long a graceful shutdown waits for in-flight requests
 * @param rooms the protected rooms, in routing order
 * @param trustedProxies CIDR blocks of proxies in front of the gateway whose {@code
 *     X-Forwarded-For/-Proto/-Host} are believed; empty: none
 * @param templatesDir the only directory rooms' {@code template}s are read from; empty: the
 *     built-in page only
 * @param publicListener TLS, PROXY protocol and connection limits of the public listener
 */
public record GatewayConfig(
    HostPort listen,
    URI origin,
    Path dataDir,
    AdminSettings admin,
    List<TicketKey> ticketKeys,
    int originTimeoutSeconds,
    int drainSeconds,
    List<RoomSettings> rooms,
    Optional<Path> templatesDir,
    List<String> trustedProxies,
    PublicListenerSettings publicListener) {

  public GatewayConfig {
    ticketKeys = List.copyOf(ticketKeys);
    rooms = List.copyOf(rooms);
    trustedProxies = List.copyOf(trustedProxies);
  }

  /** The room with this id, if configured. */
  public Optional<RoomSettings> room(String id) {
    return rooms.stream().filter(r -> r.id().equals(id)).findFirst();
  }

  GatewayConfig withRooms(List<RoomSettings> newRooms) {
    return toBuilder().rooms(newRooms).build();
  }

  /** The same configuration with other public and admin listener addresses. */
  public GatewayConfig withListen(HostPort newListen, HostPort newAdminListen) {
    return toBuilder().listen(newListen).admin(admin.withListen(newAdminListen)).build();
  }

  /** The same configuration with another default {@code origin} (the rooms stay). */
  public GatewayConfig withOrigin(URI newOrigin) {
    return toBuilder().origin(newOrigin).build();
  }

  public GatewayConfig withDataDir(Path newDataDir) {
    return toBuilder().dataDir(newDataDir).build();
  }

  private Builder toBuilder() {
    var b = new Builder();
    b.listen = listen;
    b.origin = origin;
    b.dataDir = dataDir;
    b.admin = admin;
    b.ticketKeys = ticketKeys;
    b.originTimeoutSeconds = originTimeoutSeconds;
    b.drainSeconds = drainSeconds;
    b.rooms = rooms;
    b.templatesDir = templatesDir;
    b.trustedProxies = trustedProxies;
    b.publicListener = publicListener;
    return b;
  }

  /** Changes some fields of a {@link GatewayConfig}: the one place its fields are copied. */
  private static final class Builder {
    private HostPort listen;
    private URI origin;
    private Path dataDir;
    private AdminSettings admin;
    private List<TicketKey> ticketKeys;
    private int originTimeoutSeconds;
    private int drainSeconds;
    private List<RoomSettings> rooms;
    private Optional<Path> templatesDir;
    private List<String> trustedProxies;
    private PublicListenerSettings publicListener;

    Builder listen(HostPort v) {
      listen = v;
      return this;
    }

    Builder origin(URI v) {
      origin = v;
      return this;
    }

    Builder dataDir(Path v) {
      dataDir = v;
      return this;
    }

    Builder admin(AdminSettings v) {
      admin = v;
      return this;
    }

    Builder rooms(List<RoomSettings> v) {
      rooms = v;
      return this;
    }

    GatewayConfig build() {
      return new GatewayConfig(
          listen,
          origin,
          dataDir,
          admin,
          ticketKeys,
          originTimeoutSeconds,
          drainSeconds,
          rooms,
          templatesDir,
          trustedProxies,
          publicListener);
    }
  }

  /** A {@code host:port} pair to bind or to reach. */
  public record HostPort(String host, int port) {
    @Override
    public String toString() {
      return host + ":" + port;
    }
  }

  /**
   * Admin listener; {@code token} empty means a token is generated into {@code dataDir}; {@code
   * protectMetrics} makes {@code /metrics} require it too; {@code webhooks}: where the deployment's
   * room state changes are posted (by the process that hosts the room objects).
   */
  public record AdminSettings(
      HostPort listen,
      String token,
      boolean protectMetrics,
      ConnectionLimits limits,
      List<NamedToken> tokens,
      Webhooks webhooks) {

    public AdminSettings {
      tokens = List.copyOf(tokens);
      webhooks = webhooks == null ? Webhooks.NONE : webhooks;
    }

    /** Without webhooks. */
    public AdminSettings(
        HostPort listen,
        String token,
        boolean protectMetrics,
        ConnectionLimits limits,
        List<NamedToken> tokens) {
      this(listen, token, protectMetrics, limits, tokens, Webhooks.NONE);
    }

    /** The same settings (tokens, limits, webhooks) on another listener address. */
    public AdminSettings withListen(HostPort newListen) {
      return new AdminSettings(newListen, token, protectMetrics, limits, tokens, webhooks);
    }

    /** The name of the token of {@code admin.token} (and of the generated one): scope admin. */
    public static final String DEFAULT_TOKEN_NAME = "admin";

    /** Shorter tokens can be guessed over the network; generated ones have 64 hex digits. */
    public static final int MIN_TOKEN_LENGTH = 16;

    /** The file under {@code dataDir} that holds a generated token. */
    public static final String TOKEN_FILE = "admin-token";
  }

  /**
   * {@code admin.webhooks}: the URLs every room state change is posted to, signed with HMAC-SHA256
   * keyed with the content of {@code secretFile} (see docs/reports.md).
   *
   * @param urls http(s) URLs; empty: none
   * @param secret the secret file's content, stripped (at least {@value #MIN_SECRET_LENGTH}
   *     characters); empty without URLs
   */
  public record Webhooks(List<URI> urls, String secret) {
    public static final Webhooks NONE = new Webhooks(List.of(), "");

    /** A shorter secret could be guessed; {@code openssl rand -hex 32} gives 64 characters. */
    public static final int MIN_SECRET_LENGTH = 32;

    public Webhooks {
      urls = List.copyOf(urls);
    }

    @Override
    public String toString() {
      return "Webhooks" + urls; // never the secret
    }
  }

  /**
   * One admin token of {@code admin.tokens} (or {@code admin.token}, named {@code admin}): its name
   * (who the audit log names), its scope and its secret (read from {@code tokenFile} when the
   * config names a file).
   */
  public record NamedToken(String name, AdminScope scope, String secret) {
    @Override
    public String toString() {
      return "NamedToken[" + name + ", " + scope.key() + "]"; // never the secret
    }
  }

  /**
   * The public listener beyond its address: HTTPS when {@code tls} is set, the PROXY protocol
   * (v1/v2, required on every connection, believed only from {@code trustedProxies}) when {@code
   * proxyProtocol}, its connection limits, and the access log (one line per request on the logger
   * {@code anteroom.access}) when {@code accessLog}; {@code transport} is the socket transport of
   * the gateway's event loops, which serve this listener (and the origin client, the admin
   * listener); {@code push} bounds the queue pages' held push polls.
   */
  public record PublicListenerSettings(
      Optional<TlsFiles> tls,
      boolean proxyProtocol,
      ConnectionLimits limits,
      boolean accessLog,
      IoTransport transport,
      PushSettings push) {
    static final PublicListenerSettings DEFAULT =
        new PublicListenerSettings(
            Optional.empty(), false, ConnectionLimits.PUBLIC, false, IoTransport.AUTO);

    /** With the default push settings. */
    public PublicListenerSettings(
        Optional<TlsFiles> tls,
        boolean proxyProtocol,
        ConnectionLimits limits,
        boolean accessLog,
        IoTransport transport) {
      this(tls, proxyProtocol, limits, accessLog, transport, PushSettings.DEFAULT);
    }
  }

  /**
   * The queue page's push ({@code docs/gateway.md}, "Your turn without delay"): at most {@code
   * maxHeldPolls} polls held at a time by this gateway (0: off; beyond it a poll is answered {@code
   * 503} and its page keeps refreshing), each for at most {@code pollHoldSeconds}.
   */
  public record PushSettings(int maxHeldPolls, int pollHoldSeconds) {
    public static final PushSettings DEFAULT =
        new PushSettings(
            io.anteroom.door.queue.HeldPolls.DEFAULT_MAX,
            io.anteroom.door.queue.HeldPolls.DEFAULT_HOLD_SECONDS);
  }

  /** A PEM certificate (chain) and its PEM private key (PKCS#8 or PKCS#1). */
  public record TlsFiles(Path certFile, Path keyFile) {}

  /**
   * What one listener lets a client hold: at most {@code maxConnections} connections open (the next
   * ones are closed at once); a connection without a request in progress must deliver a complete
   * request head within {@code requestHeadTimeoutMillis} (of opening, or of its previous response)
   * or is closed; a connection without any traffic for {@code idleTimeoutSeconds} is closed.
   */
  public record ConnectionLimits(
      int maxConnections, int requestHeadTimeoutMillis, int idleTimeoutSeconds) {
    public static final ConnectionLimits PUBLIC = new ConnectionLimits(10_000, 10_000, 120);
    public static final ConnectionLimits ADMIN = new ConnectionLimits(64, 10_000, 60);
  }

  /** A ticket key: the id byte written in every cookie, and the 128/192/256-bit AES key. */
  public record TicketKey(int id, byte[] secret) {}

  /** A host + path prefix that leads to a room. */
  public record Route(String host, String path) {}

  /**
   * One protected site: its identity ({@code id}, {@code generation}), its settings in small groups
   * and its scheduled {@code events}. The name of every component of the groups is its YAML key.
   *
   * <p>The groups follow what a reader looks for: {@link Routing} (which requests and where they
   * go), {@link Limits} (the room core's keys: how many get in, how fast, for how long), {@link
   * Switches} (the live switches), {@link Cookie} (the ticket cookie), {@link QueuePage} (what a
   * waiting user is shown), {@link Resilience} (what the room does when a part struggles: the
   * coordinator, the origin, too many polls) and {@link Protection} (who may try at all: rules and
   * the door's checks, {@code docs/bot-defence.md}).
   *
   * <p>Keys, defaults and ranges: {@link RoomKeys}, the one table the config file and the admin API
   * read and write through. A new room key is a component of one group (and its builder) and an
   * entry of that table; an event's overrides apply in one place, {@link #during}.
   *
   * @param generation in every ticket's associated data: a ticket of another generation of the same
   *     room id opens as a new user
   */
  public record RoomSettings(
      String id,
      long generation,
      Routing routing,
      Limits limits,
      Switches switches,
      Cookie cookie,
      QueuePage queuePage,
      Resilience resilience,
      Protection protection,
      List<EventSettings> events) {

    /** The largest {@code generation}: a whole number that JSON readers of any language keep. */
    public static final long MAX_GENERATION = (1L << 53) - 1;

    public RoomSettings {
      events = List.copyOf(events);
    }

    /** A builder with every group empty: {@link RoomKeys} fills it; see {@link #toBuilder}. */
    static Builder builder() {
      return new Builder();
    }

    /** A builder holding this room's settings, to change some of them. */
    public Builder toBuilder() {
      var b = new Builder();
      b.id = id;
      b.generation = generation;
      b.routing = routing.toBuilder();
      b.limits = limits.toBuilder();
      b.switches = switches.toBuilder();
      b.cookie = cookie.toBuilder();
      b.queuePage = queuePage.toBuilder();
      b.resilience = resilience.toBuilder();
      b.protection = protection.toBuilder();
      b.events = events;
      return b;
    }

    /**
     * The rules in the order the door looks at them: {@code rules}, then the {@code bypass} list.
     */
    public List<Rule> allRules() {
      if (protection.bypass().isEmpty()) {
        return protection.rules();
      }
      var all = new java.util.ArrayList<Rule>(protection.rules());
      all.addAll(protection.bypass());
      return all;
    }

    /** The scheduled event whose settings apply at {@code now} (pre-queue included), if any. */
    public Optional<EventSettings> eventAt(java.time.Instant now) {
      return events.stream().filter(e -> e.window().appliesAt(now)).findFirst();
    }

    /**
     * The settings in force at {@code now}: the room's own, or with the overrides of the event that
     * applies then.
     */
    public RoomSettings at(java.time.Instant now) {
      return eventAt(now).map(this::during).orElse(this);
    }

    /** The next instant after {@code now} at which an event starts or stops applying. */
    public java.time.Instant nextEventChange(java.time.Instant now) {
      java.time.Instant next = java.time.Instant.MAX;
      for (EventSettings e : events) {
        for (java.time.Instant t : List.of(e.window().appliesFrom(), e.window().closesAt())) {
          if (t.isAfter(now) && t.isBefore(next)) {
            next = t;
          }
        }
      }
      return next;
    }

    /**
     * The room core's view at {@code now}: the settings in force, the event's window (pre-queue,
     * start, shuffle), and {@code newUsersPerMinute} as origin protection holds it (an event's own
     * value is held back the same way).
     */
    public RoomConfig roomConfigAt(java.time.Instant now, int effectiveNewUsersPerMinute) {
      Optional<EventSettings> e = eventAt(now);
      if (e.isEmpty()) {
        return roomConfig(effectiveNewUsersPerMinute);
      }
      RoomSettings in = during(e.get());
      int n =
          effectiveNewUsersPerMinute < limits.newUsersPerMinute()
              ? Math.min(effectiveNewUsersPerMinute, in.limits().newUsersPerMinute())
              : in.limits().newUsersPerMinute();
      return in.roomConfig(n).withEvent(e.get().window());
    }

    /**
     * The settings while {@code e} applies: the one place where an event's overrides apply (each
     * component of {@link EventSettings} but its window overrides the room key of its name; {@code
     * invitationsRequired} overrides {@code invitations.required}). The result has no events.
     */
    RoomSettings during(EventSettings e) {
      Builder b = toBuilder().events(List.of());
      e.totalActiveUsers().ifPresent(b.limits()::totalActiveUsers);
      e.newUsersPerMinute().ifPresent(b.limits()::newUsersPerMinute);
      e.sessionDurationMinutes().ifPresent(b.limits()::sessionDurationMinutes);
      e.queueingMethod().ifPresent(b.limits()::queueingMethod);
      e.disableSessionRenewal().ifPresent(b.limits()::disableSessionRenewal);
      e.template().ifPresent(t -> b.queuePage().template(Optional.of(t)));
      e.proofOfWork().ifPresent(b.protection()::proofOfWork);
      e.invitationsRequired()
          .ifPresent(
              r ->
                  b.protection()
                      .invitations(new Invitations(r, protection.invitations().keyFile())));
      return b.build();
    }

    /** The same room with another list of scheduled events. */
    public RoomSettings withEvents(List<EventSettings> newEvents) {
      return toBuilder().events(newEvents).build();
    }

    /** All routes of the room, the main one first. */
    public List<Route> routes() {
      var all = new java.util.ArrayList<Route>();
      all.add(new Route(routing.host(), routing.path()));
      all.addAll(routing.additionalRoutes());
      return all;
    }

    /** The room core's view of this room, with {@code newUsersPerMinute} in force. */
    public RoomConfig roomConfig(int newUsersPerMinute) {
      return RoomKeys.roomConfig(this, newUsersPerMinute);
    }

    /** The same room with the live switches set. */
    public RoomSettings withSwitches(boolean newSuspended, boolean newQueueAll) {
      return toBuilder().switches(new Switches(newQueueAll, newSuspended)).build();
    }

    /** The same room in another generation: tickets sealed for the old one open as new users. */
    public RoomSettings withGeneration(long newGeneration) {
      return toBuilder().generation(newGeneration).build();
    }

    /** Builds a {@link RoomSettings}; each group has its own builder. */
    public static final class Builder {
      private String id;
      private long generation;
      private Routing.Builder routing = new Routing.Builder();
      private Limits.Builder limits = new Limits.Builder();
      private Switches.Builder switches = new Switches.Builder();
      private Cookie.Builder cookie = new Cookie.Builder();
      private QueuePage.Builder queuePage = new QueuePage.Builder();
      private Resilience.Builder resilience = new Resilience.Builder();
      private Protection.Builder protection = new Protection.Builder();
      private List<EventSettings> events = List.of();

      private Builder() {}

      public Builder id(String v) {
        id = v;
        return this;
      }

      public Builder generation(long v) {
        generation = v;
        return this;
      }

      public Builder events(List<EventSettings> v) {
        events = v;
        return this;
      }

      /** Replaces the live switches. */
      public Builder switches(Switches v) {
        switches = v.toBuilder();
        return this;
      }

      public Routing.Builder routing() {
        return routing;
      }

      public Limits.Builder limits() {
        return limits;
      }

      public Switches.Builder switches() {
        return switches;
      }

      public Cookie.Builder cookie() {
        return cookie;
      }

      public QueuePage.Builder queuePage() {
        return queuePage;
      }

      public Resilience.Builder resilience() {
        return resilience;
      }

      public Protection.Builder protection() {
        return protection;
      }

      public RoomSettings build() {
        return new RoomSettings(
            id,
            generation,
            routing.build(),
            limits.build(),
            switches.build(),
            cookie.build(),
            queuePage.build(),
            resilience.build(),
            protection.build(),
            events);
      }
    }

    /** Which requests lead to the room, and the upstream they go to. */
    public record Routing(
        String host, String path, List<Route> additionalRoutes, Optional<URI> origin) {
      public Routing {
        additionalRoutes = List.copyOf(additionalRoutes);
      }

      public Builder toBuilder() {
        return new Builder()
            .host(host)
            .path(path)
            .additionalRoutes(additionalRoutes)
            .origin(origin);
      }

      /** Builds a {@link Routing}. */
      public static final class Builder {
        private String host;
        private String path;
        private List<Route> additionalRoutes;
        private Optional<URI> origin;

        public Builder host(String v) {
          host = v;
          return this;
        }

        public Builder path(String v) {
          path = v;
          return this;
        }

        public Builder additionalRoutes(List<Route> v) {
          additionalRoutes = v;
          return this;
        }

        public Builder origin(Optional<URI> v) {
          origin = v;
          return this;
        }

        public Routing build() {
          return new Routing(host, path, additionalRoutes, origin);
        }
      }
    }

    /**
     * The room core's keys ({@link RoomConfig}: T, N, S, R, queue timeout, strategy, curve factor,
     * session renewal, queue order): how many get in, how fast, for how long, in which order.
     */
    public record Limits(
        int totalActiveUsers,
        int newUsersPerMinute,
        int sessionDurationMinutes,
        int queueRefreshSeconds,
        int queueTimeoutMinutes,
        StrategyKind strategy,
        double curveFactor,
        QueueingMethod queueingMethod,
        boolean disableSessionRenewal) {

      public Builder toBuilder() {
        return new Builder()
            .totalActiveUsers(totalActiveUsers)
            .newUsersPerMinute(newUsersPerMinute)
            .sessionDurationMinutes(sessionDurationMinutes)
            .queueRefreshSeconds(queueRefreshSeconds)
            .queueTimeoutMinutes(queueTimeoutMinutes)
            .strategy(strategy)
            .curveFactor(curveFactor)
            .queueingMethod(queueingMethod)
            .disableSessionRenewal(disableSessionRenewal);
      }

      /** Builds {@link Limits}. */
      public static final class Builder {
        private int totalActiveUsers;
        private int newUsersPerMinute;
        private int sessionDurationMinutes;
        private int queueRefreshSeconds;
        private int queueTimeoutMinutes;
        private StrategyKind strategy;
        private double curveFactor;
        private QueueingMethod queueingMethod;
        private boolean disableSessionRenewal;

        public Builder totalActiveUsers(int v) {
          totalActiveUsers = v;
          return this;
        }

        public Builder newUsersPerMinute(int v) {
          newUsersPerMinute = v;
          return this;
        }

        public Builder sessionDurationMinutes(int v) {
          sessionDurationMinutes = v;
          return this;
        }

        public Builder queueRefreshSeconds(int v) {
          queueRefreshSeconds = v;
          return this;
        }

        public Builder queueTimeoutMinutes(int v) {
          queueTimeoutMinutes = v;
          return this;
        }

        public Builder strategy(StrategyKind v) {
          strategy = v;
          return this;
        }

        public Builder curveFactor(double v) {
          curveFactor = v;
          return this;
        }

        public Builder queueingMethod(QueueingMethod v) {
          queueingMethod = v;
          return this;
        }

        public Builder disableSessionRenewal(boolean v) {
          disableSessionRenewal = v;
          return this;
        }

        public Limits build() {
          return new Limits(
              totalActiveUsers,
              newUsersPerMinute,
              sessionDurationMinutes,
              queueRefreshSeconds,
              queueTimeoutMinutes,
              strategy,
              curveFactor,
              queueingMethod,
              disableSessionRenewal);
        }
      }
    }

    /**
     * The live switches, which an operator flips for the whole deployment: {@code queueAll} (nobody
     * new enters) and {@code suspended} (the room is off).
     */
    public record Switches(boolean queueAll, boolean suspended) {
      public Builder toBuilder() {
        return new Builder().queueAll(queueAll).suspended(suspended);
      }

      /** Builds {@link Switches}. */
      public static final class Builder {
        private boolean queueAll;
        private boolean suspended;

        public Builder queueAll(boolean v) {
          queueAll = v;
          return this;
        }

        public Builder suspended(boolean v) {
          suspended = v;
          return this;
        }

        public Switches build() {
          return new Switches(queueAll, suspended);
        }
      }
    }

    /** The ticket cookie: its name's suffix and its attributes. */
    public record Cookie(String cookieSuffix, CookieSameSite cookieSameSite, boolean cookieSecure) {
      public Builder toBuilder() {
        return new Builder()
            .cookieSuffix(cookieSuffix)
            .cookieSameSite(cookieSameSite)
            .cookieSecure(cookieSecure);
      }

      /** Builds a {@link Cookie}. */
      public static final class Builder {
        private String cookieSuffix;
        private CookieSameSite cookieSameSite;
        private boolean cookieSecure;

        public Builder cookieSuffix(String v) {
          cookieSuffix = v;
          return this;
        }

        public Builder cookieSameSite(CookieSameSite v) {
          cookieSameSite = v;
          return this;
        }

        public Builder cookieSecure(boolean v) {
          cookieSecure = v;
          return this;
        }

        public Cookie build() {
          return new Cookie(cookieSuffix, cookieSameSite, cookieSecure);
        }
      }
    }

    /** What a waiting user is shown: the page's template and languages, the JSON, the status. */
    public record QueuePage(
        Optional<String> template,
        boolean jsonResponse,
        boolean jsonEnvelope,
        List<String> languages,
        String language,
        int queueingStatusCode) {
      public QueuePage {
        languages = List.copyOf(languages);
      }

      public Builder toBuilder() {
        return new Builder()
            .template(template)
            .jsonResponse(jsonResponse)
            .jsonEnvelope(jsonEnvelope)
            .languages(languages)
            .language(language)
            .queueingStatusCode(queueingStatusCode);
      }

      /** Builds a {@link QueuePage}. */
      public static final class Builder {
        private Optional<String> template;
        private boolean jsonResponse;
        private boolean jsonEnvelope;
        private List<String> languages;
        private String language;
        private int queueingStatusCode;

        public Builder template(Optional<String> v) {
          template = v;
          return this;
        }

        public Builder jsonResponse(boolean v) {
          jsonResponse = v;
          return this;
        }

        public Builder jsonEnvelope(boolean v) {
          jsonEnvelope = v;
          return this;
        }

        public Builder languages(List<String> v) {
          languages = v;
          return this;
        }

        public Builder language(String v) {
          language = v;
          return this;
        }

        public Builder queueingStatusCode(int v) {
          queueingStatusCode = v;
          return this;
        }

        public QueuePage build() {
          return new QueuePage(
              template, jsonResponse, jsonEnvelope, languages, language, queueingStatusCode);
        }
      }
    }

    /**
     * What the room does when a part struggles: the coordinator unreachable ({@code failMode}), the
     * origin slow or failing ({@code originProtection}), more queue polls than it should answer
     * (the pacing's thresholds and its longest refresh interval); {@code docs/gateway.md},
     * "Back-pressure" and "Coordinator unreachable".
     */
    public record Resilience(
        FailMode failMode,
        OriginProtection originProtection,
        int queueStatusMaxQps,
        int queueStatusMaxLatencyMillis,
        int maxQueueRefreshSeconds) {
      public Builder toBuilder() {
        return new Builder()
            .failMode(failMode)
            .originProtection(originProtection)
            .queueStatusMaxQps(queueStatusMaxQps)
            .queueStatusMaxLatencyMillis(queueStatusMaxLatencyMillis)
            .maxQueueRefreshSeconds(maxQueueRefreshSeconds);
      }

      /** Builds a {@link Resilience}. */
      public static final class Builder {
        private FailMode failMode;
        private OriginProtection originProtection;
        private int queueStatusMaxQps;
        private int queueStatusMaxLatencyMillis;
        private int maxQueueRefreshSeconds;

        public Builder failMode(FailMode v) {
          failMode = v;
          return this;
        }

        public Builder originProtection(OriginProtection v) {
          originProtection = v;
          return this;
        }

        public Builder queueStatusMaxQps(int v) {
          queueStatusMaxQps = v;
          return this;
        }

        public Builder queueStatusMaxLatencyMillis(int v) {
          queueStatusMaxLatencyMillis = v;
          return this;
        }

        public Builder maxQueueRefreshSeconds(int v) {
          maxQueueRefreshSeconds = v;
          return this;
        }

        public Resilience build() {
          return new Resilience(
              failMode,
              originProtection,
              queueStatusMaxQps,
              queueStatusMaxLatencyMillis,
              maxQueueRefreshSeconds);
        }
      }
    }

    /**
     * Who may try at all: the rules ({@code rules}, then the older {@code bypass} list) and the
     * door's checks of new identities ({@code docs/bot-defence.md}).
     */
    public record Protection(
        List<Rule> rules,
        List<Rule> bypass,
        ProofOfWork proofOfWork,
        AddressLimit addressLimit,
        HumanCheck humanCheck,
        Invitations invitations,
        Account account) {
      public Protection {
        rules = List.copyOf(rules);
        bypass = List.copyOf(bypass);
      }

      public Builder toBuilder() {
        return new Builder()
            .rules(rules)
            .bypass(bypass)
            .proofOfWork(proofOfWork)
            .addressLimit(addressLimit)
            .humanCheck(humanCheck)
            .invitations(invitations)
            .account(account);
      }

      /** Builds a {@link Protection}. */
      public static final class Builder {
        private List<Rule> rules;
        private List<Rule> bypass;
        private ProofOfWork proofOfWork;
        private AddressLimit addressLimit;
        private HumanCheck humanCheck;
        private Invitations invitations;
        private Account account;

        public Builder rules(List<Rule> v) {
          rules = v;
          return this;
        }

        public Builder bypass(List<Rule> v) {
          bypass = v;
          return this;
        }

        public Builder proofOfWork(ProofOfWork v) {
          proofOfWork = v;
          return this;
        }

        public Builder addressLimit(AddressLimit v) {
          addressLimit = v;
          return this;
        }

        public Builder humanCheck(HumanCheck v) {
          humanCheck = v;
          return this;
        }

        public Builder invitations(Invitations v) {
          invitations = v;
          return this;
        }

        public Builder account(Account v) {
          account = v;
          return this;
        }

        public Protection build() {
          return new Protection(
              rules, bypass, proofOfWork, addressLimit, humanCheck, invitations, account);
        }
      }
    }
  }

  /**
   * One scheduled event of a room (room key {@code events}): its times (validated by the room
   * core's {@link io.anteroom.room.EventWindow}) and the room settings it overrides while it
   * applies, from its pre-queue to its end. Absent overrides keep the room's own values.
   */
  public record EventSettings(
      io.anteroom.room.EventWindow window,
      Optional<Integer> totalActiveUsers,
      Optional<Integer> newUsersPerMinute,
      Optional<Integer> sessionDurationMinutes,
      Optional<QueueingMethod> queueingMethod,
      Optional<Boolean> disableSessionRenewal,
      Optional<String> template,
      Optional<ProofOfWork> proofOfWork,
      Optional<Boolean> invitationsRequired) {}

  /**
   * Invitations (room key {@code invitations}, off by default): with {@code required}, a request
   * that would get a new identity in the room needs a signed invitation token, used once across the
   * deployment; {@code keyFile} holds the HMAC key the operator's backend signs tokens with (an
   * event may require invitations for its own time only, signed with the room's key). See {@code
   * docs/bot-defence.md}.
   */
  public record Invitations(boolean required, Optional<java.nio.file.Path> keyFile) {
    static final Invitations NONE = new Invitations(false, Optional.empty());
  }

  /**
   * The user's account as the application asserts it (room key {@code account}, off by default):
   * one place in line and one session per account. The assertion is a JWT in request header {@code
   * header} (an {@code Authorization} header's {@code Bearer } prefix is dropped) or else in cookie
   * {@code cookie}: signed with HS256 under the key in {@code hs256SecretFile} (the application
   * signs it), or an OIDC ID token signed with RS256 or ES256 by a key of the identity provider's
   * JWKS ({@code oidc}). With {@code required}, a request without a valid assertion gets no place.
   * See {@code docs/bot-defence.md}.
   *
   * @param clockSkewSeconds how far {@code exp}, {@code nbf} and {@code iat} may be off
   */
  public record Account(
      boolean required,
      String header,
      Optional<String> cookie,
      Optional<java.nio.file.Path> hs256SecretFile,
      Optional<Oidc> oidc,
      int clockSkewSeconds) {
    /** The default request header of the assertion. */
    public static final String DEFAULT_HEADER = "Anteroom-Account";

    static final Account NONE =
        new Account(
            false, DEFAULT_HEADER, Optional.empty(), Optional.empty(), Optional.empty(), 60);

    /** Whether the room knows its users' accounts (a way to verify assertions is configured). */
    public boolean enabled() {
      return hs256SecretFile.isPresent() || oidc.isPresent();
    }
  }

  /**
   * The identity provider whose ID tokens name the account ({@code account.oidc}): the token's
   * {@code iss} must be {@code issuer}, its {@code aud} contain {@code audience} (the client id the
   * provider gave the application), its signature verify with a key of the JWKS in {@code jwksFile}
   * or at {@code jwksUrl} (exactly one of them).
   */
  public record Oidc(
      String issuer,
      String audience,
      Optional<java.nio.file.Path> jwksFile,
      Optional<URI> jwksUrl) {}

  /** What a matching {@link Rule} does with a request (room keys {@code rules}, {@code bypass}). */
  public enum RuleAction {
    /** Skips the room: not queued, not counted, no ticket. */
    BYPASS("bypass"),
    /** The room's check (proof of work) for every new identity, even where the room has it off. */
    CHALLENGE("challenge"),
    /** 403, never a ticket nor a place in line. */
    BLOCK("block"),
    /** Through the room as usual; no later rule is looked at (an exception to a later bypass). */
    QUEUE("queue");

    private final String configName;

    RuleAction(String configName) {
      this.configName = configName;
    }

    /** The value in the YAML file and the admin API. */
    public String configName() {
      return configName;
    }
  }

  /**
   * A condition on one named value of a request (a header, a cookie, a query parameter): present
   * ({@code value} and {@code glob} empty), equal to {@code value} (case-sensitive), or matching
   * {@code glob} (case-insensitive {@code *} and {@code ?}); {@code not} negates it (an absent
   * value then matches).
   */
  public record ValueMatch(
      String name, Optional<String> value, Optional<String> glob, boolean not) {}

  /**
   * A signed bypass condition: the request carries in {@code header} a token {@code
   * <unixSeconds>.<hex HMAC-SHA256>} made with the key in {@code keyFile} over the room id, the
   * time, the method and the normalised path, no older (nor further ahead) than {@code
   * maxAgeSeconds}. See {@code docs/bot-defence.md}.
   */
  public record SignedCondition(java.nio.file.Path keyFile, String header, int maxAgeSeconds) {
    /** The default header. */
    public static final String DEFAULT_HEADER = "Anteroom-Bypass";
  }

  /**
   * One rule of a room: an action and its conditions, all on the normalised request. Every
   * condition that is set must match (AND); a room's rules are looked at in order ({@code rules},
   * then the {@code bypass} list), and the first that matches decides.
   *
   * @param methods request methods, upper case; empty: any
   * @param userAgent case-insensitive glob on {@code User-Agent}
   * @param cidrs client address ranges (trusted proxies applied); empty: any client
   */
  public record Rule(
      RuleAction action,
      Optional<String> path,
      List<String> methods,
      List<ValueMatch> query,
      List<ValueMatch> headers,
      List<ValueMatch> cookies,
      Optional<String> userAgent,
      List<String> cidrs,
      Optional<SignedCondition> signed) {
    public Rule {
      methods = List.copyOf(methods);
      query = List.copyOf(query);
      headers = List.copyOf(headers);
      cookies = List.copyOf(cookies);
      cidrs = List.copyOf(cidrs);
    }

    /** Whether the rule has no condition at all (it would match every request). */
    public boolean unconditional() {
      return path.isEmpty()
          && methods.isEmpty()
          && query.isEmpty()
          && headers.isEmpty()
          && cookies.isEmpty()
          && userAgent.isEmpty()
          && cidrs.isEmpty()
          && signed.isEmpty();
    }
  }

  /**
   * Origin protection (off by default): lowers the effective new users per minute by AIMD when the
   * origin's median latency exceeds {@code maxLatencyMillis} or its 5xx share exceeds {@code
   * maxErrorRatio}; never above the configured limits.
   */
  public record OriginProtection(
      boolean enabled, int maxLatencyMillis, double maxErrorRatio, int minNewUsersPerMinute) {
    static final OriginProtection OFF = new OriginProtection(false, 1000, 0.05, 1);
  }

  /**
   * The proof-of-work check at the door (off by default): a new user (no valid ticket) must solve a
   * signed hash puzzle of {@code difficulty} leading zero bits of SHA-256 before the room decides
   * on them; a challenge is valid for {@code challengeTtlSeconds} and once. With {@code
   * onRepeatedFailure: endlessQueue} a client address whose answers keep failing sees a queue page
   * that never admits. See {@code docs/bot-defence.md}.
   */
  public record ProofOfWork(
      boolean enabled,
      int difficulty,
      int challengeTtlSeconds,
      OnRepeatedFailure onRepeatedFailure,
      int maxExtraBits,
      int extraBitAfter) {

    /** Without rising difficulty ({@code maxExtraBits} 0). */
    public ProofOfWork(
        boolean enabled,
        int difficulty,
        int challengeTtlSeconds,
        OnRepeatedFailure onRepeatedFailure) {
      this(enabled, difficulty, challengeTtlSeconds, onRepeatedFailure, 0, 10);
    }

    /**
     * The difficulty for a client address prefix with {@code events} new identities and refused
     * answers in the last 10 minutes: one extra bit from {@code extraBitAfter} events, one more at
     * each doubling, at most {@code maxExtraBits}, never above 32.
     */
    public int difficultyFor(int events) {
      if (maxExtraBits == 0 || events < extraBitAfter) {
        return difficulty;
      }
      int doublings = 31 - Integer.numberOfLeadingZeros(events / extraBitAfter);
      return Math.min(32, difficulty + Math.min(maxExtraBits, 1 + doublings));
    }

    /**
     * The default difficulty: a median of 0.8 s through the door (page, solve, reload) in headless
     * Chromium on the 2-core benchmark machine, under the 1.5 s target ({@code
     * docs/benchmarks.md}).
     */
    public static final int DEFAULT_DIFFICULTY = 18;

    static final ProofOfWork OFF =
        new ProofOfWork(false, DEFAULT_DIFFICULTY, 120, OnRepeatedFailure.NONE);
  }

  /**
   * The limit of new identities (tickets, places in line) per client address prefix and minute, on
   * each gateway (off: {@code newIdentitiesPerMinute} 0). Addresses are grouped by their first
   * {@code ipv4PrefixLength} (IPv4) or {@code ipv6PrefixLength} (IPv6) bits. See {@code
   * docs/bot-defence.md}.
   */
  public record AddressLimit(
      int newIdentitiesPerMinute, int ipv4PrefixLength, int ipv6PrefixLength) {
    static final AddressLimit OFF = new AddressLimit(0, 32, 64);

    /** Whether the limit is on. */
    public boolean enabled() {
      return newIdentitiesPerMinute > 0;
    }
  }

  /**
   * A human check at the door (off by default): every new identity (and every request a {@code
   * challenge} rule matches) shows the provider's widget, and the token it gives is verified with
   * the provider's {@code siteverify} endpoint before the room decides; it replaces the proof of
   * work while it is on. Turnstile, hCaptcha and reCAPTCHA share that protocol. See {@code
   * docs/bot-defence.md}.
   *
   * @param secretFile the file holding the provider's secret (never written back by the admin API)
   * @param verifyUrl the siteverify endpoint (the provider's by default)
   * @param scriptUrl the widget's script (the provider's by default)
   */
  public record HumanCheck(
      boolean enabled,
      HumanProvider provider,
      String siteKey,
      java.nio.file.Path secretFile,
      URI verifyUrl,
      URI scriptUrl,
      HumanFailure onFailure,
      HumanUnavailable onUnavailable,
      int timeoutMillis) {
    static final HumanCheck OFF =
        new HumanCheck(
            false,
            HumanProvider.TURNSTILE,
            "",
            java.nio.file.Path.of(""),
            HumanProvider.TURNSTILE.verifyUrl(),
            HumanProvider.TURNSTILE.scriptUrl(),
            HumanFailure.RETRY,
            HumanUnavailable.CLOSED,
            3000);
  }

  /** A human-check provider: its widget's class, script and siteverify endpoint. */
  public enum HumanProvider {
    TURNSTILE(
        "turnstile",
        "cf-turnstile",
        "https://challenges.cloudflare.com/turnstile/v0/api.js",
        "https://challenges.cloudflare.com/turnstile/v0/siteverify"),
    HCAPTCHA(
        "hcaptcha",
        "h-captcha",
        "https://js.hcaptcha.com/1/api.js",
        "https://api.hcaptcha.com/siteverify"),
    RECAPTCHA(
        "recaptcha",
        "g-recaptcha",
        "https://www.google.com/recaptcha/api.js",
        "https://www.google.com/recaptcha/api/siteverify");

    private final String configName;
    private final String widgetClass;
    private final URI scriptUrl;
    private final URI verifyUrl;

    HumanProvider(String configName, String widgetClass, String scriptUrl, String verifyUrl) {
      this.configName = configName;
      this.widgetClass = widgetClass;
      this.scriptUrl = URI.create(scriptUrl);
      this.verifyUrl = URI.create(verifyUrl);
    }

    public String configName() {
      return configName;
    }

    /** The class of the element the provider's script renders its widget into. */
    public String widgetClass() {
      return widgetClass;
    }

    public URI scriptUrl() {
      return scriptUrl;
    }

    public URI verifyUrl() {
      return verifyUrl;
    }
  }

  /** What a token the provider refuses leads to. */
  public enum HumanFailure {
    /** The widget again. */
    RETRY("retry"),
    /** A queue page that never admits, for the client address, for 10 minutes. */
    ENDLESS_QUEUE("endlessQueue");

    private final String configName;

    HumanFailure(String configName) {
      this.configName = configName;
    }

    public String configName() {
      return configName;
    }
  }

  /** What the door does while the siteverify endpoint cannot answer (down, slow, garbled). */
  public enum HumanUnavailable {
    /** Lets the request go on to the room's decision without the check (one log line each). */
    OPEN("open"),
    /** The widget again, saying the check is unavailable: nobody new gets in meanwhile. */
    CLOSED("closed");

    private final String configName;

    HumanUnavailable(String configName) {
      this.configName = configName;
    }

    public String configName() {
      return configName;
    }
  }

  /** What the door does with a client address whose proof-of-work answers fail repeatedly. */
  public enum OnRepeatedFailure {
    /** Nothing more: every refused answer gets a fresh challenge. */
    NONE("none"),
    /** A queue page that never admits, for a while; the room's counts are not affected. */
    ENDLESS_QUEUE("endlessQueue");

    private final String configName;

    OnRepeatedFailure(String configName) {
      this.configName = configName;
    }

    /** The value in the YAML file and the admin API. */
    public String configName() {
      return configName;
    }
  }
}
