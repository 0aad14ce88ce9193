package io.anteroom.coordinator.server;

import io.anteroom.coordinator.CoordinatorServer;
import io.anteroom.coordinator.RoomObjects;
import io.anteroom.objects.http.SharedSecret;
import io.anteroom.objects.ratis.ClusterFile;
import io.anteroom.objects.ratis.ClusterNode;
import io.anteroom.objects.ratis.PeerOptions;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * One peer of the replicated coordinator ({@code anteroom coordinator --cluster FILE --id ID}): a
 * {@link ClusterNode} whose runtime on each shard this peer leads holds the room objects of that
 * shard, behind an object server with the same address, authentication, TLS and webhooks as the
 * single coordinator ({@link CoordinatorServer.Options}). Each object lives on the shard its name
 * hashes to; a data-center object reaches its room's global object on another shard through the
 * peers' object servers (signed with the first of the secrets; {@code https} peers' certificates
 * checked against {@link Options#peerTrust}), so the server also exports the global objects.
 */
public final class CoordinatorPeer {
  private CoordinatorPeer() {}

  /** How long a room object waits for an object of another shard (its room's global object). */
  static final Duration CROSS_SHARD_TIMEOUT = Duration.ofSeconds(5);

  /** What a peer's object server exports: the gateways' namespaces and the global objects. */
  static final List<String> PEER_NAMESPACES = peerNamespaces();

  private static List<String> peerNamespaces() {
    var all = new ArrayList<>(CoordinatorServer.GATEWAY_NAMESPACES);
    all.add(RoomObjects.GLOBAL_NAMESPACE);
    return List.copyOf(all);
  }

  /**
   * A peer's settings.
   *
   * @param file the cluster file (the same on every peer)
   * @param id this peer's id in it
   * @param dataDir where this peer's Raft log and shard copies live
   * @param server its object server: address, secrets, TLS, webhooks (posted by each shard's
   *     leader)
   * @param peerTrust PEM certificates the other peers' {@code https} object servers chain to
   *     (empty: the JVM's trust store)
   * @param peer the Raft side: mutual TLS between the Raft ports, joining, timings
   * @param events where the node's leadership lines go
   */
  public record Options(
      ClusterFile file,
      String id,
      Path dataDir,
      CoordinatorServer.Options server,
      List<Path> peerTrust,
      PeerOptions peer,
      Consumer<String> events) {
    public Options {
      Objects.requireNonNull(file, "file");
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(dataDir, "dataDir");
      Objects.requireNonNull(server, "server");
      peerTrust = List.copyOf(peerTrust);
      Objects.requireNonNull(peer, "peer");
      Objects.requireNonNull(events, "events");
    }

    /**
     * A builder for peer {@code id} of {@code file}, storing in {@code dataDir} and serving with
     * {@code server}; no peer trust, default {@link PeerOptions}, events dropped until set.
     */
    public static Builder builder(
        ClusterFile file, String id, Path dataDir, CoordinatorServer.Options server) {
      return new Builder(file, id, dataDir, server);
    }
  }

  /** Builds {@link Options}. */
  public static final class Builder {
    private final ClusterFile file;
    private final String id;
    private final Path dataDir;
    private final CoordinatorServer.Options server;
    private List<Path> peerTrust = List.of();
    private PeerOptions peer = PeerOptions.builder().build();
    private Consumer<String> events = line -> {};

    private Builder(ClusterFile file, String id, Path dataDir, CoordinatorServer.Options server) {
      this.file = file;
      this.id = id;
      this.dataDir = dataDir;
      this.server = server;
    }

    /** PEM certificates the other peers' {@code https} object servers chain to. */
    public Builder peerTrust(List<Path> peerTrust) {
      this.peerTrust = peerTrust;
      return this;
    }

    /** The Raft side's options. */
    public Builder peer(PeerOptions peer) {
      this.peer = peer;
      return this;
    }

    /** Where the node's leadership lines go. */
    public Builder events(Consumer<String> events) {
      this.events = events;
      return this;
    }

    public Options build() {
      return new Options(file, id, dataDir, server, peerTrust, peer, events);
    }
  }

  /**
   * Starts the peer.
   *
   * @throws IllegalArgumentException a peer of the file whose {@code http} URI's scheme is not the
   *     one this peer serves (every peer serves HTTPS, or none)
   */
  public static ClusterNode start(Options options) {
    CoordinatorServer.Options server = options.server();
    String scheme = server.tls() ? "https" : "http";
    for (Map.Entry<String, URI> peer : options.file().http().entrySet()) {
      if (!scheme.equals(peer.getValue().getScheme())) {
        throw new IllegalArgumentException(
            "peer "
                + peer.getKey()
                + " has http: "
                + peer.getValue()
                + " but this coordinator "
                + (server.tls() ? "serves HTTPS (--tls-cert)" : "serves plain HTTP (no --tls-cert)")
                + ": every peer's URI in the cluster file must use "
                + scheme
                + "://");
      }
    }
    List<SharedSecret> secrets = server.secrets();
    return ClusterNode.builder(options.file(), options.id(), options.dataDir())
        .options(options.peer())
        .objects(
            runtime -> RoomObjects.register(runtime, RoomObjects.REPORT_MAX_QPS, server.webhooks()))
        .warmUp(RoomObjects::warmUp)
        .peerCalls(
            calls -> {
              calls.timeout(CROSS_SHARD_TIMEOUT).trust(options.peerTrust().toArray(Path[]::new));
              if (!secrets.isEmpty()) calls.secret(secrets.getFirst());
            })
        .server(s -> server.applyTo(s, PEER_NAMESPACES))
        .events(options.events())
        .start();
  }
}
