package io.anteroom.objects.ratis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The static membership of a replicated coordinator: its peers and its number of shards. Every
 * shard is one Raft group of all the peers; every peer serves every shard, so with {@code shards >
 * 1} each server runs several groups and their leaders spread over the peers.
 *
 * <p>Every peer must be started with an equal config: the Raft group ids derive from {@code name}
 * and the shard number, and objects map to shards by a stable hash of their name ({@link
 * #shardOf}), the same on every peer and across restarts.
 *
 * <pre>{@code
 * ClusterConfig config = new ClusterConfig("coordinator", List.of(
 *         new ClusterConfig.Peer("a", "10.0.0.1", 7070),
 *         new ClusterConfig.Peer("b", "10.0.0.2", 7070),
 *         new ClusterConfig.Peer("c", "10.0.0.3", 7070)), 4);
 * }</pre>
 *
 * @param name the cluster's name, part of every group id: two clusters never mix their peers' logs
 * @param peers 3 or 5 peers in practice (1 is allowed, for tests and single-node trials)
 * @param shards the number of Raft groups, at least 1; fixed for the life of the data
 */
public record ClusterConfig(String name, List<Peer> peers, int shards) {
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");

  /**
   * A peer: its id (stable across restarts; names its data), the address its Raft RPC listens on,
   * and the base URI of its object server ({@code null} where unknown: it then travels with the
   * membership only if a peer that knows it added it).
   */
  public record Peer(String id, String host, int port, java.net.URI http) {
    /** A peer whose object server URI is not known here. */
    public Peer(String id, String host, int port) {
      this(id, host, port, null);
    }

    public Peer {
      if (id == null || !ID.matcher(id).matches()) {
        throw new IllegalArgumentException(
            "peer id must be 1-64 characters of [A-Za-z0-9._-], got: " + id);
      }
      if (host == null || host.isBlank())
        throw new IllegalArgumentException("peer " + id + ": host is missing");
      if (port < 1 || port > 65535)
        throw new IllegalArgumentException("peer " + id + ": port must be 1-65535, got " + port);
    }

    /** {@code host:port}. */
    public String address() {
      return host + ":" + port;
    }

    /** {@code id (host:port)}, as membership lines name a peer. */
    public String describe() {
      return id + " (" + address() + ")";
    }

    /**
     * Parses a Raft address {@code HOST:PORT} ({@code [v6]:PORT} too).
     *
     * @throws IllegalArgumentException saying what is wrong
     */
    public static Peer parse(String id, String address, java.net.URI http) {
      int colon = address == null ? -1 : address.lastIndexOf(':');
      if (colon <= 0) throw new IllegalArgumentException("not HOST:PORT");
      String host = address.substring(0, colon);
      if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
      int port;
      try {
        port = Integer.parseInt(address.substring(colon + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("not HOST:PORT");
      }
      return new Peer(id, host, port, http);
    }
  }

  public ClusterConfig {
    if (name == null || !ID.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "cluster name must be 1-64 characters of [A-Za-z0-9._-], got: " + name);
    }
    if (peers == null || peers.isEmpty())
      throw new IllegalArgumentException("a cluster needs at least one peer");
    peers = List.copyOf(peers);
    Set<String> ids = new HashSet<>();
    Set<String> addresses = new HashSet<>();
    for (Peer p : peers) {
      if (!ids.add(p.id()))
        throw new IllegalArgumentException(
            "peer id " + p.id() + " appears twice in cluster " + name);
      if (!addresses.add(p.address()))
        throw new IllegalArgumentException(
            "address " + p.address() + " appears twice in cluster " + name);
    }
    if (shards < 1) throw new IllegalArgumentException("shards must be at least 1, got " + shards);
  }

  /** The peer with this id. */
  public Peer peer(String id) {
    for (Peer p : peers) {
      if (p.id().equals(id)) return p;
    }
    throw new IllegalArgumentException(
        "no peer "
            + id
            + " in cluster "
            + name
            + "; peers: "
            + peers.stream().map(Peer::id).toList());
  }

  /**
   * The shard of an object (a storage engine's object name, {@code namespace/id}): the first 8
   * bytes of its name's SHA-256 modulo the number of shards. With one shard (the default, and what
   * the room objects need) every object is on shard 0 without hashing: a node asks this up to three
   * times per call it routes.
   */
  public int shardOf(String object) {
    Objects.requireNonNull(object, "object name");
    if (shards == 1) return 0;
    byte[] digest = sha256(object.getBytes(StandardCharsets.UTF_8));
    long h = 0;
    for (int i = 0; i < 8; i++) h = (h << 8) | (digest[i] & 0xff);
    return (int) Math.floorMod(h, (long) shards);
  }

  /** The Raft group id of a shard: derived from the cluster name and the shard number. */
  UUID groupUuid(int shard) {
    checkShard(shard);
    return groupUuid(name, shard);
  }

  /** The Raft group id of shard {@code shard} of a cluster called {@code name}. */
  static UUID groupUuid(String name, int shard) {
    return UUID.nameUUIDFromBytes(
        ("anteroom-objects/" + name + "/shard/" + shard).getBytes(StandardCharsets.UTF_8));
  }

  void checkShard(int shard) {
    if (shard < 0 || shard >= shards) {
      throw new IllegalArgumentException(
          "shard must be 0-" + (shards - 1) + " in cluster " + name + ", got " + shard);
    }
  }

  private static byte[] sha256(byte[] data) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(data);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
