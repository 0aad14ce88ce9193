package io.anteroom.objects.ratis;

import static org.awaitility.Awaitility.await;

import io.anteroom.testkit.FreePorts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Peers of one cluster in this JVM, on free loopback ports, each with its own directory under a
 * temp dir.
 */
final class TestCluster implements AutoCloseable {
  static final Duration PATIENCE = Duration.ofSeconds(30);

  final ClusterConfig config;
  final PeerOptions options;
  private final Path root;
  private final Map<String, RatisPeer> running = new LinkedHashMap<>();

  private TestCluster(ClusterConfig config, PeerOptions options, Path root) {
    this.config = config;
    this.options = options;
    this.root = root;
  }

  static PeerOptions.Builder testOptions() {
    return PeerOptions.builder()
        .electionTimeout(Duration.ofMillis(300), Duration.ofMillis(600))
        .commitTimeout(Duration.ofSeconds(15));
  }

  /** Starts {@code peers} peers ("p0", "p1", ...) serving {@code shards} shards. */
  static TestCluster start(Path root, int peers, int shards, PeerOptions options) {
    List<ClusterConfig.Peer> list = new ArrayList<>();
    int[] ports = FreePorts.take(peers);
    for (int i = 0; i < peers; i++)
      list.add(new ClusterConfig.Peer("p" + i, "127.0.0.1", ports[i]));
    TestCluster cluster = new TestCluster(new ClusterConfig("test", list, shards), options, root);
    try {
      for (ClusterConfig.Peer p : list) cluster.startPeer(p.id());
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  RatisPeer startPeer(String id) {
    RatisPeer peer = RatisPeer.start(config, id, root.resolve(id), options);
    running.put(id, peer);
    return peer;
  }

  void stopPeer(String id) {
    RatisPeer peer = running.remove(id);
    if (peer != null) peer.close();
  }

  RatisPeer peer(String id) {
    RatisPeer p = running.get(id);
    if (p == null) throw new IllegalArgumentException("peer " + id + " is not running");
    return p;
  }

  List<RatisPeer> running() {
    return List.copyOf(running.values());
  }

  /** Waits until a running peer is the ready leader of {@code shard}, and returns it. */
  /** The next ready leader of {@code shard} that is not {@code previous} (after a transfer). */
  RatisPeer awaitLeaderOtherThan(int shard, RatisPeer previous) {
    AtomicReference<RatisPeer> leader = new AtomicReference<>();
    await("a ready leader of shard " + shard + " other than " + previous.id())
        .atMost(PATIENCE)
        .ignoreExceptions()
        .until(
            () -> {
              for (RatisPeer p : running.values()) {
                if (p != previous && p.engine(shard).isLeaderReady()) {
                  leader.set(p);
                  return true;
                }
              }
              return false;
            });
    return leader.get();
  }

  RatisPeer awaitLeader(int shard) {
    AtomicReference<RatisPeer> leader = new AtomicReference<>();
    await("a ready leader of shard " + shard)
        .atMost(PATIENCE)
        .ignoreExceptions()
        .until(
            () -> {
              for (RatisPeer p : running.values()) {
                if (p.engine(shard).isLeaderReady()) {
                  leader.set(p);
                  return true;
                }
              }
              return false;
            });
    return leader.get();
  }

  /** Waits until every running peer has applied at least up to the leader's commit index. */
  void awaitAllApplied(int shard, long index) {
    for (RatisPeer p : running.values()) {
      await(p.id() + " applies shard " + shard + " up to " + index)
          .atMost(PATIENCE)
          .until(() -> p.engine(shard).appliedIndex() >= index);
    }
  }

  /**
   * {@code n} distinct free ports: the sockets stay open until all are chosen (one at a time, the
   * kernel may hand out a port just released twice).
   */
  @Override
  public void close() {
    RuntimeException failure = null;
    for (String id : List.copyOf(running.keySet())) {
      try {
        stopPeer(id);
      } catch (RuntimeException e) {
        if (failure == null) failure = e;
        else failure.addSuppressed(e);
      }
    }
    if (failure != null) throw failure;
  }
}
