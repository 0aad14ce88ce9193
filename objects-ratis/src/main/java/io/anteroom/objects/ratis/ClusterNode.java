package io.anteroom.objects.ratis;

import io.anteroom.objects.ObjectId;
import io.anteroom.objects.ObjectTransport;
import io.anteroom.objects.Runtime;
import io.anteroom.objects.http.HttpObjectServer;
import io.anteroom.objects.http.LeaderLookup;
import io.anteroom.objects.http.RoutingObjectTransport;
import io.anteroom.objects.storage.InMemoryStorageEngine;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One coordinator of a replicated cluster, assembled: its {@link RatisPeer}, an objects {@link
 * Runtime} on each shard it leads, and its {@link HttpObjectServer}.
 *
 * <ul>
 *   <li>For each shard, a runtime is built on a fresh {@link ReplicatedStorageEngine} view when
 *       this peer becomes the shard's <em>ready</em> leader, and closed (its alarms first) on any
 *       other leader change this peer sees; a periodic check (every 250 ms) repairs a missed change
 *       and, while this peer knows no leader, lets its votes reach peers whose gRPC channels still
 *       back off after an outage ({@link RatisPeer#resetConnectBackoff}), and while it leads,
 *       replaces its connections to a follower that has stopped answering ({@link
 *       RatisPeer#reconnectSilentFollowers}: a cut link leaves them silent, and TCP's back-off
 *       would delay that follower's return by up to 13 s). Each runtime is fenced by its engine
 *       ({@link ReplicatedStorageEngine#fenceWith}) from the moment it starts, so the close only
 *       ends what the fence already stopped.
 *   <li>The object server runs a call only if this peer is the ready leader of the object's shard
 *       <em>and</em> its runtime is up; otherwise it answers 421 with the leader's URI ({@link
 *       ShardLeaderLookup}), or without one (the caller tries another coordinator) while the
 *       runtime is still being built.
 *   <li>Lines for an operator ({@code leads shard}, {@code no longer leads shard}, {@code follows
 *       shard}) go to the event sink given to the builder.
 * </ul>
 *
 * <pre>{@code
 * ClusterFile file = ClusterFile.load(Path.of("cluster.yaml"));
 * try (ClusterNode node = ClusterNode.builder(file, "c1", Path.of("/var/lib/anteroom"))
 *         .objects(runtime -> runtime.namespace("counter", Counter.class, CounterObject::new))
 *         .server(server -> server.export("counter").secret(secret))
 *         .start()) {
 *     ...
 * }
 * }</pre>
 */
public final class ClusterNode implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterNode.class);

  /** The start of the event line printed when this peer starts serving a shard. */
  public static final String LEADS = "leads shard ";

  /** The start of the event line printed when this peer stops serving a shard. */
  public static final String NO_LONGER_LEADS = "no longer leads shard ";

  /**
   * The start of the event line printed when this peer hears from a shard's new leader (another
   * peer): at its start, after a restart (it rejoined), or after an election.
   */
  public static final String FOLLOWS = "follows shard ";

  /**
   * The start of the event line printed when this peer hands a shard's leadership to the shard's
   * preferred leader ({@link #preferredLeader}).
   */
  public static final String HANDS = "hands shard ";

  /** How long a leader serves before it hands its shard to the preferred leader. */
  static final java.time.Duration HAND_OVER_AFTER = java.time.Duration.ofSeconds(2);

  /** The least time between two hand-overs of one shard by this peer. */
  static final java.time.Duration HAND_OVER_RETRY = java.time.Duration.ofSeconds(10);

  /**
   * The start of the event line printed when this peer gives up a shard whose requests wait too
   * long in its log ({@link Shard#stepDownIfStalled}).
   */
  public static final String GIVES_UP = "gives up shard ";

  /** A preferred leader this far behind the leader's commit index (or further) is not caught up. */
  static final long HAND_OVER_MAX_LAG = 16;

  private final ClusterFile file;
  private final RatisPeer peer;
  private final Consumer<Runtime> objects;
  private final Consumer<Runtime> warmUp;
  private final Consumer<String> events;
  private final Shard[] shards;
  private final ScheduledExecutorService checker;
  private final HttpObjectServer server;

  /** Calls to objects of shards other peers lead (null with one shard: every object is local). */
  private final RoutingObjectTransport peers;

  /** Calls from a shard's objects to objects of another shard ({@link Runtime.Placement}). */
  private final ObjectTransport crossShard = new CrossShard();

  private ClusterNode(Builder b) {
    this.file = b.file;
    this.objects = b.objects;
    this.warmUp = b.warmUp;
    this.events = b.events;
    this.peer = RatisPeer.start(file.config(), b.id, b.dataDir, b.options);
    this.shards = new Shard[file.config().shards()];
    RoutingObjectTransport.Builder routing = null;
    if (shards.length > 1) {
      routing = RoutingObjectTransport.builder(List.copyOf(file.http().values()));
      try {
        b.peerCalls.accept(routing);
      } catch (RuntimeException e) {
        peer.close();
        throw e;
      }
    }
    this.peers = routing == null ? null : routing.build();
    this.checker =
        Executors.newSingleThreadScheduledExecutor(
            r -> Thread.ofPlatform().daemon().name("anteroom-cluster-check").unstarted(r));
    HttpObjectServer started = null;
    try {
      for (int s = 0; s < shards.length; s++) shards[s] = new Shard(s);
      ShardLeaderLookup leaders = new ShardLeaderLookup(peer, file.http());
      URI self = file.http().get(b.id);
      HttpObjectServer.Builder server =
          HttpObjectServer.builder(new Dispatcher())
              .host(self.getHost())
              .port(self.getPort())
              .leaderLookup(
                  (namespace, id) -> {
                    int shard = shardOf(namespace, id);
                    LeaderLookup.Leader leader = leaders.leaderOf(namespace, id);
                    if (leader.self() && shards[shard].runtime == null) {
                      leader = LeaderLookup.Leader.UNKNOWN; // elected, runtime not up yet
                    }
                    if (!leader.self()) peer.counters(shard).misdirected(); // answered 421
                    return leader;
                  });
      b.server.accept(server);
      started = server.start();
      this.server = started;
      for (Shard shard : shards) shard.start();
      Thread.ofVirtual().name("anteroom-codec-warm-up").start(this::primeCodec);
      checker.scheduleWithFixedDelay(
          () -> {
            boolean leaderless = false;
            for (Shard shard : shards) leaderless |= shard.check();
            for (Shard shard : shards) shard.handOver();
            for (Shard shard : shards) shard.stepDownIfStalled();
            // during an election, let votes reach peers whose channels back off after an outage
            if (leaderless) peer.resetConnectBackoff();
            // as a leader, do not wait out TCP's retransmission back-off on a silent connection
            peer.reconnectSilentFollowers();
          },
          250,
          250,
          TimeUnit.MILLISECONDS);
    } catch (RuntimeException e) {
      checker.shutdownNow();
      for (Shard shard : shards) if (shard != null) shard.stop();
      if (started != null) started.close();
      if (peers != null) peers.close();
      try {
        peer.close();
      } catch (RuntimeException closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
  }

  /**
   * Prepares the objects' codec for every call of their namespaces ({@link Runtime#primeCodec}) and
   * runs the {@link Builder#warmUp} calls, on a runtime in memory built for that alone, so that
   * this peer, once elected, answers its first calls about as fast as the next ones: in the fault
   * suite a new leader's first calls took about a second more while the JVM loaded, introspected
   * and ran for the first time the objects' code and the types of their arguments
   * (docs/cluster.md).
   */
  private void primeCodec() {
    long began = System.nanoTime();
    try (Runtime dry = Runtime.builder().storage(new InMemoryStorageEngine()).build()) {
      objects.accept(dry);
      int prepared = dry.primeCodec();
      long primed = System.nanoTime();
      warmUp.accept(dry);
      LOG.debug(
          "peer {}: codec prepared for {} types of the objects' calls in {} ms, objects warmed up"
              + " in {} ms",
          peer.id(),
          prepared,
          TimeUnit.NANOSECONDS.toMillis(primed - began),
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - primed));
    } catch (RuntimeException e) {
      // the first calls prepare what they need, a little later
      LOG.warn(
          "peer {}: warming up the objects' code failed (its first calls as a leader will be"
              + " slower): {}",
          peer.id(),
          e.toString());
    }
  }

  /**
   * A node of the cluster in {@code file}, as peer {@code id} (which must be in the file), keeping
   * its Raft log and shard copies under {@code dataDir}.
   */
  public static Builder builder(ClusterFile file, String id, Path dataDir) {
    return new Builder(file, id, dataDir);
  }

  /** The shard of object {@code id} of {@code namespace} ({@link ClusterConfig#shardOf}). */
  public int shardOf(String namespace, ObjectId id) {
    return file.config().shardOf(namespace + "/" + id);
  }

  /**
   * The peer that should lead {@code shard} when it can, so that the leaders of several shards (and
   * the rooms on them) spread over the peers: the shard's members in turn, by id (shard {@code s}:
   * the member at {@code s mod members}); none with one shard, where a restarted peer does not take
   * the leadership back. The members are the live ones ({@link RatisPeer#members}): after a peer is
   * added, removed or replaced online, the shards spread over the new membership.
   */
  public static java.util.Optional<String> preferredLeader(
      int shards, List<String> members, int shard) {
    if (shards == 1 || members.isEmpty()) return java.util.Optional.empty();
    List<String> sorted = members.stream().sorted().toList();
    return java.util.Optional.of(sorted.get(shard % sorted.size()));
  }

  /** {@link #preferredLeader(int, List, int)} with the peer's live membership of {@code shard}. */
  public static java.util.Optional<String> preferredLeader(RatisPeer peer, int shard) {
    return preferredLeader(
        peer.config().shards(),
        peer.members(shard).stream().map(ClusterConfig.Peer::id).toList(),
        shard);
  }

  /** This node's peer (its shards' engines, leadership and progress). */
  public RatisPeer peer() {
    return peer;
  }

  /** The cluster file this node runs. */
  public ClusterFile file() {
    return file;
  }

  /** The object server's base URI as bound. */
  public URI uri() {
    return server.uri();
  }

  /** The object server. */
  public HttpObjectServer server() {
    return server;
  }

  /**
   * Whether this node runs a runtime for {@code shard} now (it is the shard's ready leader). Its
   * {@code leads shard} line is written before this turns true.
   */
  public boolean serves(int shard) {
    return shards[shard].runtime != null;
  }

  /** How many runtimes this node has started on {@code shard} since it started. */
  public long runtimesStarted(int shard) {
    return shards[shard].started.get();
  }

  /** A snapshot of every shard's Raft state on this peer. */
  public ClusterStatus status() {
    return ClusterStatus.of(this);
  }

  /** Stops serving: the object server (calls in flight finish), the runtimes, then the peer. */
  @Override
  public void close() {
    checker.shutdownNow();
    RuntimeException failure = null;
    try {
      server.close();
    } catch (RuntimeException e) {
      failure = e;
    }
    for (Shard shard : shards) shard.stop();
    try {
      if (peers != null) peers.close();
    } catch (RuntimeException e) {
      if (failure == null) failure = e;
      else failure.addSuppressed(e);
    }
    try {
      peer.close();
    } catch (RuntimeException e) {
      if (failure == null) failure = e;
      else failure.addSuppressed(e);
    }
    if (failure != null) throw failure;
  }

  /**
   * Where an object calls an object of another shard: that shard's runtime on this peer when this
   * peer serves it, otherwise the shard's leader through the routing transport (which follows 421
   * answers and sends a call again only when it certainly did not run).
   */
  private final class CrossShard implements ObjectTransport {
    @Override
    public CompletableFuture<byte[]> call(
        String namespace, ObjectId id, String method, byte[] encodedArgs) {
      Runtime local = shards[shardOf(namespace, id)].runtime;
      if (local != null) return local.transport().call(namespace, id, method, encodedArgs);
      return peers.call(namespace, id, method, encodedArgs);
    }
  }

  /** The object server's transport: each call goes to the runtime of its object's shard. */
  private final class Dispatcher implements ObjectTransport {
    @Override
    public CompletableFuture<byte[]> call(
        String namespace, ObjectId id, String method, byte[] encodedArgs) {
      int shard = shardOf(namespace, id);
      Runtime runtime = shards[shard].runtime;
      if (runtime == null) {
        // 503 (IllegalStateException): leadership moved after the lookup; the call did not run
        return CompletableFuture.failedFuture(
            new IllegalStateException(
                "peer "
                    + peer.id()
                    + " no longer serves shard "
                    + shard
                    + "; the call was not run"));
      }
      return runtime.transport().call(namespace, id, method, encodedArgs);
    }

    /** The runtime of the object's shard on this peer, in group {@code shard-<n>}. */
    @Override
    public java.util.Optional<io.anteroom.objects.Incarnation> incarnation(
        String namespace, ObjectId id) {
      int shard = shardOf(namespace, id);
      Runtime runtime = shards[shard].runtime;
      return runtime == null
          ? java.util.Optional.empty()
          : java.util.Optional.of(
              new io.anteroom.objects.Incarnation("shard-" + shard, runtime.incarnation().id()));
    }
  }

  /** The runtime of one shard, built and closed on one thread in the order of the changes. */
  private final class Shard {
    final int shard;
    final ReplicatedStorageEngine watch;
    final ExecutorService lifecycle;
    final AtomicLong started = new AtomicLong();
    volatile Runtime runtime;
    long runtimeTerm = -1;

    /** When this peer's runtime of the shard started, and when it last handed the shard over. */
    volatile long leadingSince;

    long lastHandOver;

    /**
     * The leader and term of the last follows line ({@code leader@term}); written on the lifecycle
     * thread, read by the check too.
     */
    volatile String lastFollowed;

    Shard(int shard) {
      this.shard = shard;
      this.watch = peer.engine(shard);
      this.lifecycle =
          Executors.newSingleThreadExecutor(
              r ->
                  Thread.ofPlatform()
                      .daemon()
                      .name("anteroom-shard-" + shard + "-lifecycle")
                      .unstarted(r));
    }

    void start() {
      watch.addLeaderListener(
          change ->
              submit(
                  () -> {
                    if (change.ready()) lead();
                    else {
                      lose(
                          "leader change, term "
                              + change.term()
                              + ", leader "
                              + change.leader().orElse("unknown"));
                      if (!change.thisPeerLeads()) change.leader().ifPresent(this::follow);
                    }
                  }));
      submit(this::reconcile); // it may have been elected before the listener was added
    }

    /** The objects of this shard are served here, the others through {@link CrossShard}. */
    final Runtime.Placement placement =
        new Runtime.Placement() {
          @Override
          public boolean here(String namespace, ObjectId id) {
            return shardOf(namespace, id) == shard;
          }

          @Override
          public ObjectTransport elsewhere() {
            return crossShard;
          }
        };

    /**
     * As the shard's serving leader for {@link #HAND_OVER_AFTER}, hands the shard to its preferred
     * leader once that one answers and is caught up (a transfer of leadership: calls meanwhile are
     * answered 421 and retried by the routing transport), at most once per {@link
     * #HAND_OVER_RETRY}. Runs on the checker thread; the transfer on its own thread.
     */
    void handOver() {
      if (runtime == null) return;
      long now = System.nanoTime();
      if (now - leadingSince < HAND_OVER_AFTER.toNanos()) return;
      if (lastHandOver != 0 && now - lastHandOver < HAND_OVER_RETRY.toNanos()) return;
      String preferred;
      try {
        preferred = preferredLeader(peer, shard).filter(p -> !p.equals(peer.id())).orElse(null);
        if (preferred == null) return;
        Long quiet = watch.followerQuietMillis().get(preferred);
        Map<String, Long> commits = watch.commitIndices();
        Long mine = commits.get(peer.id());
        Long theirs = commits.get(preferred);
        if (quiet == null || quiet > peer.options().electionTimeoutMin().toMillis()) return;
        if (mine == null || theirs == null || mine - theirs >= HAND_OVER_MAX_LAG) return;
      } catch (RuntimeException e) {
        return; // closing, or not the leader any more
      }
      lastHandOver = now;
      events.accept(
          "peer "
              + peer.id()
              + " "
              + HANDS
              + shard
              + " to "
              + preferred
              + ", its preferred leader (it answers and is caught up)");
      Thread.ofVirtual()
          .name("hand-over-" + shard)
          .start(
              () -> {
                try {
                  watch.transferLeadership(preferred);
                } catch (RuntimeException e) {
                  LOG.warn(
                      "peer {}: handing shard {} to {} failed, trying again in {} s: {}",
                      peer.id(),
                      shard,
                      preferred,
                      HAND_OVER_RETRY.toSeconds(),
                      e.getMessage());
                }
              });
    }

    /** Consecutive checks that found this leader slow ({@link #stepDownIfStalled}). */
    private int lateChecks;

    /**
     * As the shard's serving leader, hands the shard to the most caught-up follower that answers
     * when this peer cannot serve it, though it still sends heartbeats (so no election would come):
     *
     * <ul>
     *   <li>its own copy is slow: with requests waiting, applying one entry to it has taken at
     *       least half the minimal election timeout (250 ms by default; a few ms on a healthy disk)
     *       at four checks in a row (1 s). Measured with every {@code fsync} of the leader slowed
     *       to 500 ms: each entry took a sync, calls queued behind them and timed out for as long
     *       as it lasted (10 s outages), while the followers, whose disks were fine, committed;
     *   <li>or a commit or read-index round it sent has waited longer than the maximal election
     *       timeout, at two checks in a row (250 ms apart: after a pause of this JVM the requests
     *       are answered in between).
     * </ul>
     *
     * At most once per {@link #HAND_OVER_RETRY}. Runs on the checker thread; the transfer on its
     * own thread.
     */
    void stepDownIfStalled() {
      if (runtime == null) {
        lateChecks = 0;
        return;
      }
      long now = System.nanoTime();
      long waited;
      long apply;
      try {
        waited = watch.oldestRequestNanos();
        apply = watch.applyNanos();
      } catch (RuntimeException e) {
        return; // closing
      }
      boolean stuck = waited >= peer.options().electionTimeoutMax().toNanos();
      boolean slowCopy = waited > 0 && apply >= peer.options().electionTimeoutMin().toNanos() / 2;
      if (!stuck && !slowCopy) {
        lateChecks = 0;
        return;
      }
      lateChecks++;
      if (!(stuck && lateChecks >= 2) && lateChecks < 4) return;
      if (lastHandOver != 0 && now - lastHandOver < HAND_OVER_RETRY.toNanos()) return;
      String target = null;
      try {
        Map<String, Long> quiet = watch.followerQuietMillis();
        long best = -1;
        for (Map.Entry<String, Long> c : watch.commitIndices().entrySet()) {
          Long q = quiet.get(c.getKey());
          if (c.getKey().equals(peer.id()) || q == null) continue;
          if (q > peer.options().electionTimeoutMin().toMillis()) continue;
          if (c.getValue() > best) {
            best = c.getValue();
            target = c.getKey();
          }
        }
      } catch (RuntimeException e) {
        return; // not the leader any more
      }
      if (target == null) return; // no follower to take it: serving late beats not serving
      lastHandOver = now;
      lateChecks = 0;
      String to = target;
      String line =
          "peer "
              + peer.id()
              + " "
              + GIVES_UP
              + shard
              + " to "
              + to
              + ": its oldest request to the shard's log has waited "
              + java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(waited)
              + " ms and applying an entry to its copy takes "
              + java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(apply)
              + " ms, while "
              + to
              + " answers and is caught up (is this peer's disk slow?)";
      try {
        events.accept(line);
      } catch (RuntimeException e) {
        LOG.warn("the event sink failed on \"{}\": {}", line, e.toString());
      }
      Thread.ofVirtual()
          .name("give-up-" + shard)
          .start(
              () -> {
                try {
                  watch.transferLeadership(to);
                } catch (RuntimeException e) {
                  LOG.warn(
                      "peer {}: giving shard {} to {} failed, trying again in {} s: {}",
                      peer.id(),
                      shard,
                      to,
                      HAND_OVER_RETRY.toSeconds(),
                      e.getMessage());
                }
              });
    }

    /** Repairs a missed change; returns whether this peer knows no leader of the shard. */
    boolean check() {
      boolean ready;
      boolean leaderless;
      java.util.Optional<String> leader;
      long term;
      try {
        ready = watch.isLeaderReady();
        leader = watch.leader();
        term = watch.term();
        leaderless = leader.isEmpty() || "CANDIDATE".equals(watch.role());
      } catch (RuntimeException e) {
        return false; // closing
      }
      if (ready != (runtime != null)) submit(this::reconcile);
      // a leader learned before the listener was added (a restarted peer hears from it at once)
      // has had no change to report: its follows line is written from here
      if (!ready
          && leader.isPresent()
          && !leader.get().equals(peer.id())
          && !(leader.get() + "@" + term).equals(lastFollowed)) {
        String l = leader.get();
        submit(() -> follow(l));
      }
      return leaderless;
    }

    private void submit(Runnable task) {
      try {
        lifecycle.execute(
            () -> {
              try {
                task.run();
              } catch (RuntimeException e) {
                LOG.warn("shard {} on peer {}: {}", shard, peer.id(), e.toString(), e);
              }
            });
      } catch (java.util.concurrent.RejectedExecutionException e) {
        // stopping
      }
    }

    private void reconcile() {
      if (watch.isLeaderReady()) lead();
      else if (runtime != null) lose("not the ready leader any more");
    }

    /** This peer became the ready leader: a fresh runtime unless one of this term runs already. */
    private void lead() {
      long term = watch.term();
      if (!watch.isLeaderReady()) return; // lost again already; a later change says so
      if (runtime != null && runtimeTerm == term) return;
      if (runtime != null) lose("re-elected in term " + term);
      ReplicatedStorageEngine engine = peer.engine(shard);
      Runtime r;
      try {
        Runtime.Builder runtime = Runtime.builder().storage(engine);
        if (shards.length > 1) runtime.placement(placement);
        r = runtime.build();
      } catch (RuntimeException e) {
        engine.close(); // e.g. deposed while building: a later change or the check retries
        throw e;
      }
      try {
        objects.accept(r);
      } catch (RuntimeException e) {
        r.close();
        throw e;
      }
      // the line first: whoever sees this node serve (serves(), a call answered) finds it written;
      // a sink that fails costs the line, not the service
      String line =
          "peer " + peer.id() + " " + LEADS + shard + " (term " + term + "): serving its objects";
      try {
        events.accept(line);
      } catch (RuntimeException e) {
        LOG.warn("the event sink failed on \"{}\": {}", line, e.toString(), e);
      }
      runtimeTerm = term;
      leadingSince = System.nanoTime();
      runtime = r;
      started.incrementAndGet();
    }

    /**
     * Another peer leads: one line per leader and term (Ratis may report a leader more than once).
     */
    private void follow(String leader) {
      long term;
      try {
        if (!watch.leader().equals(java.util.Optional.of(leader))) return; // changed since
        term = watch.term();
      } catch (RuntimeException e) {
        return; // closing
      }
      String followed = leader + "@" + term;
      if (followed.equals(lastFollowed)) return;
      lastFollowed = followed;
      events.accept(
          "peer "
              + peer.id()
              + " "
              + FOLLOWS
              + shard
              + " (leader "
              + leader
              + ", term "
              + term
              + "): a follower, calls for its objects go to the leader");
    }

    /** Closes the runtime, if any: alarms first, then it waits for its objects to go idle. */
    private void lose(String why) {
      Runtime r = runtime;
      if (r == null) return;
      runtime = null;
      try {
        r.close();
      } catch (RuntimeException e) {
        // a deposed leader cannot flush; its callers already got errors
        LOG.debug("closing the runtime of shard {}: {}", shard, e.toString());
      }
      events.accept(
          "peer " + peer.id() + " " + NO_LONGER_LEADS + shard + " (" + why + "): runtime closed");
    }

    void stop() {
      submit(() -> lose("stopping"));
      lifecycle.shutdown();
      try {
        if (!lifecycle.awaitTermination(60, TimeUnit.SECONDS)) lifecycle.shutdownNow();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      watch.close();
    }
  }

  /** Options of a {@link ClusterNode}; {@link #start()} starts it. */
  public static final class Builder {
    private final ClusterFile file;
    private final String id;
    private final Path dataDir;
    private PeerOptions options = PeerOptions.defaults();
    private Consumer<Runtime> objects = r -> {};
    private Consumer<Runtime> warmUp = r -> {};
    private Consumer<HttpObjectServer.Builder> server = s -> {};
    private Consumer<String> events = LOG::info;
    private Consumer<RoutingObjectTransport.Builder> peerCalls = r -> {};

    private Builder(ClusterFile file, String id, Path dataDir) {
      this.file = Objects.requireNonNull(file, "file");
      this.id = Objects.requireNonNull(id, "id");
      this.dataDir = Objects.requireNonNull(dataDir, "dataDir");
      file.peer(id); // an id the file does not have fails here, naming the ids it has
    }

    /** The peer's Raft options (default {@link PeerOptions#defaults()}). */
    public Builder options(PeerOptions options) {
      this.options = Objects.requireNonNull(options, "options");
      return this;
    }

    /**
     * Runs once at the node's start on a runtime of its own, in memory, after {@link #objects}
     * registered the namespaces there and the codec was prepared: calls that load and run the
     * objects' code, so that this peer's first calls as a new leader do not (measured: a room
     * counter's first draw in a JVM that never ran it took 0.37-0.53 s even with the codec
     * prepared, the next new counter's 3-6 ms). Its writes go to that runtime only; a failure is
     * logged and nothing more. Default: nothing.
     */
    public Builder warmUp(Consumer<Runtime> calls) {
      this.warmUp = Objects.requireNonNull(calls, "calls");
      return this;
    }

    /**
     * Registers the namespaces on each new runtime (called once per runtime, before any call), and
     * once at the start on the runtime of {@link #warmUp}.
     */
    public Builder objects(Consumer<Runtime> register) {
      this.objects = Objects.requireNonNull(register, "register");
      return this;
    }

    /**
     * Sets the object server's options: exports, secret, TLS; host and port default to this peer's
     * {@code http} address in the file. The leader lookup is set by the node.
     */
    public Builder server(Consumer<HttpObjectServer.Builder> options) {
      this.server = Objects.requireNonNull(options, "options");
      return this;
    }

    /**
     * Sets the options (secret, trust, timeout) of the transport by which objects call objects of
     * other shards at the peers' object servers (the {@code http} addresses of the file); used with
     * more than one shard. The servers must export the namespaces so called.
     */
    public Builder peerCalls(Consumer<RoutingObjectTransport.Builder> options) {
      this.peerCalls = Objects.requireNonNull(options, "options");
      return this;
    }

    /** Where the operator's event lines go (default: this class's logger, INFO). */
    public Builder events(Consumer<String> sink) {
      this.events = Objects.requireNonNull(sink, "sink");
      return this;
    }

    /**
     * Starts the peer, the object server and the shard watchers.
     *
     * @throws IllegalArgumentException for a bad configuration
     * @throws IllegalStateException or {@link java.io.UncheckedIOException} if a port cannot be
     *     bound or the data directory used
     */
    public ClusterNode start() {
      return new ClusterNode(this);
    }
  }

  /** The shards' runtimes, for {@link ClusterStatus}. */
  List<Boolean> serving() {
    List<Boolean> out = new ArrayList<>();
    for (Shard s : shards) out.add(s.runtime != null);
    return out;
  }

  Map<String, URI> http() {
    return file.http();
  }
}
