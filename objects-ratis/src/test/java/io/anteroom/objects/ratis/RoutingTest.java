package io.anteroom.objects.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.objects.ObjectId;
import io.anteroom.objects.ObjectTransport;
import io.anteroom.objects.Runtime;
import io.anteroom.objects.Stubs;
import io.anteroom.objects.http.HttpObjectServer;
import io.anteroom.objects.http.RoutingObjectTransport;
import io.anteroom.objects.http.SharedSecret;
import io.anteroom.objects.ratis.ReplicatedRuntimeTest.Counter;
import io.anteroom.objects.ratis.ReplicatedRuntimeTest.CounterObject;
import io.anteroom.testkit.FreePorts;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Coordinators in front of three in-JVM peers: calls reach the shard's leader, once. */
class RoutingTest {
  private static final SharedSecret SECRET =
      SharedSecret.of(
          "test", "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII));

  @TempDir Path dir;
  private TestCluster cluster;
  private final List<AutoCloseable> toClose = new ArrayList<>();

  /** What each peer's server runs calls on: the runtime once the peer leads, else nothing. */
  private final Map<String, ObjectTransport> runtimes = new ConcurrentHashMap<>();

  private final Map<String, AtomicInteger> refused = new ConcurrentHashMap<>();

  @AfterEach
  void stop() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      try {
        toClose.get(i).close();
      } catch (RuntimeException e) {
        // a runtime of a deposed leader may fail to flush: its callers already got errors
      }
    }
    if (cluster != null) cluster.close();
  }

  /**
   * The transport behind peer {@code id}'s server: its runtime if it has one; else it counts and
   * refuses.
   */
  private ObjectTransport behind(String id) {
    refused.put(id, new AtomicInteger());
    return (namespace, objectId, method, args) -> {
      ObjectTransport runtime = runtimes.get(id);
      if (runtime != null) return runtime.call(namespace, objectId, method, args);
      refused.get(id).incrementAndGet();
      return CompletableFuture.failedFuture(new IllegalStateException("no runtime on peer " + id));
    };
  }

  private void runtimeOn(RatisPeer peer) {
    Runtime runtime = Runtime.builder().storage(peer.engine(0)).build();
    toClose.add(runtime);
    runtime.namespace("counter", Counter.class, CounterObject::new);
    runtimes.put(peer.id(), runtime.transport());
  }

  @Test
  void aCallSentToAFollowerReachesTheLeaderOnceAndFollowsTheLeadershipWhenItMoves() {
    cluster = TestCluster.start(dir, 3, 1, TestCluster.testOptions().build());
    RatisPeer first = cluster.awaitLeader(0);
    runtimeOn(first);

    Map<String, URI> uris = new LinkedHashMap<>();
    for (RatisPeer p : cluster.running())
      uris.put(p.id(), URI.create("http://127.0.0.1:" + FreePorts.take()));
    for (RatisPeer p : cluster.running()) {
      HttpObjectServer server =
          HttpObjectServer.builder(behind(p.id()))
              .export("counter")
              .secret(SECRET)
              .port(uris.get(p.id()).getPort())
              .leaderLookup(new ShardLeaderLookup(p, uris))
              .start();
      toClose.add(server);
    }
    // the followers first: the first call lands on one that does not lead
    List<URI> order = new ArrayList<>();
    cluster.running().stream().filter(p -> p != first).forEach(p -> order.add(uris.get(p.id())));
    order.add(uris.get(first.id()));
    RoutingObjectTransport routing =
        RoutingObjectTransport.builder(order)
            .secret(SECRET)
            .timeout(Duration.ofSeconds(20))
            .build();
    toClose.add(routing);
    Counter counter =
        Stubs.create(Counter.class, "counter", ObjectId.fromName("counter", "tickets"), routing);

    assertThat(counter.next()).isZero();
    assertThat(counter.next()).isEqualTo(1);
    assertThat(refused.values())
        .allSatisfy(n -> assertThat(n.get()).as("calls run by a follower").isZero());

    RatisPeer second = cluster.running().stream().filter(p -> p != first).findFirst().orElseThrow();
    runtimes.remove(first.id());
    first.engine(0).transferLeadership(second.id());
    // the runtime goes where the leadership went (on a loaded machine an election may pick another
    // peer than the transfer's target)
    runtimeOn(cluster.awaitLeaderOtherThan(0, first));

    // the transport still goes to the old leader first; it answers 421 naming the new one
    assertThat(counter.next()).isEqualTo(2);
    assertThat(counter.current()).isEqualTo(3);
    assertThat(refused.values())
        .allSatisfy(n -> assertThat(n.get()).as("calls run by a follower").isZero());
  }
}
