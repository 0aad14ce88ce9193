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
    return new GatewayConfig(
        listen,
        origin,
        dataDir,
        admin,
        ticketKeys,
        originTimeoutSeconds,
        drainSeconds,
        newRooms,
        templatesDir,
        trustedProxies,
        publicListener);
  }

  public GatewayConfig withListen(HostPort newListen, HostPort newAdminListen) {
    return new GatewayConfig(
        newListen,
        origin,
        dataDir,
        new AdminSettings(
            newAdminListen, admin.token(), admin.protectMetrics(), admin.limits(), admin.tokens()),
        ticketKeys,
        originTimeoutSeconds,
        drainSeconds,
        rooms,
        templatesDir,
        trustedProxies,
        publicListener);
  }

  /** The same configuration with another default {@code origin} (the rooms stay). */
  public GatewayConfig withOrigin(URI newOrigin) {
    return new GatewayConfig(
        listen,
        newOrigin,
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

  public GatewayConfig withDataDir(Path newDataDir) {
    return new GatewayConfig(
        listen,
        origin,
        newDataDir,
        admin,
        ticketKeys,
        originTimeoutSeconds,
        drainSeconds,
        rooms,
        templatesDir,
        trustedProxies,
        publicListener);
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
   * One protected site. Field names are the YAML keys.
   *
   * <p>Keys, defaults and ranges: {@link RoomKeys}, the one table the config file and the admin API
   * read and write through.
   */
  public record RoomSettings(
      String id,
      String host,
      String path,
      List<Route> additionalRoutes,
      Optional<URI> origin,
      int totalActiveUsers,
      int newUsersPerMinute,
      int sessionDurationMinutes,
      int queueRefreshSeconds,
      int queueTimeoutMinutes,
      StrategyKind strategy,
      double curveFactor,
      QueueingMethod queueingMethod,
      boolean queueAll,
      boolean suspended,
      boolean disableSessionRenewal,
      String cookieSuffix,
      CookieSameSite cookieSameSite,
      boolean cookieSecure,
      long generation,
      Optional<String> template,
      boolean jsonResponse,
      boolean jsonEnvelope,
      List<String> languages,
      String language,
      int queueingStatusCode,
      List<Rule> rules,
      List<Rule> bypass,
      FailMode failMode,
      OriginProtection originProtection,
      int queueStatusMaxQps,
      int queueStatusMaxLatencyMillis,
      int maxQueueRefreshSeconds,
      ProofOfWork proofOfWork,
      AddressLimit addressLimit,
      HumanCheck humanCheck,
      Invitations invitations,
      Account account,
      List<EventSettings> events) {

    /** The largest {@code generation}: a whole number that JSON readers of any language keep. */
    public static final long MAX_GENERATION = (1L << 53) - 1;

    public RoomSettings {
      additionalRoutes = List.copyOf(additionalRoutes);
      languages = List.copyOf(languages);
      rules = List.copyOf(rules);
      bypass = List.copyOf(bypass);
      events = List.copyOf(events);
    }

    /**
     * The rules in the order the door looks at them: {@code rules}, then the {@code bypass} list.
     */
    public List<Rule> allRules() {
      if (bypass.isEmpty()) {
        return rules;
      }
      var all = new java.util.ArrayList<Rule>(rules);
      all.addAll(bypass);
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
          effectiveNewUsersPerMinute < newUsersPerMinute
              ? Math.min(effectiveNewUsersPerMinute, in.newUsersPerMinute())
              : in.newUsersPerMinute();
      return in.roomConfig(n).withEvent(e.get().window());
    }

    private RoomSettings during(EventSettings e) {
      return new RoomSettings(
          id,
          host,
          path,
          additionalRoutes,
          origin,
          e.totalActiveUsers().orElse(totalActiveUsers),
          e.newUsersPerMinute().orElse(newUsersPerMinute),
          e.sessionDurationMinutes().orElse(sessionDurationMinutes),
          queueRefreshSeconds,
          queueTimeoutMinutes,
          strategy,
          curveFactor,
          e.queueingMethod().orElse(queueingMethod),
          queueAll,
          suspended,
          e.disableSessionRenewal().orElse(disableSessionRenewal),
          cookieSuffix,
          cookieSameSite,
          cookieSecure,
          generation,
          e.template().isPresent() ? e.template() : template,
          jsonResponse,
          jsonEnvelope,
          languages,
          language,
          queueingStatusCode,
          rules,
          bypass,
          failMode,
          originProtection,
          queueStatusMaxQps,
          queueStatusMaxLatencyMillis,
          maxQueueRefreshSeconds,
          e.proofOfWork().orElse(proofOfWork),
          addressLimit,
          humanCheck,
          new Invitations(
              e.invitationsRequired().orElse(invitations.required()), invitations.keyFile()),
          account,
          List.of());
    }

    /** The same room with another list of scheduled events. */
    public RoomSettings withEvents(List<EventSettings> newEvents) {
      return new RoomSettings(
          id,
          host,
          path,
          additionalRoutes,
          origin,
          totalActiveUsers,
          newUsersPerMinute,
          sessionDurationMinutes,
          queueRefreshSeconds,
          queueTimeoutMinutes,
          strategy,
          curveFactor,
          queueingMethod,
          queueAll,
          suspended,
          disableSessionRenewal,
          cookieSuffix,
          cookieSameSite,
          cookieSecure,
          generation,
          template,
          jsonResponse,
          jsonEnvelope,
          languages,
          language,
          queueingStatusCode,
          rules,
          bypass,
          failMode,
          originProtection,
          queueStatusMaxQps,
          queueStatusMaxLatencyMillis,
          maxQueueRefreshSeconds,
          proofOfWork,
          addressLimit,
          humanCheck,
          invitations,
          account,
          newEvents);
    }

    /** All routes of the room, the main one first. */
    public List<Route> routes() {
      var all = new java.util.ArrayList<Route>();
      all.add(new Route(host, path));
      all.addAll(additionalRoutes);
      return all;
    }

    /** The room core's view of this room, with {@code newUsersPerMinute} in force. */
    public RoomConfig roomConfig(int newUsersPerMinute) {
      return RoomKeys.roomConfig(this, newUsersPerMinute);
    }

    public RoomSettings withSwitches(boolean newSuspended, boolean newQueueAll) {
      return new RoomSettings(
          id,
          host,
          path,
          additionalRoutes,
          origin,
          totalActiveUsers,
          newUsersPerMinute,
          sessionDurationMinutes,
          queueRefreshSeconds,
          queueTimeoutMinutes,
          strategy,
          curveFactor,
          queueingMethod,
          newQueueAll,
          newSuspended,
          disableSessionRenewal,
          cookieSuffix,
          cookieSameSite,
          cookieSecure,
          generation,
          template,
          jsonResponse,
          jsonEnvelope,
          languages,
          language,
          queueingStatusCode,
          rules,
          bypass,
          failMode,
          originProtection,
          queueStatusMaxQps,
          queueStatusMaxLatencyMillis,
          maxQueueRefreshSeconds,
          proofOfWork,
          addressLimit,
          humanCheck,
          invitations,
          account,
          events);
    }

    /** The same room in another generation: tickets sealed for the old one open as new users. */
    public RoomSettings withGeneration(long newGeneration) {
      return new RoomSettings(
          id,
          host,
          path,
          additionalRoutes,
          origin,
          totalActiveUsers,
          newUsersPerMinute,
          sessionDurationMinutes,
          queueRefreshSeconds,
          queueTimeoutMinutes,
          strategy,
          curveFactor,
          queueingMethod,
          queueAll,
          suspended,
          disableSessionRenewal,
          cookieSuffix,
          cookieSameSite,
          cookieSecure,
          newGeneration,
          template,
          jsonResponse,
          jsonEnvelope,
          languages,
          language,
          queueingStatusCode,
          rules,
          bypass,
          failMode,
          originProtection,
          queueStatusMaxQps,
          queueStatusMaxLatencyMillis,
          maxQueueRefreshSeconds,
          proofOfWork,
          addressLimit,
          humanCheck,
          invitations,
          account,
          events);
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
