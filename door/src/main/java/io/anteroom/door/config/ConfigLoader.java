package io.anteroom.door.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.anteroom.door.config.GatewayConfig.AdminSettings;
import io.anteroom.door.config.GatewayConfig.ConnectionLimits;
import io.anteroom.door.config.GatewayConfig.HostPort;
import io.anteroom.door.config.GatewayConfig.PublicListenerSettings;
import io.anteroom.door.config.GatewayConfig.RoomSettings;
import io.anteroom.door.config.GatewayConfig.Route;
import io.anteroom.door.config.GatewayConfig.TicketKey;
import io.anteroom.door.config.GatewayConfig.TlsFiles;
import io.anteroom.door.match.Cidr;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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

  private ConfigLoader() {}

  /** Reads a YAML file; throws {@link IllegalArgumentException} listing every problem. */
  public static GatewayConfig load(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw new IllegalArgumentException(unreadable(file, e), e);
    }
    return parse(text, file.toString());
  }

  /**
   * Why {@code file} cannot be read, in an operator's words: the exception's class is no help to
   * them ({@code java.nio.file.NoSuchFileException} for a missing file).
   */
  static String unreadable(Path file, IOException e) {
    if (e instanceof java.nio.file.NoSuchFileException) {
      return "config file not found: " + file;
    }
    if (Files.isDirectory(file)) {
      return "config file " + file + " is a directory; give the YAML file in it";
    }
    if (e instanceof java.nio.file.AccessDeniedException) {
      return "config file " + file + " is not readable by this user (permission denied)";
    }
    if (e instanceof java.nio.charset.CharacterCodingException) {
      return "config file " + file + " is not UTF-8 text";
    }
    return "cannot read config file " + file + ": " + (e.getMessage() != null ? e.getMessage() : e);
  }

  /** Parses YAML text; {@code source} names it in error messages. */
  public static GatewayConfig parse(String yaml, String source) {
    return parse(yaml, source, Map.of());
  }

  /**
   * Parses YAML text whose rooms have templates kept with their documents at the coordinator:
   * {@code kept} by room id, each by template name. A room's {@code template} (and its events') may
   * then name a kept template instead of a file of {@code templatesDir}, and every problem of the
   * kept templates is listed with the others ({@link RoomTemplates#problems}).
   */
  public static GatewayConfig parse(
      String yaml, String source, Map<String, ? extends Map<String, String>> kept) {
    JsonNode root;
    try {
      root = YAML.readTree(yaml);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          source + ": not valid YAML: " + e.getOriginalMessage() + locationOf(e), e);
    }
    if (root == null || root.isMissingNode() || root.isNull()) {
      root = JsonNodeFactory.instance.objectNode();
    }
    var errors = new ArrayList<String>();
    var config = readGateway(new ConfigNode(root, "", errors), kept);
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
  public static RoomSettings parseRoom(String text) {
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
      room = RoomKeys.read(new ConfigNode(node, "room", errors));
    }
    if (!errors.isEmpty()) {
      throw new IllegalArgumentException("invalid room:\n  - " + String.join("\n  - ", errors));
    }
    return room;
  }

  /**
   * Whether a room document (the admin API's body, JSON or YAML) sets {@code key} itself rather
   * than leaving it to its default; false for a document that is not an object.
   */
  public static boolean setsKey(String text, String key) {
    try {
      JsonNode node = YAML.readTree(text);
      return node != null && node.isObject() && node.hasNonNull(key);
    } catch (JsonProcessingException e) {
      return false;
    }
  }

  /** The names of every room key, in the order of the room's JSON (the admin API's schema). */
  public static java.util.List<String> roomKeyNames() {
    return RoomKeys.ALL.stream().map(RoomKeys.Key::name).toList();
  }

  /** The room as a JSON tree with the YAML key names: the admin API's view, re-readable. */
  public static ObjectNode toJson(RoomSettings r) {
    return RoomKeys.toJson(r);
  }

  /** A token's name: what the audit log and the logs show. */
  private static final java.util.regex.Pattern TOKEN_NAME =
      java.util.regex.Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

  /**
   * {@code admin.token} (named {@code admin}, scope admin) and the entries of {@code admin.tokens}:
   * {@code { name, scope, token | tokenFile }}, one error per problem (a missing or duplicate name,
   * an unknown scope, a missing or unreadable file, a short or repeated secret).
   */
  private static List<GatewayConfig.NamedToken> adminTokens(ConfigNode admin, String token) {
    var tokens = new ArrayList<GatewayConfig.NamedToken>();
    var names = new HashSet<String>();
    var secrets = new HashSet<String>();
    if (!token.isEmpty()) {
      names.add(AdminSettings.DEFAULT_TOKEN_NAME);
      secrets.add(token);
      tokens.add(
          new GatewayConfig.NamedToken(AdminSettings.DEFAULT_TOKEN_NAME, AdminScope.ADMIN, token));
    }
    for (ConfigNode t : admin.objects("tokens")) {
      String name = t.string("name", "");
      boolean ok = true;
      if (name.isEmpty()) {
        t.error("name", "missing; every token needs a name (the audit log records it)");
        ok = false;
      } else if (!TOKEN_NAME.matcher(name).matches()) {
        t.error(
            "name",
            "\"" + name + "\" is not a token name: letters, digits, '.', '_' and '-', at most 64");
        ok = false;
      } else if (!names.add(name)) {
        t.error(
            "name",
            "duplicate token name \""
                + name
                + "\""
                + (name.equals(AdminSettings.DEFAULT_TOKEN_NAME) && !token.isEmpty()
                    ? " (admin.token is the token named \"admin\")"
                    : "")
                + "; every token needs its own name");
        ok = false;
      }
      String scopeKey = t.string("scope", "");
      AdminScope scope = AdminScope.parse(scopeKey).orElse(null);
      if (scope == null) {
        t.error(
            "scope",
            scopeKey.isEmpty()
                ? "missing; one of read, operate, admin"
                : "unknown scope \"" + scopeKey + "\"; one of read, operate, admin");
        ok = false;
      }
      String secret = tokenSecret(t);
      t.rejectUnknown();
      if (secret == null) {
        continue;
      }
      if (secret.length() < AdminSettings.MIN_TOKEN_LENGTH) {
        t.error(
            t.has("tokenFile") ? "tokenFile" : "token",
            "the token is "
                + secret.length()
                + " characters; at least "
                + AdminSettings.MIN_TOKEN_LENGTH
                + " are required (e.g. openssl rand -hex 16)");
      } else if (!secrets.add(secret)) {
        t.error(
            t.has("tokenFile") ? "tokenFile" : "token",
            "the same secret as another token; every token needs its own (the audit log names"
                + " the token)");
      } else if (ok) {
        tokens.add(new GatewayConfig.NamedToken(name, scope, secret));
      }
    }
    return tokens;
  }

  /**
   * {@code admin.webhooks}: {@code { urls: [URL, ...], secretFile: FILE }}, one error per problem
   * (not a list, a URL that is not http(s) with a host or carries credentials, a repeated URL, a
   * missing, unreadable or short secret file, a secret file without URLs).
   */
  private static GatewayConfig.Webhooks webhooks(ConfigNode admin) {
    if (!admin.has("webhooks")) {
      return GatewayConfig.Webhooks.NONE;
    }
    ConfigNode w = admin.object("webhooks");
    var urls = new ArrayList<java.net.URI>();
    List<String> given = w.strings("urls");
    for (int i = 0; i < given.size(); i++) {
      String v = given.get(i).strip();
      String at = "urls[" + i + "]";
      try {
        java.net.URI u = new java.net.URI(v);
        if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme()))
            || u.getHost() == null) {
          w.error(at, "\"" + v + "\" is not an http:// or https:// URL with a host");
        } else if (u.getRawUserInfo() != null) {
          w.error(at, "\"" + v + "\" carries user information; it would be logged: leave it out");
        } else if (urls.contains(u)) {
          w.error(at, "\"" + v + "\" is listed twice; each URL gets every change once");
        } else {
          urls.add(u);
        }
      } catch (java.net.URISyntaxException e) {
        w.error(at, "\"" + v + "\" is not an http:// or https:// URL with a host");
      }
    }
    String secret = "";
    Optional<String> file = w.optional("secretFile");
    if (file.isEmpty()) {
      if (!given.isEmpty()) {
        w.error(
            "secretFile",
            "missing; webhooks are signed with the content of this file (create one with:"
                + " openssl rand -hex 32 > FILE)");
      }
    } else {
      Path path = Path.of(file.get());
      try {
        secret = Files.readString(path, StandardCharsets.UTF_8).strip();
        if (secret.length() < GatewayConfig.Webhooks.MIN_SECRET_LENGTH) {
          w.error(
              "secretFile",
              path
                  + " holds "
                  + secret.length()
                  + " characters; at least "
                  + GatewayConfig.Webhooks.MIN_SECRET_LENGTH
                  + " are required (openssl rand -hex 32 > FILE)");
        }
      } catch (IOException | RuntimeException e) {
        w.error(
            "secretFile",
            "cannot read "
                + path
                + " ("
                + (e instanceof java.nio.file.NoSuchFileException ? "no such file" : e.getMessage())
                + ")");
      }
      if (given.isEmpty()) {
        w.error("urls", "missing; a secretFile without URLs sends nothing");
      }
    }
    w.rejectUnknown();
    return urls.isEmpty() ? GatewayConfig.Webhooks.NONE : new GatewayConfig.Webhooks(urls, secret);
  }

  /** A token entry's secret: {@code token}, or the stripped content of {@code tokenFile}. */
  private static String tokenSecret(ConfigNode t) {
    Optional<String> inline = t.optional("token");
    Optional<String> file = t.optional("tokenFile");
    if (inline.isPresent() == file.isPresent()) {
      t.error(
          "token",
          inline.isPresent()
              ? "give token or tokenFile, not both"
              : "missing; give token (the secret) or tokenFile (a file holding it)");
      return null;
    }
    if (inline.isPresent()) {
      return inline.get().strip();
    }
    Path path = Path.of(file.get());
    try {
      return Files.readString(path, StandardCharsets.UTF_8).strip();
    } catch (IOException | RuntimeException e) {
      t.error(
          "tokenFile",
          "cannot read "
              + path
              + " ("
              + (e instanceof java.nio.file.NoSuchFileException ? "no such file" : e.getMessage())
              + ")");
      return null;
    }
  }

  private static GatewayConfig readGateway(
      ConfigNode o, Map<String, ? extends Map<String, String>> kept) {
    HostPort listen = o.hostPort("listen", "127.0.0.1:8080");
    URI origin = o.url("origin").orElse(URI.create("http://127.0.0.1:8081"));
    Path dataDir = Path.of(o.string("dataDir", "./data"));
    ConfigNode admin = o.object("admin");
    String token = admin.string("token", "");
    if (!token.isEmpty() && token.strip().length() < AdminSettings.MIN_TOKEN_LENGTH) {
      admin.error(
          "token",
          "is "
              + token.strip().length()
              + " characters; at least "
              + AdminSettings.MIN_TOKEN_LENGTH
              + " are required (e.g. openssl rand -hex 16), or leave it out to"
              + " have one generated into dataDir/"
              + AdminSettings.TOKEN_FILE);
    }
    var adminSettings =
        new AdminSettings(
            admin.hostPort("listen", "127.0.0.1:9090"),
            token.strip(),
            admin.bool("protectMetrics", false),
            limits(admin, ConnectionLimits.ADMIN, 100_000),
            adminTokens(admin, token.strip()),
            webhooks(admin));
    admin.rejectUnknown();
    var keys = new ArrayList<TicketKey>();
    var keyIds = new HashSet<Integer>();
    for (ConfigNode k : o.objects("ticketKeys")) {
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
    Optional<Path> templatesDir = Optional.ofNullable(o.string("templatesDir", null)).map(Path::of);
    templatesDir.ifPresent(
        t -> {
          if (!Files.isDirectory(t)) {
            o.error("templatesDir", "\"" + t + "\" is not a directory");
          } else if (dataDir
              .toAbsolutePath()
              .normalize()
              .startsWith(t.toAbsolutePath().normalize())) {
            o.error(
                "templatesDir",
                "\""
                    + t
                    + "\" contains dataDir (ticket keys, admin token): use"
                    + " a directory of templates only");
          }
        });
    var templates = new TemplateDirectory(templatesDir);
    var trustedProxies = new ArrayList<String>();
    var proxies = o.strings("trustedProxies");
    for (int i = 0; i < proxies.size(); i++) {
      try {
        Cidr.parse(proxies.get(i));
        trustedProxies.add(proxies.get(i));
      } catch (IllegalArgumentException e) {
        o.error("trustedProxies", "[" + i + "] " + e.getMessage());
      }
    }
    var publicListener =
        new PublicListenerSettings(
            tls(o),
            o.bool("proxyProtocol", false),
            limits(o, ConnectionLimits.PUBLIC, 1_000_000),
            o.bool("accessLog", false),
            o.choice(
                "transport",
                IoTransport.AUTO,
                List.of(IoTransport.values()),
                IoTransport::configName),
            new GatewayConfig.PushSettings(
                o.integer(
                    "maxHeldPolls",
                    GatewayConfig.PushSettings.DEFAULT.maxHeldPolls(),
                    0,
                    1_000_000),
                o.integer(
                    "pollHoldSeconds",
                    GatewayConfig.PushSettings.DEFAULT.pollHoldSeconds(),
                    5,
                    120)));
    if (publicListener.proxyProtocol() && proxies.isEmpty()) {
      o.error(
          "proxyProtocol",
          "true needs trustedProxies: list the addresses (CIDR blocks) of the load balancers"
              + " that send the PROXY header; connections from any other peer are closed");
    }
    int originTimeout = o.integer("originTimeoutSeconds", 30, 1, 3600);
    int drain = o.integer("drainSeconds", 10, 0, 600);
    var rooms = new ArrayList<RoomSettings>();
    var ids = new HashSet<String>();
    var routes = new HashSet<Route>();
    for (ConfigNode r : o.objects("rooms")) {
      RoomSettings room = RoomKeys.read(r);
      if (room == null) {
        continue;
      }
      var roomTemplates = new RoomTemplates(kept.get(room.id()), templates);
      roomTemplates.problems().forEach(r::error);
      if (room.queuePage().template().isPresent()) {
        try {
          roomTemplates.resolve(room.queuePage().template().get());
        } catch (IllegalArgumentException e) {
          r.error("template", e.getMessage());
        }
      }
      for (int i = 0; i < room.events().size(); i++) {
        var event = room.events().get(i);
        if (event.template().isPresent()) {
          try {
            roomTemplates.resolve(event.template().get());
          } catch (IllegalArgumentException e) {
            r.error("events[" + i + "].template", e.getMessage());
          }
        }
      }
      if (!ids.add(room.id())) {
        r.error("id", "duplicate room id \"" + room.id() + "\"; room ids must be unique");
      }
      for (Route route : room.routes()) {
        if (!routes.add(route)) {
          r.error(
              "path",
              "route "
                  + route.host()
                  + route.path()
                  + " is already used by another room; each host + path prefix leads to one room");
        }
      }
      rooms.add(room);
    }
    o.rejectUnknown();
    return new GatewayConfig(
        listen,
        origin,
        dataDir,
        adminSettings,
        keys,
        originTimeout,
        drain,
        rooms,
        templatesDir,
        trustedProxies,
        publicListener);
  }

  /**
   * A listener's connection limits, each key optional ({@code maxConnections} up to {@code max}).
   */
  private static ConnectionLimits limits(ConfigNode o, ConnectionLimits defaults, int max) {
    return new ConnectionLimits(
        o.integer("maxConnections", defaults.maxConnections(), 1, max),
        o.integer("requestHeadTimeoutMillis", defaults.requestHeadTimeoutMillis(), 100, 600_000),
        o.integer("idleTimeoutSeconds", defaults.idleTimeoutSeconds(), 1, 86_400));
  }

  /** {@code tls: { certFile, keyFile }}: both PEM files must exist and be readable. */
  private static Optional<TlsFiles> tls(ConfigNode o) {
    boolean given = o.has("tls");
    ConfigNode t = o.object("tls");
    if (!given) {
      return Optional.empty();
    }
    Path cert = pem(t, "certFile", "CERTIFICATE", "the certificate (chain)");
    Path key = pem(t, "keyFile", "PRIVATE KEY", "its private key");
    t.rejectUnknown();
    return cert != null && key != null ? Optional.of(new TlsFiles(cert, key)) : Optional.empty();
  }

  /** A readable PEM file holding a block whose label ends with {@code label}, or null (error). */
  private static Path pem(ConfigNode t, String name, String label, String what) {
    String v = t.string(name, null);
    if (v == null || v.isBlank()) {
      t.error(name, "missing; the PEM file of " + what + " (both certFile and keyFile are needed)");
      return null;
    }
    Path file = Path.of(v);
    if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
      t.error(name, "\"" + v + "\" does not exist or is not a readable file");
      return null;
    }
    try {
      String text = Files.readString(file, java.nio.charset.StandardCharsets.ISO_8859_1);
      if (!text.contains("-----BEGIN ") || !text.contains(label + "-----")) {
        t.error(name, "\"" + v + "\" is not a PEM file of " + what + " (no " + label + " block)");
        return null;
      }
    } catch (IOException e) {
      t.error(name, "cannot read \"" + v + "\": " + e.getMessage());
      return null;
    }
    return file;
  }

  private static String locationOf(JsonProcessingException e) {
    var loc = e.getLocation();
    return loc == null ? "" : " (line " + loc.getLineNr() + ", column " + loc.getColumnNr() + ")";
  }
}
