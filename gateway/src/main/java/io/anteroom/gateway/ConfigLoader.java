package io.anteroom.gateway;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.anteroom.gateway.GatewayConfig.AdminSettings;
import io.anteroom.gateway.GatewayConfig.BypassRule;
import io.anteroom.gateway.GatewayConfig.HostPort;
import io.anteroom.gateway.GatewayConfig.OriginProtection;
import io.anteroom.gateway.GatewayConfig.RoomSettings;
import io.anteroom.gateway.GatewayConfig.Route;
import io.anteroom.gateway.GatewayConfig.TicketKey;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Reads and validates the YAML configuration. Every problem is reported at once, each naming the
 * key (as a path like {@code rooms[0].strategy}), what was found and what is allowed; unknown keys
 * are errors with a "did you mean" suggestion.
 *
 * <pre>{@code
 * GatewayConfig config = ConfigLoader.load(Path.of("anteroom.yaml"));
 * }</pre>
 */
public final class ConfigLoader {

  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Pattern ROOM_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");
  private static final Pattern COOKIE_SUFFIX = Pattern.compile("[A-Za-z0-9_-]{0,32}");

  static final int DEFAULT_TOTAL_ACTIVE_USERS = 1000;
  static final int DEFAULT_SESSION_MINUTES = 5;
  static final int DEFAULT_QUEUE_REFRESH_SECONDS = 20;
  static final int DEFAULT_QUEUE_TIMEOUT_MINUTES = 5;

  private ConfigLoader() {}

  /** Reads a YAML file; throws {@link IllegalArgumentException} listing every problem. */
  public static GatewayConfig load(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read config file " + file + ": " + e, e);
    }
    return parse(text, file.toString());
  }

  /** Parses YAML text; {@code source} names it in error messages. */
  public static GatewayConfig parse(String yaml, String source) {
    JsonNode root;
    try {
      root = YAML.readTree(yaml);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(source + ": not valid YAML: " + e.getOriginalMessage()
          + locationOf(e), e);
    }
    if (root == null || root.isMissingNode() || root.isNull()) {
      root = JsonNodeFactory.instance.objectNode();
    }
    var errors = new ArrayList<String>();
    var config = readGateway(new Obj(root, "", errors));
    if (!errors.isEmpty()) {
      throw new IllegalArgumentException(
          "invalid configuration in " + source + ":\n  - " + String.join("\n  - ", errors));
    }
    return config;
  }

  /** The configuration of {@code anteroom run --origin URL}: one room protecting {@code /}. */
  public static GatewayConfig forOrigin(URI origin) {
    var root = JsonNodeFactory.instance.objectNode();
    root.put("origin", origin.toString());
    root.putArray("rooms").addObject().put("id", "default");
    return parse(root.toString(), "--origin " + origin);
  }

  /**
   * Reads one room from a JSON or YAML document (the admin API's body), with the same rules and
   * defaults as in the config file.
   */
  static RoomSettings parseRoom(String text) {
    JsonNode node;
    try {
      node = YAML.readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("room: not valid JSON/YAML: " + e.getOriginalMessage(), e);
    }
    var errors = new ArrayList<String>();
    RoomSettings room = null;
    if (node == null || !node.isObject()) {
      errors.add("room: expected an object with at least an \"id\"");
    } else {
      room = readRoom(new Obj(node, "room", errors));
    }
    if (!errors.isEmpty()) {
      throw new IllegalArgumentException("invalid room:\n  - " + String.join("\n  - ", errors));
    }
    return room;
  }

  /** The room as a JSON tree with the YAML key names: the admin API's view, re-readable. */
  static ObjectNode toJson(RoomSettings r) {
    var o = JsonNodeFactory.instance.objectNode();
    o.put("id", r.id()).put("host", r.host()).put("path", r.path());
    var routes = o.putArray("additionalRoutes");
    r.additionalRoutes().forEach(rt -> routes.addObject().put("host", rt.host()).put("path", rt.path()));
    r.origin().ifPresent(u -> o.put("origin", u.toString()));
    o.put("totalActiveUsers", r.totalActiveUsers())
        .put("newUsersPerMinute", r.newUsersPerMinute())
        .put("sessionDurationMinutes", r.sessionDurationMinutes())
        .put("queueRefreshSeconds", r.queueRefreshSeconds())
        .put("queueTimeoutMinutes", r.queueTimeoutMinutes())
        .put("strategy", r.strategy())
        .put("curveFactor", r.curveFactor())
        .put("queueingMethod", r.queueingMethod())
        .put("queueAll", r.queueAll())
        .put("suspended", r.suspended())
        .put("disableSessionRenewal", r.disableSessionRenewal())
        .put("cookieSuffix", r.cookieSuffix())
        .put("cookieSameSite", r.cookieSameSite())
        .put("cookieSecure", r.cookieSecure());
    r.template().ifPresent(t -> o.put("template", t.toString()));
    o.put("jsonResponse", r.jsonResponse());
    var bypass = o.putArray("bypass");
    for (BypassRule b : r.bypass()) {
      var bo = bypass.addObject();
      b.path().ifPresent(v -> bo.put("path", v));
      b.header().ifPresent(v -> bo.put("header", v));
      b.headerValue().ifPresent(v -> bo.put("headerValue", v));
      b.cookie().ifPresent(v -> bo.put("cookie", v));
      b.userAgent().ifPresent(v -> bo.put("userAgent", v));
      b.cidr().ifPresent(v -> bo.put("cidr", v));
    }
    o.put("failMode", r.failMode());
    var p = r.originProtection();
    o.putObject("originProtection").put("enabled", p.enabled())
        .put("maxLatencyMillis", p.maxLatencyMillis()).put("maxErrorRatio", p.maxErrorRatio())
        .put("minNewUsersPerMinute", p.minNewUsersPerMinute());
    o.put("queueStatusMaxQps", r.queueStatusMaxQps())
        .put("queueStatusMaxLatencyMillis", r.queueStatusMaxLatencyMillis())
        .put("maxQueueRefreshSeconds", r.maxQueueRefreshSeconds());
    return o;
  }

  private static GatewayConfig readGateway(Obj o) {
    HostPort listen = o.hostPort("listen", "127.0.0.1:8080");
    URI origin = o.url("origin").orElse(URI.create("http://127.0.0.1:8081"));
    Path dataDir = Path.of(o.string("dataDir", "./data"));
    Obj admin = o.object("admin");
    var adminSettings = new AdminSettings(admin.hostPort("listen", "127.0.0.1:9090"),
        admin.string("token", ""));
    admin.rejectUnknown();
    var keys = new ArrayList<TicketKey>();
    var keyIds = new HashSet<Integer>();
    for (Obj k : o.objects("ticketKeys")) {
      int id = k.integer("id", -1, 0, 255);
      if (id >= 0 && !keyIds.add(id)) {
        k.error("id", "duplicate key id " + id + "; every ticket key needs its own id (0..255)");
      }
      byte[] secret = k.base64Key("secret");
      if (id >= 0 && secret != null) {
        keys.add(new TicketKey(id, secret));
      }
      k.rejectUnknown();
    }
    int originTimeout = o.integer("originTimeoutSeconds", 30, 1, 3600);
    int drain = o.integer("drainSeconds", 10, 0, 600);
    var rooms = new ArrayList<RoomSettings>();
    var ids = new HashSet<String>();
    var routes = new HashSet<Route>();
    for (Obj r : o.objects("rooms")) {
      RoomSettings room = readRoom(r);
      if (room == null) {
        continue;
      }
      if (!ids.add(room.id())) {
        r.error("id", "duplicate room id \"" + room.id() + "\"; room ids must be unique");
      }
      for (Route route : room.routes()) {
        if (!routes.add(route)) {
          r.error("path", "route " + route.host() + route.path()
              + " is already used by another room; each host + path prefix leads to one room");
        }
      }
      rooms.add(room);
    }
    o.rejectUnknown();
    return new GatewayConfig(listen, origin, dataDir, adminSettings, keys, originTimeout, drain,
        rooms);
  }

  private static RoomSettings readRoom(Obj r) {
    int errorsBefore = r.errors.size();
    String id = r.string("id", null);
    if (id == null) {
      r.error("id", "missing; every room needs an id (letters, digits, '-' or '_')");
      id = "?";
    } else if (!ROOM_ID.matcher(id).matches()) {
      r.error("id", "\"" + id + "\" is not allowed; use 1 to 64 letters, digits, '-' or '_'");
    }
    String host = r.string("host", "*");
    String path = r.path("path", "/");
    var extra = new ArrayList<Route>();
    for (Obj a : r.objects("additionalRoutes")) {
      extra.add(new Route(a.string("host", host), a.path("path", "/")));
      a.rejectUnknown();
    }
    Optional<URI> origin = r.url("origin");
    int total = r.integer("totalActiveUsers", DEFAULT_TOTAL_ACTIVE_USERS, 1, 100_000_000);
    int perMinute = r.integer("newUsersPerMinute", total, 1, 100_000_000);
    int session = r.integer("sessionDurationMinutes", DEFAULT_SESSION_MINUTES, 1, 30 * 24 * 60);
    int refresh = r.integer("queueRefreshSeconds", DEFAULT_QUEUE_REFRESH_SECONDS, 1, 300);
    int timeout = r.integer("queueTimeoutMinutes", DEFAULT_QUEUE_TIMEOUT_MINUTES, 1, 24 * 60);
    String strategy = r.choice("strategy", "counters", "counters", "evenSplit",
        "utilizationScaled");
    double curve = r.decimal("curveFactor", 1.0, 0.01, 10.0);
    String method = r.choice("queueingMethod", "fifo", "fifo", "passthrough", "reject");
    boolean queueAll = r.bool("queueAll", false);
    boolean suspended = r.bool("suspended", false);
    boolean noRenewal = r.bool("disableSessionRenewal", false);
    String suffix = r.string("cookieSuffix", "");
    if (!COOKIE_SUFFIX.matcher(suffix).matches()) {
      r.error("cookieSuffix", "\"" + suffix + "\" is not allowed; use up to 32 letters, digits,"
          + " '-' or '_'");
    }
    String sameSite = r.choice("cookieSameSite", "Lax", "Lax", "Strict", "None");
    boolean secure = r.bool("cookieSecure", false);
    if (sameSite.equals("None") && !secure) {
      r.error("cookieSameSite", "None requires cookieSecure: true (browsers drop SameSite=None"
          + " cookies without Secure)");
    }
    Optional<Path> template = Optional.ofNullable(r.string("template", null)).map(Path::of);
    template.filter(t -> !Files.isReadable(t)).ifPresent(t ->
        r.error("template", "file " + t.toAbsolutePath() + " does not exist or is not readable"));
    boolean json = r.bool("jsonResponse", true);
    var bypass = new ArrayList<BypassRule>();
    for (Obj b : r.objects("bypass")) {
      var rule = new BypassRule(b.optional("path"), b.optional("header"),
          b.optional("headerValue"), b.optional("cookie"), b.optional("userAgent"),
          b.optional("cidr"));
      rule.cidr().ifPresent(c -> {
        try {
          Cidr.parse(c);
        } catch (IllegalArgumentException e) {
          b.error("cidr", e.getMessage());
        }
      });
      if (rule.headerValue().isPresent() && rule.header().isEmpty()) {
        b.error("headerValue", "needs \"header\" (the header name to compare)");
      }
      if (rule.equals(new BypassRule(Optional.empty(), Optional.empty(), Optional.empty(),
          Optional.empty(), Optional.empty(), Optional.empty()))) {
        b.error("", "an empty bypass rule would bypass everything; set at least one of path,"
            + " header, cookie, userAgent, cidr");
      }
      b.rejectUnknown();
      bypass.add(rule);
    }
    String failMode = r.choice("failMode", "degrade", "degrade", "open", "closed");
    Obj p = r.object("originProtection");
    var protection = new OriginProtection(p.bool("enabled", false),
        p.integer("maxLatencyMillis", 1000, 1, 600_000),
        p.decimal("maxErrorRatio", 0.05, 0.0, 1.0),
        p.integer("minNewUsersPerMinute", 1, 1, 100_000_000));
    p.rejectUnknown();
    int statusQps = r.integer("queueStatusMaxQps", 2000, 1, 10_000_000);
    int statusLatency = r.integer("queueStatusMaxLatencyMillis", 250, 1, 600_000);
    int maxRefresh = r.integer("maxQueueRefreshSeconds", Math.max(120, refresh), refresh, 3600);
    r.rejectUnknown();
    var room = new RoomSettings(id, host, path, extra, origin, total, perMinute, session, refresh,
        timeout, strategy, curve, method, queueAll, suspended, noRenewal, suffix, sameSite, secure,
        template, json, bypass, failMode, protection, statusQps, statusLatency, maxRefresh);
    if (r.errors.size() == errorsBefore) {
      try {
        CoordinatedRoomGate.roomConfig(room); // the room core's own rules, e.g. queueTimeout >= R
      } catch (IllegalArgumentException e) {
        r.error("", e.getMessage());
      }
    }
    return room;
  }

  private static String locationOf(JsonProcessingException e) {
    var loc = e.getLocation();
    return loc == null ? "" : " (line " + loc.getLineNr() + ", column " + loc.getColumnNr() + ")";
  }

  /** Edit distance, for "did you mean". */
  static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = Character.toLowerCase(a.charAt(i - 1)) == Character.toLowerCase(b.charAt(j - 1))
            ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }

  /** A YAML mapping being read: remembers which keys were read, to report the unknown ones. */
  private static final class Obj {
    private final JsonNode node;
    private final String where;
    private final List<String> errors;
    private final Set<String> known = new java.util.LinkedHashSet<>();

    Obj(JsonNode node, String where, List<String> errors) {
      this.node = node;
      this.where = where;
      this.errors = errors;
    }

    String key(String name) {
      if (name.isEmpty()) {
        return where;
      }
      return where.isEmpty() ? name : where + "." + name;
    }

    void error(String name, String message) {
      errors.add(key(name) + ": " + message);
    }

    private JsonNode get(String name) {
      known.add(name);
      JsonNode v = node.get(name);
      return v == null || v.isNull() ? null : v;
    }

    private <T> T scalar(String name, T fallback, String expected, Function<JsonNode, T> read) {
      JsonNode v = get(name);
      if (v == null) {
        return fallback;
      }
      if (!v.isValueNode()) {
        error(name, "expected " + expected + ", found " + v.getNodeType().toString().toLowerCase());
        return fallback;
      }
      T value = read.apply(v);
      if (value == null) {
        error(name, "expected " + expected + ", found \"" + v.asText() + "\"");
        return fallback;
      }
      return value;
    }

    String string(String name, String fallback) {
      return scalar(name, fallback, "a string", JsonNode::asText);
    }

    Optional<String> optional(String name) {
      return Optional.ofNullable(string(name, null)).filter(s -> !s.isEmpty());
    }

    int integer(String name, int fallback, int min, int max) {
      Integer v = scalar(name, fallback, "a whole number from " + min + " to " + max,
          n -> n.canConvertToInt() && (n.isIntegralNumber() || n.asText().matches("-?\\d+"))
              ? Integer.valueOf(n.asInt()) : null);
      if (v < min || v > max) {
        error(name, v + " is out of range; allowed: " + min + " to " + max);
        return fallback;
      }
      return v;
    }

    double decimal(String name, double fallback, double min, double max) {
      Double v = scalar(name, fallback, "a number from " + min + " to " + max, n -> {
        if (n.isNumber()) {
          return n.asDouble();
        }
        try {
          return Double.valueOf(n.asText());
        } catch (NumberFormatException e) {
          return null;
        }
      });
      if (!(v >= min && v <= max)) {
        error(name, v + " is out of range; allowed: " + min + " to " + max);
        return fallback;
      }
      return v;
    }

    boolean bool(String name, boolean fallback) {
      return scalar(name, fallback, "true or false", n -> n.isBoolean() ? n.asBoolean()
          : switch (n.asText()) {
            case "true" -> Boolean.TRUE;
            case "false" -> Boolean.FALSE;
            default -> null;
          });
    }

    String choice(String name, String fallback, String... allowed) {
      String v = string(name, fallback);
      for (String a : allowed) {
        if (a.equals(v)) {
          return v;
        }
      }
      error(name, "\"" + v + "\" is not allowed; allowed: " + String.join(", ", allowed)
          + suggestion(v, List.of(allowed)));
      return fallback;
    }

    String path(String name, String fallback) {
      String v = string(name, fallback);
      if (!v.startsWith("/")) {
        error(name, "\"" + v + "\" must start with '/' (a path prefix such as / or /shop/)");
        return fallback;
      }
      return v;
    }

    HostPort hostPort(String name, String fallback) {
      String v = string(name, fallback);
      int colon = v.lastIndexOf(':');
      try {
        int port = Integer.parseInt(v.substring(colon + 1));
        if (colon <= 0 || port < 0 || port > 65535) {
          throw new NumberFormatException();
        }
        return new HostPort(v.substring(0, colon), port);
      } catch (NumberFormatException | IndexOutOfBoundsException e) {
        error(name, "\"" + v + "\" is not host:port (e.g. 127.0.0.1:8080; port 0 to 65535)");
        return hostPort(fallback);
      }
    }

    private static HostPort hostPort(String v) {
      int colon = v.lastIndexOf(':');
      return new HostPort(v.substring(0, colon), Integer.parseInt(v.substring(colon + 1)));
    }

    Optional<URI> url(String name) {
      String v = string(name, null);
      if (v == null) {
        return Optional.empty();
      }
      try {
        URI u = new URI(v);
        if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme()))
            || u.getHost() == null) {
          throw new java.net.URISyntaxException(v, "no http(s) scheme or host");
        }
        return Optional.of(u);
      } catch (java.net.URISyntaxException e) {
        error(name, "\"" + v + "\" is not an http:// or https:// URL with a host");
        return Optional.empty();
      }
    }

    byte[] base64Key(String name) {
      String v = string(name, null);
      if (v == null) {
        error(name, "missing; a base64 AES key of 16, 24 or 32 bytes");
        return null;
      }
      try {
        byte[] k = Base64.getDecoder().decode(v);
        if (k.length == 16 || k.length == 24 || k.length == 32) {
          return k;
        }
        error(name, "decodes to " + k.length + " bytes; allowed: 16, 24 or 32 bytes (base64)");
      } catch (IllegalArgumentException e) {
        error(name, "not base64: " + e.getMessage());
      }
      return null;
    }

    Obj object(String name) {
      JsonNode v = get(name);
      if (v != null && !v.isObject()) {
        error(name, "expected a mapping (key: value lines), found "
            + v.getNodeType().toString().toLowerCase());
        v = null;
      }
      return new Obj(v == null ? JsonNodeFactory.instance.objectNode() : v, key(name), errors);
    }

    List<Obj> objects(String name) {
      JsonNode v = get(name);
      var out = new ArrayList<Obj>();
      if (v == null) {
        return out;
      }
      if (!v.isArray()) {
        error(name, "expected a list (lines starting with '- '), found "
            + v.getNodeType().toString().toLowerCase());
        return out;
      }
      for (int i = 0; i < v.size(); i++) {
        String at = key(name) + "[" + i + "]";
        if (!v.get(i).isObject()) {
          errors.add(at + ": expected a mapping (key: value lines)");
        } else {
          out.add(new Obj(v.get(i), at, errors));
        }
      }
      return out;
    }

    void rejectUnknown() {
      for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
        String k = it.next();
        if (!known.contains(k)) {
          error(k, "unknown key" + suggestion(k, known) + "; allowed here: "
              + String.join(", ", known));
        }
      }
    }

    private static String suggestion(String wrong, Iterable<String> candidates) {
      String best = null;
      int bestDistance = Integer.MAX_VALUE;
      for (String c : candidates) {
        int d = distance(wrong, c);
        if (d < bestDistance) {
          best = c;
          bestDistance = d;
        }
      }
      return best != null && bestDistance <= Math.max(2, wrong.length() / 3)
          ? " (did you mean \"" + best + "\"?)" : "";
    }
  }
}
