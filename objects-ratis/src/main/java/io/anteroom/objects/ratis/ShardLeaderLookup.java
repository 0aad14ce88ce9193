package io.anteroom.objects.ratis;

import io.anteroom.objects.ObjectId;
import io.anteroom.objects.http.LeaderLookup;
import java.net.URI;
import java.util.Map;
import java.util.Objects;

/**
 * The {@link LeaderLookup} of one peer's coordinator server: a call runs here only if this peer is
 * the <em>ready</em> leader of the object's shard ({@link ClusterConfig#shardOf}); otherwise the
 * server answers 421 naming the leader's coordinator URI, or no one while this peer knows no leader
 * (an election, or it was just elected and is not ready yet).
 *
 * <p>Answers from the Raft state in memory, without blocking (it runs on the server's event loop).
 * Leadership can change right after the answer: the runtime then refuses or resets the call ({@link
 * ReplicatedStorageEngine}), so a call that slips through on a deposed leader is never confirmed;
 * it fails instead of being redirected.
 *
 * <pre>{@code
 * Map<String, URI> coordinators = Map.of("a", URI.create("https://10.0.0.1:8081"), ...);
 * HttpObjectServer.builder(runtime.transport()).export("counter").secret(secret)
 *     .leaderLookup(new ShardLeaderLookup(peer, coordinators)).start();
 * }</pre>
 */
public final class ShardLeaderLookup implements LeaderLookup {
  private final RatisPeer peer;
  private final Map<String, URI> coordinators;
  private final ReplicatedStorageEngine[] shards;

  /**
   * @param peer this coordinator's peer
   * @param coordinators the base URI of every peer's coordinator server, by peer id
   * @throws IllegalArgumentException if a peer of the cluster has no URI
   */
  public ShardLeaderLookup(RatisPeer peer, Map<String, URI> coordinators) {
    this.peer = Objects.requireNonNull(peer, "peer");
    this.coordinators = Map.copyOf(coordinators);
    for (ClusterConfig.Peer p : peer.config().peers()) {
      if (!this.coordinators.containsKey(p.id())) {
        throw new IllegalArgumentException(
            "no coordinator URI for peer "
                + p.id()
                + " of cluster "
                + peer.config().name()
                + "; every peer needs one so that calls can be redirected to it");
      }
    }
    this.shards = new ReplicatedStorageEngine[peer.config().shards()];
    for (int s = 0; s < shards.length; s++) shards[s] = peer.engine(s);
  }

  /**
   * The leader's coordinator URI: as the membership carries it (a peer added online is in no older
   * file), else as given; {@code null} (no redirect) if neither knows it.
   */
  private URI uriOf(String leader) {
    return peer.httpOf(leader).orElseGet(() -> coordinators.get(leader));
  }

  @Override
  public Leader leaderOf(String namespace, ObjectId id) {
    ReplicatedStorageEngine shard = shards[peer.config().shardOf(namespace + "/" + id)];
    if (shard.isLeaderReady()) return Leader.SELF;
    return shard
        .leader()
        .filter(leader -> !leader.equals(peer.id()))
        .map(this::uriOf)
        .map(Leader::at)
        .orElse(Leader.UNKNOWN);
  }
}
