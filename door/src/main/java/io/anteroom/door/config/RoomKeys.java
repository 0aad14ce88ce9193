package io.anteroom.door.config;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.anteroom.door.config.GatewayConfig.Account;
import io.anteroom.door.config.GatewayConfig.AddressLimit;
import io.anteroom.door.config.GatewayConfig.EventSettings;
import io.anteroom.door.config.GatewayConfig.HumanCheck;
import io.anteroom.door.config.GatewayConfig.HumanFailure;
import io.anteroom.door.config.GatewayConfig.HumanProvider;
import io.anteroom.door.config.GatewayConfig.HumanUnavailable;
import io.anteroom.door.config.GatewayConfig.Invitations;
import io.anteroom.door.config.GatewayConfig.Oidc;
import io.anteroom.door.config.GatewayConfig.OnRepeatedFailure;
import io.anteroom.door.config.GatewayConfig.OriginProtection;
import io.anteroom.door.config.GatewayConfig.ProofOfWork;
import io.anteroom.door.config.GatewayConfig.RoomSettings;
import io.anteroom.door.config.GatewayConfig.RoomSettings.Cookie;
import io.anteroom.door.config.GatewayConfig.RoomSettings.Limits;
import io.anteroom.door.config.GatewayConfig.RoomSettings.Protection;
import io.anteroom.door.config.GatewayConfig.RoomSettings.QueuePage;
import io.anteroom.door.config.GatewayConfig.RoomSettings.Resilience;
import io.anteroom.door.config.GatewayConfig.RoomSettings.Routing;
import io.anteroom.door.config.GatewayConfig.RoomSettings.Switches;
import io.anteroom.door.config.GatewayConfig.Route;
import io.anteroom.door.config.GatewayConfig.Rule;
import io.anteroom.door.config.GatewayConfig.RuleAction;
import io.anteroom.door.config.GatewayConfig.SignedCondition;
import io.anteroom.door.config.GatewayConfig.ValueMatch;
import io.anteroom.door.match.Cidr;
import io.anteroom.room.EventWindow;
import io.anteroom.room.QueueOrder;
import io.anteroom.room.RoomConfig;
import io.anteroom.room.slots.StrategyKind;
import java.net.URI;
import java.net.URISyntaxException;
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
 * the JSON; each key is the component of its name in {@link RoomSettings} or one of its groups.
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
   * @param field where the value lives in {@link RoomSettings}: the component of the key's name
   * @param core how the value goes into the room core's {@link RoomConfig.Builder}; null for keys
   *     the gateway owns
   */
  record Key<T>(
      String name,
      Function<Values, T> fallback,
      Reader<T> reader,
      Writer<T> writer,
      Field<T> field,
      BiConsumer<RoomConfig.Builder, T> core) {}

  /** How a key's value is got from a {@link RoomSettings} and set on its builder. */
  record Field<T>(Function<RoomSettings, T> get, BiConsumer<RoomSettings.Builder, T> set) {}

  /** A group of {@link RoomSettings} ({@link Limits}, ...): its record and its builder. */
  record Group<G, B>(Function<RoomSettings, G> get, Function<RoomSettings.Builder, B> builder) {
    <T> Field<T> field(Function<G, T> getter, BiConsumer<B, T> setter) {
      return new Field<>(
          s -> getter.apply(get.apply(s)), (b, v) -> setter.accept(builder.apply(b), v));
    }
  }

  private static <T> Field<T> top(
      Function<RoomSettings, T> getter, BiConsumer<RoomSettings.Builder, T> setter) {
    return new Field<>(getter, setter);
  }

  static final Group<Routing, Routing.Builder> ROUTING =
      new Group<>(RoomSettings::routing, RoomSettings.Builder::routing);
  static final Group<Limits, Limits.Builder> LIMITS =
      new Group<>(RoomSettings::limits, RoomSettings.Builder::limits);
  static final Group<Switches, Switches.Builder> SWITCHES =
      new Group<>(RoomSettings::switches, RoomSettings.Builder::switches);
  static final Group<Cookie, Cookie.Builder> COOKIE =
      new Group<>(RoomSettings::cookie, RoomSettings.Builder::cookie);
  static final Group<QueuePage, QueuePage.Builder> QUEUE_PAGE =
      new Group<>(RoomSettings::queuePage, RoomSettings.Builder::queuePage);
  static final Group<Resilience, Resilience.Builder> RESILIENCE =
      new Group<>(RoomSettings::resilience, RoomSettings.Builder::resilience);
  static final Group<Protection, Protection.Builder> PROTECTION =
      new Group<>(RoomSettings::protection, RoomSettings.Builder::protection);

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
      Field<T> field) {
    return new Key<>(name, fallback, reader, writer, field, null);
  }

  private static Key<Integer> ranged(
      String name, int fallback, int min, int max, Field<Integer> field) {
    return key(name, v -> fallback, (n, k, f, v) -> n.integer(k, f, min, max), INT, field);
  }

  private static Key<Boolean> bool(String name, boolean fallback, Field<Boolean> field) {
    return key(name, v -> fallback, (n, k, f, v) -> n.bool(k, f), BOOL, field);
  }

  private static Key<Integer> core(
      String name,
      Function<Values, Integer> fallback,
      Field<Integer> field,
      BiConsumer<RoomConfig.Builder, Integer> core) {
    return new Key<>(name, fallback, (n, k, f, v) -> n.integer(k, f), INT, field, core);
  }

  private static <E extends Enum<E>> Key<E> choice(
      String name, E fallback, Class<E> type, Function<E, String> configName, Field<E> field) {
    List<E> allowed = List.of(type.getEnumConstants());
    return key(
        name,
        v -> fallback,
        (n, k, f, v) -> n.choice(k, f, allowed, configName),
        (o, k, e) -> o.put(k, configName.apply(e)),
        field);
  }

  static final Key<String> ID =
      key(
          "id",
          v -> "?",
          RoomKeys::readId,
          STRING,
          top(RoomSettings::id, RoomSettings.Builder::id));
  static final Key<String> HOST =
      key(
          "host",
          v -> "*",
          (n, k, f, v) -> n.host(k, f),
          STRING,
          ROUTING.field(Routing::host, Routing.Builder::host));
  static final Key<String> PATH =
      key(
          "path",
          v -> "/",
          (n, k, f, v) -> n.path(k, f),
          STRING,
          ROUTING.field(Routing::path, Routing.Builder::path));
  static final Key<List<Route>> ADDITIONAL_ROUTES =
      key(
          "additionalRoutes",
          v -> List.of(),
          RoomKeys::readRoutes,
          (o, k, routes) -> {
            var a = o.putArray(k);
            routes.forEach(rt -> a.addObject().put("host", rt.host()).put("path", rt.path()));
          },
          ROUTING.field(Routing::additionalRoutes, Routing.Builder::additionalRoutes));
  static final Key<Optional<URI>> ORIGIN =
      key(
          "origin",
          v -> Optional.empty(),
          (n, k, f, v) -> n.url(k),
          (o, k, u) -> u.ifPresent(x -> o.put(k, x.toString())),
          ROUTING.field(Routing::origin, Routing.Builder::origin));
  static final Key<Integer> TOTAL_ACTIVE_USERS =
      core(
          "totalActiveUsers",
          v -> 1000,
          LIMITS.field(Limits::totalActiveUsers, Limits.Builder::totalActiveUsers),
          RoomConfig.Builder::totalActiveUsers);
  static final Key<Integer> NEW_USERS_PER_MINUTE =
      core(
          "newUsersPerMinute",
          v -> v.get(TOTAL_ACTIVE_USERS),
          LIMITS.field(Limits::newUsersPerMinute, Limits.Builder::newUsersPerMinute),
          RoomConfig.Builder::newUsersPerMinute);
  static final Key<Integer> SESSION_DURATION_MINUTES =
      core(
          "sessionDurationMinutes",
          v -> 5,
          LIMITS.field(Limits::sessionDurationMinutes, Limits.Builder::sessionDurationMinutes),
          RoomConfig.Builder::sessionDurationMinutes);
  static final Key<Integer> QUEUE_REFRESH_SECONDS =
      core(
          "queueRefreshSeconds",
          v -> CORE_DEFAULTS.queueRefreshSeconds(),
          LIMITS.field(Limits::queueRefreshSeconds, Limits.Builder::queueRefreshSeconds),
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
          LIMITS.field(Limits::queueTimeoutMinutes, Limits.Builder::queueTimeoutMinutes),
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
          LIMITS.field(Limits::strategy, Limits.Builder::strategy),
          RoomConfig.Builder::strategy);
  static final Key<Double> CURVE_FACTOR =
      new Key<>(
          "curveFactor",
          v -> CORE_DEFAULTS.curveFactor(),
          (n, k, f, v) -> n.decimal(k, f),
          DECIMAL,
          LIMITS.field(Limits::curveFactor, Limits.Builder::curveFactor),
          RoomConfig.Builder::curveFactor);
  static final Key<QueueingMethod> QUEUEING_METHOD =
      choice(
          "queueingMethod",
          QueueingMethod.FIFO,
          QueueingMethod.class,
          QueueingMethod::configName,
          LIMITS.field(Limits::queueingMethod, Limits.Builder::queueingMethod));
  static final Key<Boolean> QUEUE_ALL =
      bool("queueAll", false, SWITCHES.field(Switches::queueAll, Switches.Builder::queueAll));
  static final Key<Boolean> SUSPENDED =
      bool("suspended", false, SWITCHES.field(Switches::suspended, Switches.Builder::suspended));
  static final Key<Boolean> DISABLE_SESSION_RENEWAL =
      new Key<>(
          "disableSessionRenewal",
          v -> !CORE_DEFAULTS.sessionRenewal(),
          (n, k, f, v) -> n.bool(k, f),
          BOOL,
          LIMITS.field(Limits::disableSessionRenewal, Limits.Builder::disableSessionRenewal),
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
          COOKIE.field(Cookie::cookieSuffix, Cookie.Builder::cookieSuffix));
  static final Key<CookieSameSite> COOKIE_SAME_SITE =
      choice(
          "cookieSameSite",
          CookieSameSite.LAX,
          CookieSameSite.class,
          CookieSameSite::configName,
          COOKIE.field(Cookie::cookieSameSite, Cookie.Builder::cookieSameSite));
  static final Key<Boolean> COOKIE_SECURE =
      bool("cookieSecure", false, COOKIE.field(Cookie::cookieSecure, Cookie.Builder::cookieSecure));

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
          top(RoomSettings::generation, RoomSettings.Builder::generation));

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
          QUEUE_PAGE.field(QueuePage::template, QueuePage.Builder::template));

  static final Key<Boolean> JSON_RESPONSE =
      bool(
          "jsonResponse",
          true,
          QUEUE_PAGE.field(QueuePage::jsonResponse, QueuePage.Builder::jsonResponse));

  /** The queue JSON inside {@code {"cfWaitingRoom": {...}}}, as the hosted room's JSON has it. */
  static final Key<Boolean> JSON_ENVELOPE =
      bool(
          "jsonEnvelope",
          false,
          QUEUE_PAGE.field(QueuePage::jsonEnvelope, QueuePage.Builder::jsonEnvelope));

  /**
   * The languages the room's pages are offered in (built-in tags), each at most once; default all
   * built-in ones. One language: every visitor gets it whatever the browser asks for.
   */
  static final Key<List<String>> LANGUAGES =
      key(
          "languages",
          v -> PageLanguages.BUILT_IN,
          (n, k, f, v) -> {
            if (!n.has(k)) {
              return f;
            }
            List<String> given = n.strings(k);
            var kept = new ArrayList<String>();
            for (String language : given) {
              if (!PageLanguages.BUILT_IN.contains(language)) {
                n.error(k, language(language));
              } else if (kept.contains(language)) {
                n.error(k, "\"" + language + "\" is listed twice");
              } else {
                kept.add(language);
              }
            }
            if (given.isEmpty()) {
              n.error(k, "name at least one language; allowed: " + allowedLanguages());
            }
            return kept.isEmpty() ? f : kept;
          },
          (o, k, list) -> {
            var a = o.putArray(k);
            list.forEach(a::add);
          },
          QUEUE_PAGE.field(QueuePage::languages, QueuePage.Builder::languages));

  /**
   * The room's page language when the browser's {@code Accept-Language} names none of {@code
   * languages}: one of them; default {@code en} when offered, else the first one.
   */
  static final Key<String> LANGUAGE =
      key(
          "language",
          v ->
              v.get(LANGUAGES).contains(PageLanguages.DEFAULT)
                  ? PageLanguages.DEFAULT
                  : v.get(LANGUAGES).getFirst(),
          (n, k, f, v) -> {
            String language = n.string(k, f);
            if (!PageLanguages.BUILT_IN.contains(language)) {
              n.error(k, language(language));
              return f;
            }
            if (!v.get(LANGUAGES).contains(language)) {
              n.error(
                  k,
                  "\""
                      + language
                      + "\" is not among the room's languages ("
                      + String.join(", ", v.get(LANGUAGES))
                      + ")");
              return f;
            }
            return language;
          },
          STRING,
          QUEUE_PAGE.field(QueuePage::language, QueuePage.Builder::language));

  /** The HTTP status of the queue page and JSON: 200, 202 or 429 (with {@code Retry-After}). */
  static final Key<Integer> QUEUEING_STATUS_CODE =
      key(
          "queueingStatusCode",
          v -> 200,
          (n, k, f, v) -> {
            int code = n.integer(k, f);
            if (code != 200 && code != 202 && code != 429) {
              n.error(k, code + " is not allowed; allowed: 200, 202, 429");
              return f;
            }
            return code;
          },
          INT,
          QUEUE_PAGE.field(QueuePage::queueingStatusCode, QueuePage.Builder::queueingStatusCode));

  private static String language(String language) {
    return "\"" + language + "\" is not a built-in language; allowed: " + allowedLanguages();
  }

  private static String allowedLanguages() {
    return String.join(", ", PageLanguages.BUILT_IN);
  }

  /** Rules with actions, looked at in order before the {@code bypass} list ({@link Rule}). */
  static final Key<List<Rule>> RULES =
      key(
          "rules",
          v -> List.of(),
          (n, k, f, v) -> readRules(n, k, null),
          (o, k, rules) -> writeRules(o, k, rules, true),
          PROTECTION.field(Protection::rules, Protection.Builder::rules));

  /** The older form: rules whose action is always {@code bypass} (kept as they were written). */
  static final Key<List<Rule>> BYPASS =
      key(
          "bypass",
          v -> List.of(),
          (n, k, f, v) -> readRules(n, k, RuleAction.BYPASS),
          (o, k, rules) -> writeRules(o, k, rules, false),
          PROTECTION.field(Protection::bypass, Protection.Builder::bypass));

  static final Key<FailMode> FAIL_MODE =
      choice(
          "failMode",
          FailMode.DEGRADE,
          FailMode.class,
          FailMode::configName,
          RESILIENCE.field(Resilience::failMode, Resilience.Builder::failMode));
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
          RESILIENCE.field(Resilience::originProtection, Resilience.Builder::originProtection));
  static final Key<Integer> QUEUE_STATUS_MAX_QPS =
      ranged(
          "queueStatusMaxQps",
          2000,
          1,
          10_000_000,
          RESILIENCE.field(Resilience::queueStatusMaxQps, Resilience.Builder::queueStatusMaxQps));
  static final Key<Integer> QUEUE_STATUS_MAX_LATENCY_MILLIS =
      ranged(
          "queueStatusMaxLatencyMillis",
          250,
          1,
          600_000,
          RESILIENCE.field(
              Resilience::queueStatusMaxLatencyMillis,
              Resilience.Builder::queueStatusMaxLatencyMillis));
  static final Key<Integer> MAX_QUEUE_REFRESH_SECONDS =
      key(
          "maxQueueRefreshSeconds",
          v -> Math.max(120, v.get(QUEUE_REFRESH_SECONDS)),
          (n, k, f, v) -> n.integer(k, f, v.get(QUEUE_REFRESH_SECONDS), 3600),
          INT,
          RESILIENCE.field(
              Resilience::maxQueueRefreshSeconds, Resilience.Builder::maxQueueRefreshSeconds));

  /** The proof-of-work check at the door; see {@link ProofOfWork}. */
  static final Key<ProofOfWork> PROOF_OF_WORK =
      key(
          "proofOfWork",
          v -> ProofOfWork.OFF,
          RoomKeys::readProofOfWork,
          RoomKeys::writeProofOfWork,
          PROTECTION.field(Protection::proofOfWork, Protection.Builder::proofOfWork));

  /** The limit of new identities per client address prefix; see {@link AddressLimit}. */
  static final Key<AddressLimit> ADDRESS_LIMIT =
      key(
          "addressLimit",
          v -> AddressLimit.OFF,
          RoomKeys::readAddressLimit,
          (o, k, a) ->
              o.putObject(k)
                  .put("newIdentitiesPerMinute", a.newIdentitiesPerMinute())
                  .put("ipv4PrefixLength", a.ipv4PrefixLength())
                  .put("ipv6PrefixLength", a.ipv6PrefixLength()),
          PROTECTION.field(Protection::addressLimit, Protection.Builder::addressLimit));

  /** The human check at the door; see {@link HumanCheck}. */
  static final Key<HumanCheck> HUMAN_CHECK =
      key(
          "humanCheck",
          v -> HumanCheck.OFF,
          RoomKeys::readHumanCheck,
          (o, k, h) ->
              o.putObject(k)
                  .put("enabled", h.enabled())
                  .put("provider", h.provider().configName())
                  .put("siteKey", h.siteKey())
                  .put("secretFile", h.secretFile().toString())
                  .put("verifyUrl", h.verifyUrl().toString())
                  .put("scriptUrl", h.scriptUrl().toString())
                  .put("onFailure", h.onFailure().configName())
                  .put("onUnavailable", h.onUnavailable().configName())
                  .put("timeoutMillis", h.timeoutMillis()),
          PROTECTION.field(Protection::humanCheck, Protection.Builder::humanCheck));

  /** Invitations ({@link Invitations}): invite-only rooms and the key that signs the tokens. */
  static final Key<Invitations> INVITATIONS =
      key(
          "invitations",
          v -> Invitations.NONE,
          RoomKeys::readInvitations,
          RoomKeys::writeInvitations,
          PROTECTION.field(Protection::invitations, Protection.Builder::invitations));

  /** The user's account as the application asserts it ({@link Account}); off by default. */
  static final Key<Account> ACCOUNT =
      key(
          "account",
          v -> Account.NONE,
          RoomKeys::readAccount,
          RoomKeys::writeAccount,
          PROTECTION.field(Protection::account, Protection.Builder::account));

  /** Scheduled events: times and overrides ({@link EventSettings}); see docs/events.md. */
  static final Key<List<EventSettings>> EVENTS =
      key(
          "events",
          v -> List.of(),
          RoomKeys::readEvents,
          RoomKeys::writeEvents,
          top(RoomSettings::events, RoomSettings.Builder::events));

  /** Every room key, in the order of the JSON (and of {@code docs/gateway.md}'s table). */
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
          LANGUAGES,
          LANGUAGE,
          QUEUEING_STATUS_CODE,
          RULES,
          BYPASS,
          FAIL_MODE,
          ORIGIN_PROTECTION,
          QUEUE_STATUS_MAX_QPS,
          QUEUE_STATUS_MAX_LATENCY_MILLIS,
          MAX_QUEUE_REFRESH_SECONDS,
          PROOF_OF_WORK,
          ADDRESS_LIMIT,
          HUMAN_CHECK,
          INVITATIONS,
          ACCOUNT,
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
    RoomSettings.Builder b = RoomSettings.builder();
    for (Key<?> k : ALL) {
      set(k, v, b);
    }
    return b.build();
  }

  private static <T> void set(Key<T> k, Values v, RoomSettings.Builder b) {
    k.field().set().accept(b, v.get(k));
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
            s.limits().queueingMethod() == QueueingMethod.RANDOM
                ? QueueOrder.RANDOM
                : QueueOrder.FIFO)
        .build();
  }

  private static <T> void applyCore(Key<T> k, RoomSettings s, RoomConfig.Builder b) {
    if (k.core() != null) {
      k.core().accept(b, k.field().get().apply(s));
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
    k.writer().write(o, k.name(), k.field().get().apply(s));
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

  private static final java.util.regex.Pattern TOKEN =
      java.util.regex.Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

  /** The shortest signed-bypass key accepted, in characters (e.g. openssl rand -hex 32: 64). */
  static final int MIN_SIGNED_KEY_CHARS = 32;

  /**
   * A list of rules; {@code fixed} is the action of every rule of the list ({@code bypass}), null
   * when each rule names its own ({@code rules}).
   */
  private static List<Rule> readRules(ConfigNode r, String name, RuleAction fixed) {
    var rules = new ArrayList<Rule>();
    for (ConfigNode b : r.objects(name)) {
      rules.add(readRule(b, fixed));
    }
    return rules;
  }

  private static Rule readRule(ConfigNode b, RuleAction fixed) {
    RuleAction action = RuleAction.BYPASS;
    List<RuleAction> actions = List.of(RuleAction.values());
    if (fixed == null) {
      if (!b.has("action")) {
        b.error("action", "missing; one of bypass, challenge, block, queue");
      } else {
        action = b.choice("action", RuleAction.BYPASS, actions, RuleAction::configName);
      }
    } else if (b.has("action")) {
      RuleAction given = b.choice("action", fixed, actions, RuleAction::configName);
      if (given != fixed) {
        b.error(
            "action",
            "\""
                + given.configName()
                + "\" in a bypass rule: bypass rules always bypass; move the rule to the room's"
                + " \"rules\" list to "
                + given.configName()
                + " matching requests");
      }
    }
    Optional<String> path = b.optional("path");
    path.ifPresent(
        p -> {
          if (!p.startsWith("/")) {
            b.error("path", "\"" + p + "\" never matches: request paths start with /");
          }
        });
    var methods = new ArrayList<String>();
    for (String m : b.stringOrList("method")) {
      if (!TOKEN.matcher(m).matches()) {
        b.error("method", "\"" + m + "\" is not a request method (e.g. GET, POST)");
      } else {
        methods.add(m.toUpperCase(java.util.Locale.ROOT));
      }
    }
    List<ValueMatch> query = valueMatches(b, "query", false);
    List<ValueMatch> headers = new ArrayList<>();
    if (b.has("header") && !b.isObject("header") && !b.isList("header")) {
      String header = b.string("header", "");
      if (!TOKEN.matcher(header).matches()) {
        b.error("header", "\"" + header + "\" is not a header name");
      }
      headers.add(new ValueMatch(header, b.optional("headerValue"), Optional.empty(), false));
    } else {
      headers.addAll(valueMatches(b, "header", true));
      if (b.has("headerValue")) {
        b.optional("headerValue");
        b.error(
            "headerValue",
            "needs \"header\" (the header name to compare) as a plain name; with"
                + " header: { name, value } write the value there");
      }
    }
    List<ValueMatch> cookies;
    if (b.has("cookie") && !b.isObject("cookie") && !b.isList("cookie")) {
      cookies =
          List.of(
              new ValueMatch(b.string("cookie", ""), Optional.empty(), Optional.empty(), false));
    } else {
      cookies = valueMatches(b, "cookie", false);
    }
    Optional<String> userAgent = b.optional("userAgent");
    List<String> cidrs = b.stringOrList("cidr");
    for (String c : cidrs) {
      try {
        Cidr.parse(c);
      } catch (IllegalArgumentException e) {
        b.error("cidr", e.getMessage());
      }
    }
    Optional<SignedCondition> signed =
        b.has("signed") ? Optional.of(readSigned(b.object("signed"))) : Optional.empty();
    var rule = new Rule(action, path, methods, query, headers, cookies, userAgent, cidrs, signed);
    if (rule.unconditional()) {
      b.error(
          "",
          "a rule without conditions would match every request; set at least one of path,"
              + " method, query, header, cookie, userAgent, cidr, signed");
    }
    b.rejectUnknown();
    return rule;
  }

  /** {@code name: { name, value | glob, not }} or a list of them. */
  private static List<ValueMatch> valueMatches(ConfigNode b, String key, boolean token) {
    var out = new ArrayList<ValueMatch>();
    if (b.has(key) && !b.isObject(key) && !b.isList(key)) {
      b.string(key, null);
      b.error(key, "expected a mapping { name, value | glob, not } or a list of them");
      return out;
    }
    for (ConfigNode m : b.objectOrList(key)) {
      String n = m.string("name", null);
      if (n == null || n.isEmpty()) {
        m.error("name", "missing; the " + key + " name to look at");
        n = "";
      } else if (token && !TOKEN.matcher(n).matches()) {
        m.error("name", "\"" + n + "\" is not a header name");
      }
      Optional<String> value = Optional.ofNullable(m.string("value", null));
      Optional<String> glob = Optional.ofNullable(m.string("glob", null));
      if (value.isPresent() && glob.isPresent()) {
        m.error("glob", "give value (exact) or glob, not both");
      }
      boolean not = m.bool("not", false);
      m.rejectUnknown();
      out.add(new ValueMatch(n, value, glob, not));
    }
    return out;
  }

  private static SignedCondition readSigned(ConfigNode s) {
    String file = s.string("keyFile", null);
    java.nio.file.Path keyFile = null;
    if (file == null) {
      s.error("keyFile", "missing; a file holding the shared key (e.g. openssl rand -hex 32)");
    } else {
      keyFile = java.nio.file.Path.of(file);
      String problem = signedKeyProblem(keyFile);
      if (problem != null) {
        s.error("keyFile", problem);
      }
    }
    String header = s.string("header", SignedCondition.DEFAULT_HEADER);
    if (!TOKEN.matcher(header).matches()) {
      s.error("header", "\"" + header + "\" is not a header name");
    }
    int maxAge = s.integer("maxAgeSeconds", 300, 1, 3600);
    s.rejectUnknown();
    return new SignedCondition(
        keyFile == null ? java.nio.file.Path.of("") : keyFile, header, maxAge);
  }

  /** Why {@code keyFile} cannot be a signed-bypass key, or null. */
  static String signedKeyProblem(java.nio.file.Path keyFile) {
    try {
      String key = java.nio.file.Files.readString(keyFile).strip();
      if (key.length() < MIN_SIGNED_KEY_CHARS) {
        return keyFile
            + " holds "
            + key.length()
            + " characters; a key needs at least "
            + MIN_SIGNED_KEY_CHARS
            + " (e.g. openssl rand -hex 32)";
      }
      return null;
    } catch (java.io.IOException | RuntimeException e) {
      return "cannot read " + keyFile + " (" + e.getClass().getSimpleName() + ")";
    }
  }

  private static void writeRules(ObjectNode o, String name, List<Rule> rules, boolean action) {
    var list = o.putArray(name);
    for (Rule b : rules) {
      var bo = list.addObject();
      if (action) {
        bo.put("action", b.action().configName());
      }
      b.path().ifPresent(x -> bo.put("path", x));
      if (b.methods().size() == 1) {
        bo.put("method", b.methods().getFirst());
      } else if (!b.methods().isEmpty()) {
        b.methods().forEach(bo.putArray("method")::add);
      }
      writeMatches(bo, "query", b.query());
      ValueMatch h = b.headers().size() == 1 ? b.headers().getFirst() : null;
      if (h != null && h.glob().isEmpty() && !h.not()) {
        bo.put("header", h.name());
        h.value().ifPresent(x -> bo.put("headerValue", x));
      } else {
        writeMatches(bo, "header", b.headers());
      }
      ValueMatch c = b.cookies().size() == 1 ? b.cookies().getFirst() : null;
      if (c != null && c.glob().isEmpty() && c.value().isEmpty() && !c.not()) {
        bo.put("cookie", c.name());
      } else {
        writeMatches(bo, "cookie", b.cookies());
      }
      b.userAgent().ifPresent(x -> bo.put("userAgent", x));
      if (b.cidrs().size() == 1) {
        bo.put("cidr", b.cidrs().getFirst());
      } else if (!b.cidrs().isEmpty()) {
        b.cidrs().forEach(bo.putArray("cidr")::add);
      }
      b.signed()
          .ifPresent(
              x ->
                  bo.putObject("signed")
                      .put("keyFile", x.keyFile().toString())
                      .put("header", x.header())
                      .put("maxAgeSeconds", x.maxAgeSeconds()));
    }
  }

  private static void writeMatches(ObjectNode o, String name, List<ValueMatch> matches) {
    if (matches.isEmpty()) {
      return;
    }
    var a = o.putArray(name);
    for (ValueMatch m : matches) {
      var mo = a.addObject().put("name", m.name());
      m.value().ifPresent(x -> mo.put("value", x));
      m.glob().ifPresent(x -> mo.put("glob", x));
      if (m.not()) {
        mo.put("not", true);
      }
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

  private static Account readAccount(ConfigNode r, String name, Account fallback, Values v) {
    ConfigNode a = r.object(name);
    boolean required = a.bool("required", fallback.required());
    String header = a.string("header", fallback.header());
    if (!isToken(header)) {
      a.error(
          "header", "\"" + header + "\" is not a header name (letters, digits, - and the like)");
      header = fallback.header();
    }
    Optional<String> cookie = a.optional("cookie");
    if (cookie.isPresent() && !isToken(cookie.get())) {
      a.error("cookie", "\"" + cookie.get() + "\" is not a cookie name");
      cookie = Optional.empty();
    }
    Optional<java.nio.file.Path> secretFile = Optional.empty();
    String file = a.string("hs256SecretFile", null);
    if (file != null) {
      try {
        InvitationKey.read(java.nio.file.Path.of(file), "an identity key");
        secretFile = Optional.of(java.nio.file.Path.of(file));
      } catch (IllegalArgumentException e) {
        a.error("hs256SecretFile", e.getMessage());
      }
    }
    Optional<Oidc> oidc = Optional.empty();
    if (a.has("oidc")) {
      oidc = readOidc(a.object("oidc"));
      if (file != null) {
        a.error(
            "oidc",
            "give either hs256SecretFile (the application signs the identity) or oidc (ID tokens"
                + " of an identity provider), not both");
      }
    } else if (file == null && required) {
      a.error(
          "required",
          "required accounts need hs256SecretFile (the application signs the identity) or oidc"
              + " (ID tokens of an identity provider)");
    }
    int skew = a.integer("clockSkewSeconds", fallback.clockSkewSeconds(), 0, 300);
    a.rejectUnknown();
    return new Account(required, header, cookie, secretFile, oidc, skew);
  }

  private static Optional<Oidc> readOidc(ConfigNode o) {
    String issuer = o.string("issuer", null);
    String audience = o.string("audience", null);
    if (issuer == null || issuer.isBlank()) {
      o.error("issuer", "missing; the identity provider's issuer (the tokens' iss claim)");
    }
    if (audience == null || audience.isBlank()) {
      o.error("audience", "missing; the client id the provider gave the application (aud claim)");
    }
    String file = o.string("jwksFile", null);
    boolean hasUrl = o.has("jwksUrl");
    URI url = hasUrl ? webUrl(o, "jwksUrl", null) : null;
    Optional<java.nio.file.Path> jwksFile = Optional.empty();
    if (file != null && hasUrl) {
      o.error("jwksUrl", "give either jwksFile or jwksUrl, not both");
    } else if (file == null && !hasUrl) {
      o.error(
          "jwksFile",
          "missing; the provider's public keys: jwksFile (a JWKS document) or jwksUrl (its"
              + " jwks_uri)");
    } else if (file != null) {
      String problem = jwksProblem(java.nio.file.Path.of(file));
      if (problem != null) {
        o.error("jwksFile", problem);
      } else {
        jwksFile = Optional.of(java.nio.file.Path.of(file));
      }
    }
    o.rejectUnknown();
    if (issuer == null || audience == null || issuer.isBlank() || audience.isBlank()) {
      return Optional.empty();
    }
    return Optional.of(new Oidc(issuer, audience, jwksFile, Optional.ofNullable(url)));
  }

  /**
   * What is wrong with a JWKS file of an identity provider (unreadable, not a JWKS, no RSA or EC
   * public key in it), or null.
   */
  static String jwksProblem(java.nio.file.Path file) {
    com.nimbusds.jose.jwk.JWKSet set;
    try {
      set = com.nimbusds.jose.jwk.JWKSet.load(file.toFile());
    } catch (java.io.IOException e) {
      return "cannot read \"" + file + "\": " + e.getClass().getSimpleName() + " " + e.getMessage();
    } catch (java.text.ParseException e) {
      return "\"" + file + "\" is not a JWKS document: " + e.getMessage();
    }
    boolean usable =
        set.getKeys().stream()
            .anyMatch(
                k ->
                    k instanceof com.nimbusds.jose.jwk.RSAKey
                        || k instanceof com.nimbusds.jose.jwk.ECKey);
    return usable ? null : "\"" + file + "\" holds no RSA or EC public key";
  }

  /** An HTTP token (RFC 9110): what a header or cookie name may be. */
  private static boolean isToken(String s) {
    if (s == null || s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!(c >= 'a' && c <= 'z'
          || c >= 'A' && c <= 'Z'
          || c >= '0' && c <= '9'
          || "!#$%&'*+-.^_`|~".indexOf(c) >= 0)) {
        return false;
      }
    }
    return true;
  }

  private static void writeAccount(ObjectNode o, String k, Account a) {
    var ao = o.putObject(k).put("required", a.required()).put("header", a.header());
    a.cookie().ifPresent(c -> ao.put("cookie", c));
    a.hs256SecretFile().ifPresent(f -> ao.put("hs256SecretFile", f.toString()));
    a.oidc()
        .ifPresent(
            oi -> {
              var oo =
                  ao.putObject("oidc").put("issuer", oi.issuer()).put("audience", oi.audience());
              oi.jwksFile().ifPresent(f -> oo.put("jwksFile", f.toString()));
              oi.jwksUrl().ifPresent(u -> oo.put("jwksUrl", u.toString()));
            });
    ao.put("clockSkewSeconds", a.clockSkewSeconds());
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
        .put("onRepeatedFailure", p.onRepeatedFailure().configName())
        .put("maxExtraBits", p.maxExtraBits())
        .put("extraBitAfter", p.extraBitAfter());
  }

  private static HumanCheck readHumanCheck(
      ConfigNode r, String name, HumanCheck fallback, Values v) {
    ConfigNode h = r.object(name);
    boolean enabled = h.bool("enabled", fallback.enabled());
    HumanProvider provider =
        h.choice(
            "provider",
            fallback.provider(),
            List.of(HumanProvider.values()),
            HumanProvider::configName);
    String siteKey = h.string("siteKey", fallback.siteKey());
    String secret = h.string("secretFile", fallback.secretFile().toString());
    if (enabled && siteKey.isBlank()) {
      h.error("siteKey", "missing; the site key the provider gave for this site (public)");
    }
    if (enabled && secret.isBlank()) {
      h.error("secretFile", "missing; a file holding the provider's secret key");
    } else if (enabled) {
      String problem = humanSecretProblem(java.nio.file.Path.of(secret));
      if (problem != null) {
        h.error("secretFile", problem);
      }
    }
    URI verify = webUrl(h, "verifyUrl", provider.verifyUrl());
    URI script = webUrl(h, "scriptUrl", provider.scriptUrl());
    var check =
        new HumanCheck(
            enabled,
            provider,
            siteKey,
            java.nio.file.Path.of(secret),
            verify,
            script,
            h.choice(
                "onFailure",
                fallback.onFailure(),
                List.of(HumanFailure.values()),
                HumanFailure::configName),
            h.choice(
                "onUnavailable",
                fallback.onUnavailable(),
                List.of(HumanUnavailable.values()),
                HumanUnavailable::configName),
            h.integer("timeoutMillis", fallback.timeoutMillis(), 100, 30_000));
    h.rejectUnknown();
    return check;
  }

  /** An http(s) URL with a host (a path and query allowed), or {@code fallback} when absent. */
  private static URI webUrl(ConfigNode n, String key, URI fallback) {
    String text = n.string(key, null);
    if (text == null) {
      return fallback;
    }
    try {
      URI u = new URI(text);
      if ((u.getScheme() == null
              || !(u.getScheme().equals("http") || u.getScheme().equals("https")))
          || u.getHost() == null
          || u.getRawUserInfo() != null
          || u.getRawFragment() != null) {
        throw new URISyntaxException(text, "not http(s)");
      }
      return u;
    } catch (URISyntaxException e) {
      n.error(
          key,
          "\""
              + text
              + "\" is not an http:// or https:// URL with a host (and no user"
              + " information or fragment)");
      return fallback;
    }
  }

  /** Why {@code file} cannot be a human-check secret, or null. */
  static String humanSecretProblem(java.nio.file.Path file) {
    try {
      String secret = java.nio.file.Files.readString(file).strip();
      return secret.isEmpty() ? file + " is empty; it must hold the provider's secret key" : null;
    } catch (java.io.IOException | RuntimeException e) {
      return "cannot read " + file + " (" + e.getClass().getSimpleName() + ")";
    }
  }

  private static AddressLimit readAddressLimit(
      ConfigNode r, String name, AddressLimit fallback, Values v) {
    ConfigNode a = r.object(name);
    var limit =
        new AddressLimit(
            a.integer("newIdentitiesPerMinute", fallback.newIdentitiesPerMinute(), 0, 1_000_000),
            a.integer("ipv4PrefixLength", fallback.ipv4PrefixLength(), 8, 32),
            a.integer("ipv6PrefixLength", fallback.ipv6PrefixLength(), 16, 128));
    a.rejectUnknown();
    return limit;
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
                OnRepeatedFailure::configName),
            p.integer("maxExtraBits", fallback.maxExtraBits(), 0, 8),
            p.integer("extraBitAfter", fallback.extraBitAfter(), 1, 100_000));
    p.rejectUnknown();
    return pow;
  }
}
