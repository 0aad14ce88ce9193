package io.anteroom.door.config;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.anteroom.door.config.GatewayConfig.BypassRule;
import io.anteroom.door.config.GatewayConfig.EventSettings;
import io.anteroom.door.config.GatewayConfig.Invitations;
import io.anteroom.door.config.GatewayConfig.OnRepeatedFailure;
import io.anteroom.door.config.GatewayConfig.OriginProtection;
import io.anteroom.door.config.GatewayConfig.ProofOfWork;
import io.anteroom.door.config.GatewayConfig.RoomSettings;
import io.anteroom.door.config.GatewayConfig.Route;
import io.anteroom.door.match.Cidr;
import io.anteroom.room.EventWindow;
import io.anteroom.room.QueueOrder;
import io.anteroom.room.RoomConfig;
import io.anteroom.room.slots.StrategyKind;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The one table of a room's settings: each key's name, type, default, range or choices, how it is
 * read (the YAML file and the admin API's body) and written (the admin API's JSON, which reads back
 * to the same settings). {@link ConfigLoader} and the admin API both go through it, in the order of
 * {@link RoomSettings}' components.
 *
 * <p>Keys the room core owns ({@link RoomConfig}: T, N, S, R, queue timeout, strategy, curve
 * factor, session renewal) are read here by type only: their ranges and cross-key rules are {@link
 * RoomConfig}'s, checked by building one as the keys are read (an error names the key whose value
 * broke the rule), and their defaults are {@link RoomConfig.Builder}'s, except T, N and S, which
 * the builder requires and the gateway defaults (1000, = T, 5).
 */
final class RoomKeys {

  private RoomKeys() {}

  /** The room core's defaults, read off a config built with only its required keys set. */
  private static final RoomConfig CORE_DEFAULTS =
      requiredOnly(RoomConfig.builder("defaults")).build();

  private static final Pattern ROOM_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");
  private static final Pattern COOKIE_SUFFIX = Pattern.compile("[A-Za-z0-9_-]{0,32}");

  /** Reads one key: its value, or {@code fallback} after recording an error on {@code room}. */
  interface Reader<T> {
    T read(ConfigNode room, String name, T fallback, Values read);
  }

  /** Writes one key's value into the room's JSON. */
  interface Writer<T> {
    void write(ObjectNode room, String name, T value);
  }

  /**
   * One room key.
   *
   * @param fallback the default (may depend on keys read before it)
   * @param core how the value goes into the room core's {@link RoomConfig.Builder}; null for keys
   *     the gateway owns
   */
  record Key<T>(
      String name,
      Function<Values, T> fallback,
      Reader<T> reader,
      Writer<T> writer,
      Function<RoomSettings, T> getter,
      BiConsumer<RoomConfig.Builder, T> core) {}

  /** The values read so far, by key. */
  static final class Values {
    private final Map<Key<?>, Object> values = new HashMap<>();

    @SuppressWarnings("unchecked")
    <T> T get(Key<T> key) {
      return (T) values.get(key);
    }

    <T> void put(Key<T> key, T value) {
      values.put(key, value);
    }
  }

  private static final Writer<String> STRING = ObjectNode::put;
  private static final Writer<Integer> INT = ObjectNode::put;
  private static final Writer<Double> DECIMAL = ObjectNode::put;
  private static final Writer<Boolean> BOOL = ObjectNode::put;

  private static <T> Key<T> key(
      String name,
      Function<Values, T> fallback,
      Reader<T> reader,
      Writer<T> writer,
      Function<RoomSettings, T> getter) {
    return new Key<>(name, fallback, reader, writer, getter, null);
  }

  private static Key<Integer> ranged(
      String name, int fallback, int min, int max, Function<RoomSettings, Integer> getter) {
    return key(name, v -> fallback, (n, k, f, v) -> n.integer(k, f, min, max), INT, getter);
  }

  private static Key<Boolean> bool(
      String name, boolean fallback, Function<RoomSettings, Boolean> getter) {
    return key(name, v -> fallback, (n, k, f, v) -> n.bool(k, f), BOOL, getter);
  }

  private static Key<Integer> core(
      String name,
      Function<Values, Integer> fallback,
      Function<RoomSettings, Integer> getter,
      BiConsumer<RoomConfig.Builder, Integer> core) {
    return new Key<>(name, fallback, (n, k, f, v) -> n.integer(k, f), INT, getter, core);
  }

  private static <E extends Enum<E>> Key<E> choice(
      String name,
      E fallback,
      Class<E> type,
      Function<E, String> configName,
      Function<RoomSettings, E> getter) {
    List<E> allowed = List.of(type.getEnumConstants());
    return key(
        name,
        v -> fallback,
        (n, k, f, v) -> n.choice(k, f, allowed, configName),
        (o, k, e) -> o.put(k, configName.apply(e)),
        getter);
  }

  static final Key<String> ID = key("id", v -> "?", RoomKeys::readId, STRING, RoomSettings::id);
  static final Key<String> HOST =
      key("host", v -> "*", (n, k, f, v) -> n.host(k, f), STRING, RoomSettings::host);
  static final Key<String> PATH =
      key("path", v -> "/", (n, k, f, v) -> n.path(k, f), STRING, RoomSettings::path);
  static final Key<List<Route>> ADDITIONAL_ROUTES =
      key(
          "additionalRoutes",
          v -> List.of(),
          RoomKeys::readRoutes,
          (o, k, routes) -> {
            var a = o.putArray(k);
            routes.forEach(rt -> a.addObject().put("host", rt.host()).put("path", rt.path()));
          },
          RoomSettings::additionalRoutes);
  static final Key<Optional<URI>> ORIGIN =
      key(
          "origin",
          v -> Optional.empty(),
          (n, k, f, v) -> n.url(k),
          (o, k, u) -> u.ifPresent(x -> o.put(k, x.toString())),
          RoomSettings::origin);
  static final Key<Integer> TOTAL_ACTIVE_USERS =
      core(
          "totalActiveUsers",
          v -> 1000,
          RoomSettings::totalActiveUsers,
          RoomConfig.Builder::totalActiveUsers);
  static final Key<Integer> NEW_USERS_PER_MINUTE =
      core(
          "newUsersPerMinute",
          v -> v.get(TOTAL_ACTIVE_USERS),
          RoomSettings::newUsersPerMinute,
          RoomConfig.Builder::newUsersPerMinute);
  static final Key<Integer> SESSION_DURATION_MINUTES =
      core(
          "sessionDurationMinutes",
          v -> 5,
          RoomSettings::sessionDurationMinutes,
          RoomConfig.Builder::sessionDurationMinutes);
  static final Key<Integer> QUEUE_REFRESH_SECONDS =
      core(
          "queueRefreshSeconds",
          v -> CORE_DEFAULTS.queueRefreshSeconds(),
          RoomSettings::queueRefreshSeconds,
          RoomConfig.Builder::queueRefreshSeconds);

  /**
   * The core's rule (at least queueRefreshSeconds, at most 24 h) checked here in the file's words:
   * the core would say {@code queueTimeout is PT0S}, a name and a format the file never uses.
   */
  static final Key<Integer> QUEUE_TIMEOUT_MINUTES =
      new Key<>(
          "queueTimeoutMinutes",
          v -> (int) CORE_DEFAULTS.queueTimeout().toMinutes(),
          RoomKeys::readQueueTimeoutMinutes,
          INT,
          RoomSettings::queueTimeoutMinutes,
          (b, minutes) -> b.queueTimeout(Duration.ofMinutes(minutes)));

  /** The most {@code queueTimeoutMinutes} may be: 24 hours. */
  static final int MAX_QUEUE_TIMEOUT_MINUTES = 1440;

  private static Integer readQueueTimeoutMinutes(
      ConfigNode r, String name, Integer fallback, Values v) {
    int minutes = r.integer(name, fallback);
    int refresh = v.get(QUEUE_REFRESH_SECONDS);
    int min = Math.max(1, Math.ceilDiv(refresh, 60));
    if (minutes < min || minutes > MAX_QUEUE_TIMEOUT_MINUTES) {
      r.error(
          name,
          name
              + " is "
              + minutes
              + "; allowed: "
              + min
              + ".."
              + MAX_QUEUE_TIMEOUT_MINUTES
              + " (minutes, at least queueRefreshSeconds: "
              + refresh
              + " s)");
      return fallback;
    }
    return minutes;
  }

  static final Key<StrategyKind> STRATEGY =
      new Key<>(
          "strategy",
          v -> CORE_DEFAULTS.strategy(),
          (n, k, f, v) -> n.choice(k, f, List.of(StrategyKind.values()), StrategyKind::configName),
          (o, k, s) -> o.put(k, s.configName()),
          RoomSettings::strategy,
          RoomConfig.Builder::strategy);
  static final Key<Double> CURVE_FACTOR =
      new Key<>(
          "curveFactor",
          v -> CORE_DEFAULTS.curveFactor(),
          (n, k, f, v) -> n.decimal(k, f),
          DECIMAL,
          RoomSettings::curveFactor,
          RoomConfig.Builder::curveFactor);
  static final Key<QueueingMethod> QUEUEING_METHOD =
      choice(
          "queueingMethod",
          QueueingMethod.FIFO,
          QueueingMethod.class,
          QueueingMethod::configName,
          RoomSettings::queueingMethod);
  static final Key<Boolean> QUEUE_ALL = bool("queueAll", false, RoomSettings::queueAll);
  static final Key<Boolean> SUSPENDED = bool("suspended", false, RoomSettings::suspended);
  static final Key<Boolean> DISABLE_SESSION_RENEWAL =
      new Key<>(
          "disableSessionRenewal",
          v -> !CORE_DEFAULTS.sessionRenewal(),
          (n, k, f, v) -> n.bool(k, f),
          BOOL,
          RoomSettings::disableSessionRenewal,
          (b, disable) -> b.sessionRenewal(!disable));
  static final Key<String> COOKIE_SUFFIX_KEY =
      key(
          "cookieSuffix",
          v -> "",
          (n, k, f, v) -> {
            String suffix = n.string(k, f);
            if (!COOKIE_SUFFIX.matcher(suffix).matches()) {
              n.error(
                  k, "\"" + suffix + "\" is not allowed; use up to 32 letters, digits, '-' or '_'");
            }
            return suffix;
          },
          STRING,
          RoomSettings::cookieSuffix);
  static final Key<CookieSameSite> COOKIE_SAME_SITE =
      choice(
          "cookieSameSite",
          CookieSameSite.LAX,
          CookieSameSite.class,
          CookieSameSite::configName,
          RoomSettings::cookieSameSite);
  static final Key<Boolean> COOKIE_SECURE = bool("cookieSecure", false, RoomSettings::cookieSecure);

  /**
   * The room's generation, in every ticket's associated data: a ticket of another generation of the
   * same room id opens as a new user.
   */
  static final Key<Long> GENERATION =
      key(
          "generation",
          v -> 0L,
          (n, k, f, v) -> n.longInteger(k, f, 0, RoomSettings.MAX_GENERATION),
          ObjectNode::put,
          RoomSettings::generation);

  /**
   * A file name inside the gateway's templatesDir; ConfigLoader and Rooms check it exists there.
   */
  static final Key<Optional<String>> TEMPLATE =
      key(
          "template",
          v -> Optional.empty(),
          (n, k, f, v) -> {
            Optional<String> template = Optional.ofNullable(n.string(k, null));
            if (template.isPresent() && !TemplateDirectory.wellFormed(template.get())) {
              n.error(
                  k,
                  "\""
                      + template.get()
                      + "\" is not a template name: give a file name"
                      + " relative to templatesDir (letters, digits, . _ - and /; no .., no absolute"
                      + " path)");
              return Optional.empty();
            }
            return template;
          },
          (o, k, t) -> t.ifPresent(p -> o.put(k, p)),
          RoomSettings::template);

  static final Key<Boolean> JSON_RESPONSE = bool("jsonResponse", true, RoomSettings::jsonResponse);

  /** The queue JSON inside {@code {"cfWaitingRoom": {...}}}, as the hosted room's JSON has it. */
  static final Key<Boolean> JSON_ENVELOPE = bool("jsonEnvelope", false, RoomSettings::jsonEnvelope);

  static final Key<List<BypassRule>> BYPASS =
      key(
          "bypass",
          v -> List.of(),
          RoomKeys::readBypass,
          RoomKeys::writeBypass,
          RoomSettings::bypass);
  static final Key<FailMode> FAIL_MODE =
      choice(
          "failMode",
          FailMode.DEGRADE,
          FailMode.class,
          FailMode::configName,
          RoomSettings::failMode);
  static final Key<OriginProtection> ORIGIN_PROTECTION =
      key(
          "originProtection",
          v -> OriginProtection.OFF,
          RoomKeys::readProtection,
          (o, k, p) ->
              o.putObject(k)
                  .put("enabled", p.enabled())
                  .put("maxLatencyMillis", p.maxLatencyMillis())
                  .put("maxErrorRatio", p.maxErrorRatio())
                  .put("minNewUsersPerMinute", p.minNewUsersPerMinute()),
          RoomSettings::originProtection);
  static final Key<Integer> QUEUE_STATUS_MAX_QPS =
      ranged("queueStatusMaxQps", 2000, 1, 10_000_000, RoomSettings::queueStatusMaxQps);
  static final Key<Integer> QUEUE_STATUS_MAX_LATENCY_MILLIS =
      ranged(
          "queueStatusMaxLatencyMillis",
          250,
          1,
          600_000,
          RoomSettings::queueStatusMaxLatencyMillis);
  static final Key<Integer> MAX_QUEUE_REFRESH_SECONDS =
      key(
          "maxQueueRefreshSeconds",
          v -> Math.max(120, v.get(QUEUE_REFRESH_SECONDS)),
          (n, k, f, v) -> n.integer(k, f, v.get(QUEUE_REFRESH_SECONDS), 3600),
          INT,
          RoomSettings::maxQueueRefreshSeconds);

  /** The proof-of-work check at the door; see {@link ProofOfWork}. */
  static final Key<ProofOfWork> PROOF_OF_WORK =
      key(
          "proofOfWork",
          v -> ProofOfWork.OFF,
          RoomKeys::readProofOfWork,
          RoomKeys::writeProofOfWork,
          RoomSettings::proofOfWork);

  /** Invitations ({@link Invitations}): invite-only rooms and the key that signs the tokens. */
  static final Key<Invitations> INVITATIONS =
      key(
          "invitations",
          v -> Invitations.NONE,
          RoomKeys::readInvitations,
          RoomKeys::writeInvitations,
          RoomSettings::invitations);

  /** Scheduled events: times and overrides ({@link EventSettings}); see docs/events.md. */
  static final Key<List<EventSettings>> EVENTS =
      key(
          "events",
          v -> List.of(),
          RoomKeys::readEvents,
          RoomKeys::writeEvents,
          RoomSettings::events);

  /** Every room key, in the order of {@link RoomSettings}' components and of the JSON. */
  static final List<Key<?>> ALL =
      List.of(
          ID,
          HOST,
          PATH,
          ADDITIONAL_ROUTES,
          ORIGIN,
          TOTAL_ACTIVE_USERS,
          NEW_USERS_PER_MINUTE,
          SESSION_DURATION_MINUTES,
          QUEUE_REFRESH_SECONDS,
          QUEUE_TIMEOUT_MINUTES,
          STRATEGY,
          CURVE_FACTOR,
          QUEUEING_METHOD,
          QUEUE_ALL,
          SUSPENDED,
          DISABLE_SESSION_RENEWAL,
          COOKIE_SUFFIX_KEY,
          COOKIE_SAME_SITE,
          COOKIE_SECURE,
          GENERATION,
          TEMPLATE,
          JSON_RESPONSE,
          JSON_ENVELOPE,
          BYPASS,
          FAIL_MODE,
          ORIGIN_PROTECTION,
          QUEUE_STATUS_MAX_QPS,
          QUEUE_STATUS_MAX_LATENCY_MILLIS,
          MAX_QUEUE_REFRESH_SECONDS,
          PROOF_OF_WORK,
          INVITATIONS,
          EVENTS);

  /** Reads a room; problems are recorded on {@code r}, the result is then not to be used. */
  static RoomSettings read(ConfigNode r) {
    var v = new Values();
    var accepted = new ArrayList<BiConsumer<RoomConfig.Builder, Values>>();
    for (Key<?> k : ALL) {
      readKey(k, r, v, accepted);
    }
    if (v.get(COOKIE_SAME_SITE) == CookieSameSite.NONE && !v.get(COOKIE_SECURE)) {
      r.error(
          COOKIE_SAME_SITE.name(),
          "None requires cookieSecure: true (browsers drop"
              + " SameSite=None cookies without Secure)");
    }
    r.rejectUnknown();
    return new RoomSettings(
        v.get(ID),
        v.get(HOST),
        v.get(PATH),
        v.get(ADDITIONAL_ROUTES),
        v.get(ORIGIN),
        v.get(TOTAL_ACTIVE_USERS),
        v.get(NEW_USERS_PER_MINUTE),
        v.get(SESSION_DURATION_MINUTES),
        v.get(QUEUE_REFRESH_SECONDS),
        v.get(QUEUE_TIMEOUT_MINUTES),
        v.get(STRATEGY),
        v.get(CURVE_FACTOR),
        v.get(QUEUEING_METHOD),
        v.get(QUEUE_ALL),
        v.get(SUSPENDED),
        v.get(DISABLE_SESSION_RENEWAL),
        v.get(COOKIE_SUFFIX_KEY),
        v.get(COOKIE_SAME_SITE),
        v.get(COOKIE_SECURE),
        v.get(GENERATION),
        v.get(TEMPLATE),
        v.get(JSON_RESPONSE),
        v.get(JSON_ENVELOPE),
        v.get(BYPASS),
        v.get(FAIL_MODE),
        v.get(ORIGIN_PROTECTION),
        v.get(QUEUE_STATUS_MAX_QPS),
        v.get(QUEUE_STATUS_MAX_LATENCY_MILLIS),
        v.get(MAX_QUEUE_REFRESH_SECONDS),
        v.get(PROOF_OF_WORK),
        v.get(INVITATIONS),
        v.get(EVENTS));
  }

  /**
   * Reads one key. A room-core key's value is checked by building a {@link RoomConfig} from the
   * core keys accepted so far plus this one, so the room core's message (range, or a rule across
   * keys such as queue timeout at least R) is reported under the key that broke it, and the default
   * is used instead.
   */
  private static <T> void readKey(
      Key<T> k, ConfigNode r, Values v, List<BiConsumer<RoomConfig.Builder, Values>> accepted) {
    T fallback = k.fallback().apply(v);
    int errorsBefore = r.errorCount();
    T value = k.reader().read(r, k.name(), fallback, v);
    if (k.core() != null && r.errorCount() == errorsBefore) {
      BiConsumer<RoomConfig.Builder, Values> step =
          (b, values) -> k.core().accept(b, values.get(k));
      v.put(k, value);
      String problem = coreProblem(v.get(ID), accepted, step, v);
      if (problem == null) {
        accepted.add(step);
      } else {
        r.error(k.name(), problem);
        value = fallback;
      }
    }
    v.put(k, value);
  }

  private static String coreProblem(
      String roomId,
      List<BiConsumer<RoomConfig.Builder, Values>> accepted,
      BiConsumer<RoomConfig.Builder, Values> step,
      Values v) {
    // T, N and S are required by the builder: valid stand-ins until the room's own are read
    RoomConfig.Builder b = requiredOnly(RoomConfig.builder(roomId));
    accepted.forEach(s -> s.accept(b, v));
    step.accept(b, v);
    try {
      b.build();
      return null;
    } catch (IllegalArgumentException e) {
      String prefix = "room '" + roomId + "': "; // the key path already names the room
      String m = String.valueOf(e.getMessage());
      return m.startsWith(prefix) ? m.substring(prefix.length()) : m;
    }
  }

  private static RoomConfig.Builder requiredOnly(RoomConfig.Builder b) {
    return b.totalActiveUsers(1).newUsersPerMinute(1).sessionDurationMinutes(1);
  }

  /** The room core's view of the room, with {@code newUsersPerMinute} in force. */
  static RoomConfig roomConfig(RoomSettings s, int newUsersPerMinute) {
    RoomConfig.Builder b = RoomConfig.builder(s.id());
    for (Key<?> k : ALL) {
      applyCore(k, s, b);
    }
    return b.newUsersPerMinute(newUsersPerMinute)
        .queueOrder(
            s.queueingMethod() == QueueingMethod.RANDOM ? QueueOrder.RANDOM : QueueOrder.FIFO)
        .build();
  }

  private static <T> void applyCore(Key<T> k, RoomSettings s, RoomConfig.Builder b) {
    if (k.core() != null) {
      k.core().accept(b, k.getter().apply(s));
    }
  }

  /** The room as JSON with the YAML key names: the admin API's view, re-readable. */
  static ObjectNode toJson(RoomSettings s) {
    var o = JsonNodeFactory.instance.objectNode();
    for (Key<?> k : ALL) {
      write(k, s, o);
    }
    return o;
  }

  private static <T> void write(Key<T> k, RoomSettings s, ObjectNode o) {
    k.writer().write(o, k.name(), k.getter().apply(s));
  }

  private static String readId(ConfigNode r, String name, String fallback, Values v) {
    String id = r.string(name, null);
    if (id == null) {
      r.error(name, "missing; every room needs an id (letters, digits, '-' or '_')");
      return fallback;
    }
    if (!ROOM_ID.matcher(id).matches()) {
      r.error(name, "\"" + id + "\" is not allowed; use 1 to 64 letters, digits, '-' or '_'");
    }
    return id;
  }

  private static List<Route> readRoutes(ConfigNode r, String name, List<Route> fallback, Values v) {
    var extra = new ArrayList<Route>();
    for (ConfigNode a : r.objects(name)) {
      extra.add(new Route(a.host("host", v.get(HOST)), a.path("path", "/")));
      a.rejectUnknown();
    }
    return extra;
  }

  private static final BypassRule EMPTY_RULE =
      new BypassRule(
          Optional.empty(),
          Optional.empty(),
          Optional.empty(),
          Optional.empty(),
          Optional.empty(),
          Optional.empty());

  private static List<BypassRule> readBypass(
      ConfigNode r, String name, List<BypassRule> fallback, Values v) {
    var bypass = new ArrayList<BypassRule>();
    for (ConfigNode b : r.objects(name)) {
      var rule =
          new BypassRule(
              b.optional("path"),
              b.optional("header"),
              b.optional("headerValue"),
              b.optional("cookie"),
              b.optional("userAgent"),
              b.optional("cidr"));
      rule.cidr()
          .ifPresent(
              c -> {
                try {
                  Cidr.parse(c);
                } catch (IllegalArgumentException e) {
                  b.error("cidr", e.getMessage());
                }
              });
      if (rule.headerValue().isPresent() && rule.header().isEmpty()) {
        b.error("headerValue", "needs \"header\" (the header name to compare)");
      }
      if (rule.equals(EMPTY_RULE)) {
        b.error(
            "",
            "an empty bypass rule would bypass everything; set at least one of path,"
                + " header, cookie, userAgent, cidr");
      }
      b.rejectUnknown();
      bypass.add(rule);
    }
    return bypass;
  }

  private static void writeBypass(ObjectNode o, String name, List<BypassRule> rules) {
    var bypass = o.putArray(name);
    for (BypassRule b : rules) {
      var bo = bypass.addObject();
      b.path().ifPresent(x -> bo.put("path", x));
      b.header().ifPresent(x -> bo.put("header", x));
      b.headerValue().ifPresent(x -> bo.put("headerValue", x));
      b.cookie().ifPresent(x -> bo.put("cookie", x));
      b.userAgent().ifPresent(x -> bo.put("userAgent", x));
      b.cidr().ifPresent(x -> bo.put("cidr", x));
    }
  }

  private static List<EventSettings> readEvents(
      ConfigNode r, String name, List<EventSettings> fallback, Values v) {
    var events = new ArrayList<EventSettings>();
    for (ConfigNode e : r.objects(name)) {
      String eventName = e.string("name", null);
      if (eventName == null || eventName.isBlank()) {
        e.error("name", "missing; every event needs a name (unique in its room)");
      }
      Instant start = instant(e, "eventStartTime", true);
      Instant end = instant(e, "eventEndTime", true);
      Instant prequeue = instant(e, "prequeueStartTime", false);
      boolean shuffle = e.bool("shuffleAtEventStart", false);
      Optional<Integer> t = optionalInt(e, "totalActiveUsers", 1, 100_000_000);
      Optional<Integer> n = optionalInt(e, "newUsersPerMinute", 1, 100_000_000);
      Optional<Integer> sd = optionalInt(e, "sessionDurationMinutes", 1, 1440);
      Optional<QueueingMethod> method =
          e.has("queueingMethod")
              ? Optional.of(
                  e.choice(
                      "queueingMethod",
                      QueueingMethod.FIFO,
                      List.of(QueueingMethod.values()),
                      QueueingMethod::configName))
              : Optional.empty();
      Optional<Boolean> disable =
          e.has("disableSessionRenewal")
              ? Optional.of(e.bool("disableSessionRenewal", false))
              : Optional.empty();
      Optional<String> template = Optional.ofNullable(e.string("template", null));
      if (template.isPresent() && !TemplateDirectory.wellFormed(template.get())) {
        e.error("template", "\"" + template.get() + "\" is not a template name");
      }
      // the event's check at the door; the room's own settings fill what it leaves out
      Optional<ProofOfWork> pow =
          e.has("proofOfWork")
              ? Optional.of(readProofOfWork(e, "proofOfWork", v.get(PROOF_OF_WORK), v))
              : Optional.empty();
      // an event may require invitations for its own time; the room's key signs them
      Optional<Boolean> invite = Optional.empty();
      if (e.has("invitations")) {
        ConfigNode i = e.object("invitations");
        invite = Optional.of(i.bool("required", false));
        if (i.has("keyFile")) {
          i.error("keyFile", "the room's invitations.keyFile signs every event's invitations");
        }
        i.rejectUnknown();
        if (invite.get() && v.get(INVITATIONS).keyFile().isEmpty()) {
          i.error(
              "required",
              "needs the room's invitations.keyFile (the HMAC key the invitations are signed"
                  + " with)");
        }
      }
      e.rejectUnknown();
      if (eventName == null || eventName.isBlank() || start == null || end == null) {
        continue;
      }
      try {
        var window = new EventWindow(eventName, prequeue, start, end, shuffle);
        events.add(new EventSettings(window, t, n, sd, method, disable, template, pow, invite));
      } catch (IllegalArgumentException x) {
        e.error("", x.getMessage());
      }
    }
    try {
      EventWindow.requireDisjoint("events", events.stream().map(EventSettings::window).toList());
    } catch (IllegalArgumentException x) {
      r.error(name, x.getMessage().substring("events: ".length()));
    }
    return events;
  }

  private static Instant instant(ConfigNode e, String key, boolean required) {
    String text = e.string(key, null);
    if (text == null) {
      if (required) {
        e.error(key, "missing; give an ISO-8601 instant such as 2026-12-01T18:00:00Z");
      }
      return null;
    }
    try {
      return java.time.OffsetDateTime.parse(text).toInstant();
    } catch (java.time.format.DateTimeParseException x) {
      e.error(
          key,
          "\""
              + text
              + "\" is not an ISO-8601 instant; give one with its offset, such as"
              + " 2026-12-01T18:00:00Z");
      return null;
    }
  }

  private static Optional<Integer> optionalInt(ConfigNode e, String key, int min, int max) {
    return e.has(key) ? Optional.of(e.integer(key, min, min, max)) : Optional.empty();
  }

  private static void writeEvents(ObjectNode o, String name, List<EventSettings> events) {
    var a = o.putArray(name);
    for (EventSettings e : events) {
      var eo = a.addObject();
      EventWindow w = e.window();
      eo.put("name", w.name());
      if (w.prequeueFrom() != null) {
        eo.put("prequeueStartTime", w.prequeueFrom().toString());
      }
      eo.put("eventStartTime", w.opensAt().toString());
      eo.put("eventEndTime", w.closesAt().toString());
      eo.put("shuffleAtEventStart", w.shuffle());
      e.totalActiveUsers().ifPresent(x -> eo.put("totalActiveUsers", x));
      e.newUsersPerMinute().ifPresent(x -> eo.put("newUsersPerMinute", x));
      e.sessionDurationMinutes().ifPresent(x -> eo.put("sessionDurationMinutes", x));
      e.queueingMethod().ifPresent(x -> eo.put("queueingMethod", x.configName()));
      e.disableSessionRenewal().ifPresent(x -> eo.put("disableSessionRenewal", x));
      e.template().ifPresent(x -> eo.put("template", x));
      e.proofOfWork().ifPresent(x -> writeProofOfWork(eo, "proofOfWork", x));
      e.invitationsRequired().ifPresent(x -> eo.putObject("invitations").put("required", x));
    }
  }

  private static Invitations readInvitations(
      ConfigNode r, String name, Invitations fallback, Values v) {
    ConfigNode i = r.object(name);
    boolean required = i.bool("required", fallback.required());
    Optional<java.nio.file.Path> keyFile = Optional.empty();
    String file = i.string("keyFile", null);
    if (file != null) {
      try {
        InvitationKey.read(java.nio.file.Path.of(file));
        keyFile = Optional.of(java.nio.file.Path.of(file));
      } catch (IllegalArgumentException e) {
        i.error("keyFile", e.getMessage());
      }
    } else if (required) {
      i.error(
          "keyFile", "missing; required invitations need the HMAC key file they are signed with");
    }
    i.rejectUnknown();
    return new Invitations(required, keyFile);
  }

  private static void writeInvitations(ObjectNode o, String k, Invitations i) {
    var io = o.putObject(k).put("required", i.required());
    i.keyFile().ifPresent(f -> io.put("keyFile", f.toString()));
  }

  private static void writeProofOfWork(ObjectNode o, String k, ProofOfWork p) {
    o.putObject(k)
        .put("enabled", p.enabled())
        .put("difficulty", p.difficulty())
        .put("challengeTtlSeconds", p.challengeTtlSeconds())
        .put("onRepeatedFailure", p.onRepeatedFailure().configName());
  }

  private static OriginProtection readProtection(
      ConfigNode r, String name, OriginProtection fallback, Values v) {
    ConfigNode p = r.object(name);
    var protection =
        new OriginProtection(
            p.bool("enabled", fallback.enabled()),
            p.integer("maxLatencyMillis", fallback.maxLatencyMillis(), 1, 600_000),
            p.decimal("maxErrorRatio", fallback.maxErrorRatio(), 0.0, 1.0),
            p.integer("minNewUsersPerMinute", fallback.minNewUsersPerMinute(), 1, 100_000_000));
    p.rejectUnknown();
    return protection;
  }

  /** Difficulty 1 to 32 bits: the verifier and the page's solver compare one 32-bit word. */
  static final int MAX_DIFFICULTY = 32;

  private static ProofOfWork readProofOfWork(
      ConfigNode r, String name, ProofOfWork fallback, Values v) {
    ConfigNode p = r.object(name);
    var pow =
        new ProofOfWork(
            p.bool("enabled", fallback.enabled()),
            p.integer("difficulty", fallback.difficulty(), 1, MAX_DIFFICULTY),
            p.integer("challengeTtlSeconds", fallback.challengeTtlSeconds(), 10, 3600),
            p.choice(
                "onRepeatedFailure",
                fallback.onRepeatedFailure(),
                List.of(OnRepeatedFailure.values()),
                OnRepeatedFailure::configName));
    p.rejectUnknown();
    return pow;
  }
}
