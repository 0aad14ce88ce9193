package io.anteroom.objects.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.anteroom.objects.Namespace;
import io.anteroom.objects.ObjectContext;
import io.anteroom.objects.ObjectResetException;
import io.anteroom.objects.Runtime;
import io.anteroom.objects.Storage;
import io.anteroom.objects.StorageOptions;
import io.anteroom.objects.storage.KeyRange;
import io.anteroom.objects.storage.StorageEngine;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The objects runtime on the shard's leader, over the replicated engine, across a leader change.
 */
class ReplicatedRuntimeTest {
  @TempDir Path dir;
  private TestCluster cluster;
  private final List<Runtime> runtimes = new ArrayList<>();

  public interface Counter {
    long next();

    long current();
  }

  /** The naive counter of the spec: get, put, return. */
  public static final class CounterObject implements Counter {
    private final Storage storage;

    public CounterObject(ObjectContext ctx) {
      this.storage = ctx.storage();
    }

    @Override
    public long next() {
      long v = storage.get("counter", Long.class).orElse(0L);
      storage.put("counter", v + 1);
      return v;
    }

    @Override
    public long current() {
      return storage.get("counter", Long.class).orElse(0L);
    }
  }

  /**
   * The naive counter writing as the room's counters save their position ({@code
   * coordinator.CounterObject}): with {@code allowUnconfirmed}, so that on a single copy the reply
   * does not wait for the write's fsync.
   */
  public static final class UnconfirmedCounterObject implements Counter {
    private final Storage storage;

    public UnconfirmedCounterObject(ObjectContext ctx) {
      this.storage = ctx.storage();
    }

    @Override
    public long next() {
      long v = storage.get("counter", Long.class).orElse(0L);
      storage.put("counter", v + 1, StorageOptions.DEFAULT.withAllowUnconfirmed());
      return v;
    }

    @Override
    public long current() {
      return storage.get("counter", Long.class).orElse(0L);
    }
  }

  /**
   * A view of an engine that never tells the runtime of a leader change: a leader that does not
   * know yet.
   */
  static final class UninformedEngine implements StorageEngine {
    private final ReplicatedStorageEngine engine;

    UninformedEngine(ReplicatedStorageEngine engine) {
      this.engine = engine;
    }

    @Override
    public byte[] get(String object, String key) {
      return engine.get(object, key);
    }

    @Override
    public List<Map.Entry<String, byte[]>> list(String object, KeyRange range) {
      return engine.list(object, range);
    }

    @Override
    public Optional<Instant> getAlarm(String object) {
      return engine.getAlarm(object);
    }

    @Override
    public Map<String, Instant> alarms() {
      return engine.alarms();
    }

    @Override
    public void commit(List<Batch> batches) {
      engine.commit(batches);
    }

    @Override
    public CompletionStage<Void> confirmReads() {
      return engine.confirmReads();
    }

    @Override
    public boolean commitConfirmsReads() {
      return engine.commitConfirmsReads();
    }

    @Override
    public boolean allowsUnconfirmedOutputs() {
      return engine.allowsUnconfirmedOutputs();
    }

    @Override
    public void close() {
      engine.close();
    }
  }

  @AfterEach
  void stop() {
    for (Runtime r : runtimes) {
      try {
        r.close();
      } catch (RuntimeException e) {
        // the runtime of a stopped peer cannot flush: its callers already got errors
      }
    }
    if (cluster != null) cluster.close();
  }

  private Counter counterOn(RatisPeer peer) {
    return counterOn(Runtime.builder().storage(peer.engine(0)).build());
  }

  private Counter counterOn(Runtime runtime) {
    runtimes.add(runtime);
    Namespace<Counter> ns = runtime.namespace("counter", Counter.class, CounterObject::new);
    return ns.get("tickets");
  }

  @Test
  void numbersStayUniqueUnderConcurrentCallersAcrossALeaderChange() throws Exception {
    cluster = TestCluster.start(dir, 3, 1, TestCluster.testOptions().build());
    RatisPeer first = cluster.awaitLeader(0);
    Counter before = counterOn(first);
    List<Long> received = Collections.synchronizedList(new ArrayList<>());
    AtomicInteger failed = new AtomicInteger();

    try (ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<?>> warmup = new ArrayList<>();
      for (int i = 0; i < 64; i++) warmup.add(callers.submit(() -> received.add(before.next())));
      for (Future<?> f : warmup) f.get();

      // callers keep calling while the leader stops: each either gets a number or an error
      AtomicBoolean stopping = new AtomicBoolean();
      List<Future<?>> during = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        during.add(
            callers.submit(
                () -> {
                  while (!stopping.get()) {
                    try {
                      received.add(before.next());
                    } catch (RuntimeException e) {
                      failed.incrementAndGet();
                      return;
                    }
                  }
                }));
      }
      cluster.stopPeer(first.id());
      stopping.set(true);
      for (Future<?> f : during) f.get();
    }
    long highestBefore = Collections.max(received);

    RatisPeer second = cluster.awaitLeader(0);
    Counter after = counterOn(second);
    List<Long> afterChange = Collections.synchronizedList(new ArrayList<>());
    try (ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<?>> calls = new ArrayList<>();
      for (int i = 0; i < 64; i++) calls.add(callers.submit(() -> afterChange.add(after.next())));
      for (Future<?> f : calls) f.get();
    }

    List<Long> all = new ArrayList<>(received);
    all.addAll(afterChange);
    assertThat(all).doesNotHaveDuplicates();
    assertThat(afterChange).allSatisfy(n -> assertThat(n).isGreaterThan(highestBefore));
    assertThat(failed.get())
        .as("callers whose call was in flight when the leader stopped")
        .isPositive();
    assertThatThrownBy(before::next)
        .as("the stopped leader's runtime confirms nothing")
        .isInstanceOf(RuntimeException.class);
  }

  private RatisPeer otherThan(RatisPeer peer) {
    return cluster.running().stream().filter(p -> p != peer).findFirst().orElseThrow();
  }

  @Test
  void aLeaderChangeResetsTheOldLeadersInstancesAndItServesNothingFromItsCacheAfterwards() {
    cluster = TestCluster.start(dir, 3, 1, TestCluster.testOptions().build());
    RatisPeer first = cluster.awaitLeader(0);
    Runtime old = Runtime.builder().storage(first.engine(0)).build();
    Counter before = counterOn(old);
    for (long i = 0; i < 3; i++) assertThat(before.next()).isEqualTo(i);
    assertThat(before.current()).isEqualTo(3);

    RatisPeer second = otherThan(first);
    first.engine(0).transferLeadership(second.id());

    await("the old leader's runtime is fenced")
        .atMost(TestCluster.PATIENCE)
        .until(() -> old.metrics().meter("objects.resets").getCount() >= 1);
    assertThatThrownBy(before::current)
        .as("no read from the dropped cache: the engine refuses")
        .hasMessageContaining("not the leader of shard 0");
    Counter after = counterOn(cluster.awaitLeader(0));
    assertThat(after.current()).isEqualTo(3);
    assertThat(after.next()).isEqualTo(3);
  }

  /** The real engine, fencing included, whose commits wait until the test lets them through. */
  static final class HeldCommitsEngine implements StorageEngine {
    private final ReplicatedStorageEngine engine;
    final java.util.concurrent.CountDownLatch commitArrived =
        new java.util.concurrent.CountDownLatch(1);
    final java.util.concurrent.CountDownLatch letThrough =
        new java.util.concurrent.CountDownLatch(1);
    volatile boolean holding;

    HeldCommitsEngine(ReplicatedStorageEngine engine) {
      this.engine = engine;
    }

    @Override
    public byte[] get(String object, String key) {
      return engine.get(object, key);
    }

    @Override
    public List<Map.Entry<String, byte[]>> list(String object, KeyRange range) {
      return engine.list(object, range);
    }

    @Override
    public Optional<Instant> getAlarm(String object) {
      return engine.getAlarm(object);
    }

    @Override
    public Map<String, Instant> alarms() {
      return engine.alarms();
    }

    @Override
    public void commit(List<Batch> batches) {
      if (holding) {
        commitArrived.countDown();
        try {
          letThrough.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
      engine.commit(batches);
    }

    @Override
    public void fenceWith(java.util.function.ToIntFunction<String> resetAll) {
      engine.fenceWith(resetAll);
    }

    @Override
    public CompletionStage<Void> confirmReads() {
      return engine.confirmReads();
    }

    @Override
    public boolean commitConfirmsReads() {
      return engine.commitConfirmsReads();
    }

    @Override
    public boolean allowsUnconfirmedOutputs() {
      return engine.allowsUnconfirmedOutputs();
    }

    @Override
    public void close() {
      engine.close();
    }
  }

  @Test
  void aResultHeldForItsCommitWhenLeadershipMovesFailsWithObjectResetExceptionAndIsNeverHandedOut()
      throws Exception {
    cluster = TestCluster.start(dir, 3, 1, TestCluster.testOptions().build());
    RatisPeer first = cluster.awaitLeader(0);
    HeldCommitsEngine held = new HeldCommitsEngine(first.engine(0));
    Counter before = counterOn(Runtime.builder().storage(held).build());
    for (long i = 0; i < 3; i++) assertThat(before.next()).isEqualTo(i);

    held.holding = true;
    java.util.concurrent.CompletableFuture<Long> call =
        java.util.concurrent.CompletableFuture.supplyAsync(
            before::next, r -> Thread.ofVirtual().start(r));
    held.commitArrived.await();
    first.engine(0).transferLeadership(otherThan(first).id());

    assertThatThrownBy(call::join)
        .as("the held result (3) is never handed out")
        .hasCauseInstanceOf(ObjectResetException.class);
    held.letThrough.countDown(); // the old leader's commit now goes to an engine that refuses it
    Counter after = counterOn(cluster.awaitLeader(0));
    assertThat(after.next()).isEqualTo(3);
  }

  /**
   * Found by {@code ClusterFaultsTest} (a minority and a majority side: numbers 720-722 of the
   * room's counter confirmed by the old leader, then issued again by the new one): a write made
   * with {@code allowUnconfirmed} on a replicated engine. Its reply left once the read-index round
   * confirmed the leader, before the write committed; the leadership moved, the write never
   * committed, and the new leader handed the same number out again. On a replicated engine the
   * reply waits for the commit whatever the option: the held call fails with {@link
   * ObjectResetException} and its number is issued once, by the new leader.
   */
  @Test
  void aReplyWhoseWriteAllowsUnconfirmedOutputsStillWaitsForTheCommitOnAReplicatedEngine()
      throws Exception {
    cluster = TestCluster.start(dir, 3, 1, TestCluster.testOptions().build());
    RatisPeer first = cluster.awaitLeader(0);
    HeldCommitsEngine held = new HeldCommitsEngine(first.engine(0));
    Runtime runtime = Runtime.builder().storage(held).build();
    runtimes.add(runtime);
    Counter before =
        runtime.namespace("counter", Counter.class, UnconfirmedCounterObject::new).get("tickets");
    for (long i = 0; i < 3; i++) assertThat(before.next()).isEqualTo(i);

    held.holding = true;
    java.util.concurrent.CompletableFuture<Long> call =
        java.util.concurrent.CompletableFuture.supplyAsync(
            before::next, r -> Thread.ofVirtual().start(r));
    held.commitArrived.await();
    first.engine(0).transferLeadership(otherThan(first).id());

    assertThatThrownBy(call::join)
        .as("the number whose write did not commit (3) is never handed out")
        .hasCauseInstanceOf(ObjectResetException.class);
    held.letThrough.countDown();
    Runtime next = Runtime.builder().storage(cluster.awaitLeader(0).engine(0)).build();
    runtimes.add(next);
    Counter after =
        next.namespace("counter", Counter.class, UnconfirmedCounterObject::new).get("tickets");
    assertThat(after.next()).isEqualTo(3);
  }

  /**
   * A counter on a runtime of the first leader whose engine never tells it of the leader change (it
   * issued 0 to 2, its cache holds 3), the leadership moved, and a counter on the new leader (it
   * issued 3).
   */
  private record Deposed(RatisPeer oldLeader, Counter before, Counter after) {}

  private Deposed deposedWithoutBeingTold() {
    cluster = TestCluster.start(dir, 3, 1, TestCluster.testOptions().build());
    RatisPeer first = cluster.awaitLeader(0);
    Runtime uninformed = Runtime.builder().storage(new UninformedEngine(first.engine(0))).build();
    Counter before = counterOn(uninformed);
    for (long i = 0; i < 3; i++) assertThat(before.next()).isEqualTo(i);

    RatisPeer second = otherThan(first);
    first.engine(0).transferLeadership(second.id());
    Counter after = counterOn(cluster.awaitLeader(0));
    assertThat(after.next()).isEqualTo(3);
    return new Deposed(first, before, after);
  }

  @Test
  void aDeposedLeaderThatWasNotToldYetAnswersNoCachedReadBecauseItsReadsAreNotConfirmed() {
    Deposed d = deposedWithoutBeingTold();
    Counter before = d.before(), after = d.after();

    // the old runtime still has the instance and its cache (counter = 3), but the reply is withheld
    assertThatThrownBy(before::current)
        .isInstanceOf(ObjectResetException.class)
        .hasMessageContaining("could not confirm");
    assertThat(after.current()).isEqualTo(4);
  }

  @Test
  void
      aDeposedLeaderThatWasNotToldYetAnswersNoWritingCallFromItsCacheBecauseTheWriteCannotCommit() {
    Deposed d = deposedWithoutBeingTold();
    Counter before = d.before(), after = d.after();

    // a writing call gets no read-index round (commitConfirmsReads): the old runtime computes 3
    // from its cache again, but that number is withheld because its write cannot commit there
    assertThat(d.oldLeader().engine(0).commitConfirmsReads()).isTrue();
    assertThatThrownBy(before::next).isInstanceOf(ObjectResetException.class);
    assertThat(after.next()).isEqualTo(4);
  }

  @Test
  void aRuntimeOnAFollowerCannotStartBecauseItsEngineRefusesReads() {
    cluster = TestCluster.start(dir, 3, 1, TestCluster.testOptions().build());
    RatisPeer leader = cluster.awaitLeader(0);
    RatisPeer follower =
        cluster.running().stream().filter(p -> p != leader).findFirst().orElseThrow();
    // the leader knows it leads before its first heartbeat tells the follower
    await(follower.id() + " learns its leader")
        .atMost(TestCluster.PATIENCE)
        .until(() -> follower.engine(0).leader().equals(Optional.of(leader.id())));

    assertThatThrownBy(() -> Runtime.builder().storage(follower.engine(0)).build())
        .isInstanceOf(NotShardLeaderException.class)
        .hasMessageContaining("the leader is " + leader.id());
  }
}
