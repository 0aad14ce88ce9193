package io.anteroom.objects.ratis;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The cluster file of a replicated coordinator: the same YAML file on every coordinator, naming
 * each peer's id, its Raft address and the base URI of its object server.
 *
 * <pre>
 * name: anteroom            # optional (default "anteroom"); part of every Raft group id
 * shards: 1                 # optional (default 1); fixed for the life of the data
 * peers:
 *   - id: c1
 *     raft: 10.0.0.1:7071   # Raft RPC between peers (gRPC, plain): a private network only
 *     http: http://10.0.0.1:7070   # the object server, as gateways and the other peers name it
 *   - id: c2
 *     raft: 10.0.0.2:7071
 *     http: http://10.0.0.2:7070
 *   - id: c3
 *     raft: 10.0.0.3:7071
 *     http: http://10.0.0.3:7070
 * </pre>
 *
 * @param config the peers' Raft addresses and the shard count
 * @param http each peer's object server base URI ({@code http(s)://host:port}), by peer id, in file
 *     order
 */
public record ClusterFile(ClusterConfig config, Map<String, URI> http) {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Set<String> TOP_KEYS = Set.of("name", "shards", "peers");
  private static final Set<String> PEER_KEYS = Set.of("id", "raft", "http");

  /** The default cluster name. */
  public static final String DEFAULT_NAME = "anteroom";

  public ClusterFile {
    http = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(http));
  }

  /**
   * Reads and checks {@code file}.
   *
   * @throws IllegalArgumentException naming the file and every problem found
   */
  public static ClusterFile load(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read the cluster file " + file + ": " + e, e);
    }
    return parse(text, file.toString());
  }

  /** Parses YAML text; {@code source} names it in error messages. */
  public static ClusterFile parse(String yaml, String source) {
    JsonNode root;
    try {
      root = YAML.readTree(yaml);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(source + ": not valid YAML: " + e.getOriginalMessage(), e);
    }
    List<String> errors = new ArrayList<>();
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException(
          source + ": expected a mapping with 'peers' (a list of id, raft, http)");
    }
    unknownKeys(root, TOP_KEYS, "", errors);
    String name = DEFAULT_NAME;
    if (root.has("name")) {
      name = root.get("name").asText();
    }
    int shards = 1;
    if (root.has("shards")) {
      JsonNode s = root.get("shards");
      if (!s.canConvertToInt() || !s.isIntegralNumber() || s.asInt() < 1) {
        errors.add("shards: expected a whole number of at least 1, got " + s);
      } else {
        shards = s.asInt();
      }
    }
    List<ClusterConfig.Peer> peers = new ArrayList<>();
    Map<String, URI> http = new LinkedHashMap<>();
    JsonNode list = root.get("peers");
    if (list == null || !list.isArray() || list.isEmpty()) {
      errors.add("peers: expected a list of peers (id, raft, http), got " + list);
    } else {
      Set<String> httpBases = new HashSet<>();
      for (int i = 0; i < list.size(); i++) {
        JsonNode p = list.get(i);
        String where = "peers[" + i + "]";
        if (!p.isObject()) {
          errors.add(where + ": expected a mapping with id, raft and http");
          continue;
        }
        unknownKeys(p, PEER_KEYS, where + ".", errors);
        String id = text(p, "id", where, errors);
        String raft = text(p, "raft", where, errors);
        String base = text(p, "http", where, errors);
        if (id == null || raft == null || base == null) continue;
        where = where + " (" + id + ")";
        URI uri;
        try {
          uri = new URI(base);
        } catch (URISyntaxException e) {
          errors.add(where + ".http: \"" + base + "\" is not a URI: " + e.getMessage());
          continue;
        }
        if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
            || uri.getHost() == null
            || uri.getPort() < 1
            || !(uri.getPath() == null || uri.getPath().isEmpty() || uri.getPath().equals("/"))) {
          errors.add(
              where
                  + ".http: \""
                  + base
                  + "\" must be http(s)://HOST:PORT with an explicit port and no path"
                  + " (e.g. http://10.0.0.1:7070)");
          continue;
        }
        try {
          peers.add(
              ClusterConfig.Peer.parse(
                  id, raft, URI.create(uri.getScheme() + "://" + uri.getRawAuthority())));
        } catch (IllegalArgumentException e) {
          errors.add(
              where + ".raft: \"" + raft + "\": " + e.getMessage() + " (e.g. 10.0.0.1:7071)");
          continue;
        }
        if (!httpBases.add(uri.getHost().toLowerCase(java.util.Locale.ROOT) + ":" + uri.getPort()))
          errors.add(where + ".http: " + base + " is used by another peer");
        if (http.put(id, URI.create(uri.getScheme() + "://" + uri.getRawAuthority())) != null)
          errors.add(where + ".id: " + id + " appears twice");
      }
    }
    ClusterConfig config = null;
    if (errors.isEmpty()) {
      try {
        config = new ClusterConfig(name, peers, shards);
      } catch (IllegalArgumentException e) {
        errors.add(e.getMessage());
      }
    }
    if (!errors.isEmpty()) {
      throw new IllegalArgumentException(
          "invalid cluster file " + source + ":\n  - " + String.join("\n  - ", errors));
    }
    return new ClusterFile(config, http);
  }

  /**
   * The peer {@code id} of the file.
   *
   * @throws IllegalArgumentException naming the ids the file has
   */
  public ClusterConfig.Peer peer(String id) {
    return config.peer(id);
  }

  /** Every peer's object server, in file order (what gateways list as coordinators). */
  public List<URI> coordinators() {
    return List.copyOf(http.values());
  }

  private static String text(JsonNode node, String key, String where, List<String> errors) {
    JsonNode v = node.get(key);
    if (v == null || v.isNull() || !v.isValueNode() || v.asText().isBlank()) {
      errors.add(where + "." + key + ": missing");
      return null;
    }
    return v.asText().strip();
  }

  private static void unknownKeys(JsonNode node, Set<String> known, String prefix, List<String> e) {
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      if (!known.contains(k)) e.add(prefix + k + ": unknown key (known: " + known + ")");
    }
  }
}
