package io.anteroom.objects.ratis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupManagementRequest;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.statemachine.StateMachine;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/**
 * One server of a replicated coordinator: a Ratis server that takes part in every shard's Raft
 * group of a {@link ClusterConfig}, keeping its own copy of each shard (SQLite by default) under
 * its data directory.
 *
 * <p>Layout of {@code dataDir}: {@code raft/} (Ratis: one directory per group with its log,
 * metadata and snapshots) and {@code shards/<n>/objects.db} (the copy of shard {@code n}). The
 * config is the bootstrap membership: a peer started on an empty directory joins the groups with
 * the config's peers; a restarted peer recovers them from {@code raft/}, with the membership of its
 * log (changed online by {@link ClusterAdmin}), and catches up from the leader's log or, if the
 * leader purged it, from a snapshot.
 *
 * <pre>{@code
 * ClusterConfig config = new ClusterConfig("coordinator", peers, 1);
 * try (RatisPeer peer = RatisPeer.start(config, "a", Path.of("data/a"), PeerOptions.defaults())) {
 *     ReplicatedStorageEngine engine = peer.engine(0);
 *     // once engine.isLeaderReady(): Runtime.builder().storage(engine).build()
 * }
 * }</pre>
 */
public final class RatisPeer implements AutoCloseable {
  private final ClusterConfig config;
  private final ClusterConfig.Peer self;
  private final Path dataDir;
  private final PeerOptions options;
  private final Map<RaftGroupId, Integer> shardsByGroup = new HashMap<>();
  private final Map<Integer, ShardStateMachine> machines = new ConcurrentHashMap<>();

  /** Each shard's leader listeners, kept across the machines a restarted division gets. */
  private final Map<Integer, List<java.util.function.Consumer<LeaderChange>>> listeners =
      new ConcurrentHashMap<>();

  /** The shards whose division is being restarted after a storage failure. */
  private final java.util.Set<Integer> restarting = ConcurrentHashMap.newKeySet();

  private volatile boolean closing;
  private final ShardCounters[] counters;
  private final ClientId adminClient = ClientId.randomId();
  private final AtomicLong adminCalls = new AtomicLong();
  private final RaftServer server;

  private RatisPeer(ClusterConfig config, String selfId, Path dataDir, PeerOptions options)
      throws IOException {
    this.config = config;
    this.self = config.peer(selfId);
    this.dataDir = dataDir;
    this.options = options;
    for (int shard = 0; shard < config.shards(); shard++) shardsByGroup.put(groupId(shard), shard);
    this.counters = new ShardCounters[config.shards()];
    for (int shard = 0; shard < counters.length; shard++) counters[shard] = new ShardCounters();
    Files.createDirectories(dataDir.resolve("raft"));
    checkShardCount(config, selfId, dataDir.resolve("raft"));
    this.server =
        RaftServer.newBuilder()
            .setServerId(RaftPeerId.valueOf(self.id()))
            .setProperties(properties())
            .setParameters(parameters())
            .setStateMachineRegistry(this::newStateMachine)
            .build();
  }

  /**
   * The file in {@code raft/} that records the shard count the directory's groups were made for.
   */
  static final String SHARDS_FILE = "anteroom-shards";

  /**
   * Refuses a data directory made for another shard count: each object's shard is a hash of its
   * name modulo the count, so with another count the objects would be looked for in shards that do
   * not hold them (a room's counters and state would start afresh). The count is recorded in {@code
   * raft/anteroom-shards} once the peer has joined its groups; a directory from before that file is
   * judged by its groups.
   */
  static void checkShardCount(ClusterConfig config, String selfId, Path raft) throws IOException {
    Path recorded = raft.resolve(SHARDS_FILE);
    int had;
    if (Files.exists(recorded)) {
      had = Integer.parseInt(Files.readString(recorded).strip());
    } else {
      java.util.Set<String> groups = new java.util.HashSet<>();
      try (var dirs = Files.list(raft)) {
        dirs.filter(Files::isDirectory).forEach(d -> groups.add(d.getFileName().toString()));
      }
      had = 0;
      while (had < 4096
          && groups.contains(ClusterConfig.groupUuid(config.name(), had).toString())) {
        had++;
      }
      if (had == 0) return; // a new (or emptied) directory: no objects to lose
    }
    if (had != config.shards()) {
      throw new IllegalStateException(
          "peer "
              + selfId
              + ": its data directory "
              + raft.getParent()
              + " holds "
              + had
              + " shard(s) of cluster "
              + config.name()
              + " but the cluster file says shards: "
              + config.shards()
              + ". The shard count of a cluster cannot change while it has data (every object's"
              + " shard would change, and the rooms would start afresh): put shards: "
              + had
              + " back in the file, or follow \"Changing the shard count\" in docs/cluster.md"
              + " (a new cluster on empty directories)");
    }
  }

  /**
   * Starts this peer of {@code config} on {@code dataDir}, and makes it join every shard's group.
   * Returns without waiting for elections: see {@link ReplicatedStorageEngine#isLeaderReady()}.
   *
   * @throws UncheckedIOException if the port cannot be bound or the data directory used
   */
  public static RatisPeer start(
      ClusterConfig config, String selfId, Path dataDir, PeerOptions options) {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(dataDir, "dataDir");
    Objects.requireNonNull(options, "options");
    GrpcLogging.quiet();
    RatisPeer peer;
    try {
      peer = new RatisPeer(config, selfId, dataDir, options);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot create peer "
              + selfId
              + " of cluster "
              + config.name()
              + " in "
              + dataDir
              + ": "
              + e.getMessage(),
          e);
    }
    try {
      peer.server.start();
      peer.joinGroups();
      return peer;
    } catch (IOException | RuntimeException e) {
      try {
        peer.server.close();
      } catch (IOException closeFailure) {
        e.addSuppressed(closeFailure);
      }
      if (e instanceof RuntimeException r) throw r;
      throw new UncheckedIOException(
          "cannot start peer "
              + selfId
              + " of cluster "
              + config.name()
              + " on "
              + peer.self.address()
              + ": "
              + e.getMessage(),
          (IOException) e);
    }
  }

  /**
   * How long a leader's log appender waits after failed appends to one follower: ten quick retries,
   * then a fifth of the shortest election timeout (at most 100 ms) per retry.
   *
   * <p>Ratis' default backs off to 5 s after 30 failures, and every pipelined append to a stopped
   * peer counts, so a peer back after a short outage waited many seconds to be served. Since Ratis
   * 3.3.0 the appender sleeps its back-off before anything else it sends, heartbeats included, and
   * nothing wakes it; a follower's refusals of entries it cannot place yet (INCONSISTENCY) count as
   * failures too. A step longer than the election timeout would leave a follower that is catching
   * up without a word from its leader long enough to stand for election; this policy's longest step
   * leaves room for several. The policy never runs out (Ratis stops backing off once it does): its
   * last step holds for as many failures as an int counts, years of a dead follower.
   */
  static String appenderRetryPolicy(Duration electionTimeoutMin) {
    long stepMillis = Math.max(1, Math.min(100, electionTimeoutMin.toMillis() / 5));
    return "1ms,10, " + stepMillis + "ms," + (Integer.MAX_VALUE - 10);
  }

  private RaftProperties properties() {
    RaftProperties p = new RaftProperties();
    RaftServerConfigKeys.setStorageDir(p, List.of(dataDir.resolve("raft").toFile()));
    GrpcConfigKeys.Server.setHost(p, self.host());
    GrpcConfigKeys.Server.setPort(p, self.port());
    RaftServerConfigKeys.Rpc.setTimeoutMin(p, millis(options.electionTimeoutMin().toMillis()));
    RaftServerConfigKeys.Rpc.setTimeoutMax(p, millis(options.electionTimeoutMax().toMillis()));
    // read-index requests (ReplicatedStorageEngine.confirmReads) are linearizable: the leader
    // confirms it still leads, by its lease when valid (no round trip: followers acked within
    // 0.9 of the minimal election timeout, so none can have elected another leader yet, given
    // bounded clock drift), else by a heartbeat round to a majority
    RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
    RaftServerConfigKeys.Read.setLeaderLeaseEnabled(p, true);
    RaftServerConfigKeys.Read.setTimeout(p, millis(options.commitTimeout().toMillis()));
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, options.snapshotEveryEntries());
    RaftServerConfigKeys.Snapshot.setCreationGap(p, 1);
    RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, 2);
    // no snapshot on a clean stop: a restart then takes the same path as after a crash (replay
    // the log, skipping what the copy already has), and stopping does not copy the database
    RaftServerConfigKeys.Snapshot.setTriggerWhenStopEnabled(p, false);
    // purge up to the snapshot even if a peer still needs older entries: it will install the
    // snapshot instead, and a peer that is down for long does not make the log grow without end
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
    // but keep one snapshot interval of log before the snapshot, so that a follower that diverged
    // or lagged within the last interval catches up from the log (the entries it lacks) instead
    // of installing a snapshot (the whole database, sent and swapped in). A deposed leader's
    // uncommitted suffix starts where the new term's log segment starts, which a purge right up
    // to the snapshot would make the first index. Up to Ratis 3.2.2 the margin was also a partial
    // workaround: a leader could not serve a follower whose next index is exactly the first index
    // of its purged log ("Previous TermIndex not found", RATIS-2487) and never restarted that
    // follower's log appender (RATIS-2499), so a follower that lagged further and landed there
    // never caught up; since 3.3.0 the leader installs a snapshot on it (ReplicatedStorageEngine-
    // Test.aStoppedLeaderWhoseNextIndexIsTheFirstIndexOfItsSuccessorsPurgedLogCatchesUp)
    RaftServerConfigKeys.Log.setPurgePreservationLogNum(p, options.snapshotEveryEntries());
    RaftServerConfigKeys.Log.setPurgeGap(p, (int) Math.min(options.snapshotEveryEntries(), 1024));
    // no commit-index metadata entries: Ratis appends one to the log after every advance of the
    // commit index, so half the entries replicated and fsynced on every peer carried no data
    // (measured: +31 % confirmed writes and -27 % CPU per write at 64 callers, docs/benchmarks.md).
    // They only let a restarted peer apply committed entries before it hears from a leader; ours
    // serve nothing until a leader commits in its own term anyway, and the copy keeps what it
    // had applied.
    RaftServerConfigKeys.Log.setLogMetadataEnabled(p, false);
    // a follower appends each of the leader's requests to its log before it takes the next one,
    // as Raft describes it, not on a chain of deferred appends (Ratis' default in 3.2.2 and 3.3.0,
    // append-entries.compose): on that chain a follower counts an entry still waiting to be
    // written as one it holds, so a heartbeat of a new leader can move its commit index onto the
    // entry of the same index that a deposed leader wrote there before (the follower can then
    // apply an entry the cluster never committed, and refuses the new leader's entries there until
    // a snapshot: the likely cause of the follower stuck from the start of the fault suite's run
    // 13, docs/cluster.md); and once one append on the chain failed, every later one failed
    // without being tried (run 11)
    RaftServerConfigKeys.Log.setAppendEntriesComposeEnabled(p, false);
    RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf(options.logSegmentBytes()));
    RaftServerConfigKeys.Log.Appender.setRetryPolicy(
        p, appenderRetryPolicy(options.electionTimeoutMin()));
    // send new entries to a follower at once: Ratis' default waits at least 1 ms between two
    // appends to the same follower, which added up to 1 ms to every commit and capped a shard at
    // about 1,000 log entries per second (measured: +5 to +30 % confirmed writes at 64 callers,
    // docs/benchmarks.md). A slow or lost follower is still not flooded: Ratis waits a heartbeat
    // interval between appends to one that has not answered for rpcSlownessTimeout.
    RaftServerConfigKeys.Log.Appender.setWaitTimeMin(p, TimeDuration.ZERO);
    // an entry larger than the appender's byte limit fails in the leader's log (and cost it its
    // leadership in a probe): raise the limit to the largest entry commit() lets through
    RaftServerConfigKeys.Log.Appender.setBufferByteLimit(
        p, SizeInBytes.valueOf(options.maxEntryBytes()));
    RaftServerConfigKeys.Log.setWriteBufferSize(
        p, SizeInBytes.valueOf(options.maxEntryBytes() + 8L));
    GrpcConfigKeys.setMessageSizeMax(
        p, SizeInBytes.valueOf(Math.max(64L << 20, options.maxEntryBytes() + (1L << 20))));
    return p;
  }

  /** Mutual TLS on the gRPC server and on the channels to the other peers, if configured. */
  private Parameters parameters() {
    Parameters parameters = new Parameters();
    if (options.tls() != null) {
      GrpcTlsConfig tls =
          options.tls().grpc(self.id(), this::peerAt, this::hostOf, this::peersPerHost);
      GrpcConfigKeys.TLS.setConf(parameters, tls);
      GrpcConfigKeys.Server.setTlsConf(parameters, tls);
      GrpcConfigKeys.Admin.setTlsConf(parameters, tls);
      GrpcConfigKeys.Client.setTlsConf(parameters, tls);
      // and a peer's messages are accepted only under the id its certificate names
      PeerIdentity identity = new PeerIdentity(self.id(), this::hostOf, this::peersPerHost);
      GrpcConfigKeys.Server.setServicesCustomizer(
          parameters, (builder, types) -> builder.intercept(identity));
    }
    return parameters;
  }

  private static TimeDuration millis(long ms) {
    return TimeDuration.valueOf(ms, TimeUnit.MILLISECONDS);
  }

  private StateMachine newStateMachine(RaftGroupId groupId) {
    Integer shard = shardsByGroup.get(groupId);
    if (shard == null) {
      throw new IllegalStateException(
          "peer "
              + self.id()
              + " found Raft group "
              + groupId
              + " in "
              + dataDir.resolve("raft")
              + ", which is no shard of cluster "
              + config.name()
              + " ("
              + config.shards()
              + " shards): was the data directory"
              + " used by another cluster, or the shard count changed?");
    }
    ShardStateMachine machine =
        new ShardStateMachine(
            shard,
            () ->
                switch (options.localStorage()) {
                  case SQLITE -> new SqliteReplica(shardDir(shard));
                  case MEMORY -> new MemoryReplica();
                },
            listeners.computeIfAbsent(
                shard, s -> new java.util.concurrent.CopyOnWriteArrayList<>()),
            this::storageFailed);
    machines.put(shard, machine);
    return machine;
  }

  private Path shardDir(int shard) {
    return dataDir.resolve("shards").resolve(Integer.toString(shard));
  }

  /**
   * How much free space a shard's directory needs before a division stopped by a full disk is
   * started again: a log segment and the largest entry (starting it earlier would only fail again).
   */
  long restartFreeBytes() {
    return options.logSegmentBytes() + options.maxEntryBytes();
  }

  /** How long between two tries to start a stopped division again. */
  static final Duration RESTART_EVERY = Duration.ofSeconds(1);

  /**
   * This peer's copy or log of {@code failure.shard()} could not be written: its division stops
   * (Ratis closes it; a leader loses its leadership, and the other peers elect another) and is
   * started again, on its own thread, from this peer's log once the directory can be written: for a
   * full disk, once {@link #restartFreeBytes} are free; otherwise after {@link #RESTART_EVERY}.
   * Started again, the division replays its log into the copy (skipping what the copy has) and
   * catches up from the leader, as after a restart of the process. One line when it stops, one when
   * it serves again; none in between.
   */
  private void storageFailed(ShardStateMachine.StorageFailure failure) {
    int shard = failure.shard();
    if (closing || !restarting.add(shard)) return;
    RESTART_LOG.warn(
        "peer {}: shard {} stops on this peer: it {}{}; this peer starts it again from its log {}",
        self.id(),
        shard,
        failure.what(),
        failure.diskFull() ? " (the disk is full)" : "",
        failure.diskFull()
            ? "once " + (restartFreeBytes() >> 20) + " MB are free in " + shardDir(shard)
            : "in " + RESTART_EVERY.toMillis() + " ms");
    Thread.ofVirtual()
        .name("restart-shard-" + shard)
        .start(() -> restartShard(failure, System.nanoTime()));
  }

  private void restartShard(ShardStateMachine.StorageFailure failure, long since) {
    int shard = failure.shard();
    RaftGroupId id = groupId(shard);
    String lastFailure = null;
    try {
      // close the division (Ratis may be closing it already) and take it out of the server
      RaftClientReply removed =
          server.groupManagement(
              GroupManagementRequest.newRemove(
                  adminClient, server.getId(), adminCalls.incrementAndGet(), id, false, false));
      if (!removed.isSuccess()) lastFailure = String.valueOf(removed.getException());
      for (int attempt = 1; !closing; attempt++) {
        Thread.sleep(RESTART_EVERY); // a retry's pace, not a wait for another thread
        if (failure.diskFull() && usableSpace(shardDir(shard)) < restartFreeBytes()) continue;
        try {
          RaftClientReply reply =
              server.groupManagement(
                  GroupManagementRequest.newAdd(
                      adminClient,
                      server.getId(),
                      adminCalls.incrementAndGet(),
                      RaftGroup.valueOf(id), // recovered from the log, as at a start
                      false));
          if (reply.isSuccess()) {
            machines.get(shard).attach(server.getDivision(id));
            RESTART_LOG.info(
                "peer {}: shard {} started again on this peer after {} ms ({} tries); it catches"
                    + " up from the leader",
                self.id(),
                shard,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since),
                attempt);
            return;
          }
          lastFailure = String.valueOf(reply.getException());
        } catch (IOException | RuntimeException e) {
          lastFailure = ShardStateMachine.rootMessage(e);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException | RuntimeException e) {
      lastFailure = ShardStateMachine.rootMessage(e);
      RESTART_LOG.warn(
          "peer {}: shard {} cannot be started again on this peer: {}; restart the peer",
          self.id(),
          shard,
          lastFailure);
    } finally {
      restarting.remove(shard);
    }
  }

  private static long usableSpace(Path dir) {
    try {
      return Files.getFileStore(dir).getUsableSpace();
    } catch (IOException e) {
      return 0;
    }
  }

  /** Whether {@code shard}'s division on this peer is stopped and being started again. */
  boolean restarting(int shard) {
    return restarting.contains(shard);
  }

  private static final org.slf4j.Logger RESTART_LOG =
      org.slf4j.LoggerFactory.getLogger(RatisPeer.class);

  private void joinGroups() throws IOException {
    List<RaftPeer> peers = config.peers().stream().map(RatisPeer::raftPeer).toList();
    java.util.Set<RaftGroupId> existing = new java.util.HashSet<>();
    server.getGroupIds().forEach(existing::add);
    for (int shard = 0; shard < config.shards(); shard++) {
      RaftGroupId id = groupId(shard);
      if (!existing.contains(id)) {
        RaftClientReply reply =
            server.groupManagement(
                GroupManagementRequest.newAdd(
                    adminClient,
                    server.getId(),
                    adminCalls.incrementAndGet(),
                    // joining: no membership until a leader adds this peer (its appends carry
                    // the configuration); a peer in no configuration never campaigns
                    options.join() ? RaftGroup.valueOf(id) : RaftGroup.valueOf(id, peers)));
        if (!reply.isSuccess())
          throw new IOException(
              "peer " + self.id() + " cannot join shard " + shard + ": " + reply.getException());
      } else {
        reportPersistedMembership(shard);
      }
      machines.get(shard).attach(server.getDivision(id));
    }
    Path recorded = dataDir.resolve("raft").resolve(SHARDS_FILE);
    if (!Files.exists(recorded)) Files.writeString(recorded, config.shards() + "\n");
  }

  /**
   * A restarted peer's membership of a shard comes from its log (the last configuration entry, or
   * the snapshot's): the cluster file only bootstraps an empty data directory. Says so once when
   * the two differ, so that an operator who changed the membership online and kept an old file sees
   * which one counts.
   */
  private void reportPersistedMembership(int shard) throws IOException {
    List<ClusterConfig.Peer> persisted = members(shard);
    java.util.Set<String> fromLog = new java.util.TreeSet<>();
    persisted.forEach(p -> fromLog.add(p.describe()));
    java.util.Set<String> fromFile = new java.util.TreeSet<>();
    config.peers().forEach(p -> fromFile.add(p.describe()));
    if (fromLog.equals(fromFile)) return;
    boolean member = persisted.stream().anyMatch(p -> p.id().equals(self.id()));
    MEMBERSHIP_LOG.warn(
        "peer {}: shard {}'s membership from its log is {}; the cluster file lists {}: the log"
            + " wins (the file only bootstraps an empty data directory; update it when convenient){}",
        self.id(),
        shard,
        fromLog,
        fromFile,
        member
            ? ""
            : "; this peer is not a member any more (it was removed): stop it, and clear its data"
                + " directory before it joins again");
  }

  /** The Raft record of a peer: its id, its Raft address, and its object server's URI. */
  static RaftPeer raftPeer(ClusterConfig.Peer p) {
    RaftPeer.Builder b = RaftPeer.newBuilder().setId(p.id()).setAddress(p.address());
    // the object server's URI rides in the data-stream address, a field Anteroom does not
    // otherwise use (no Ratis data streams): so a peer added online is known to every member,
    // also to one whose cluster file does not list it
    if (p.http() != null) b.setDataStreamAddress(p.http().toString());
    return b.build();
  }

  /** The peer a Raft record names ({@link #raftPeer}'s inverse). */
  static ClusterConfig.Peer peerOf(RaftPeer p) {
    java.net.URI http = null;
    String stream = p.getDataStreamAddress();
    if (stream != null && (stream.startsWith("http://") || stream.startsWith("https://"))) {
      http = java.net.URI.create(stream);
    }
    return ClusterConfig.Peer.parse(p.getId().toString(), p.getAddress(), http);
  }

  /**
   * The voting members of {@code shard} as this peer knows them now (its latest configuration,
   * committed or not), sorted by id; during a membership change, those of the new configuration.
   */
  public List<ClusterConfig.Peer> members(int shard) {
    config.checkShard(shard);
    try {
      return server.getDivision(groupId(shard)).getRaftConf().getCurrentPeers().stream()
          .map(RatisPeer::peerOf)
          .sorted(java.util.Comparator.comparing(ClusterConfig.Peer::id))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "peer " + self.id() + " does not serve shard " + shard + ": " + e.getMessage(), e);
    }
  }

  /**
   * Every peer this one talks to, over all shards: the members of each shard's current and previous
   * configurations (previous: during a change), without this one. Not the file's: a peer removed
   * online may still be listed there.
   */
  private java.util.Set<String> otherPeers() {
    java.util.Set<String> ids = new java.util.TreeSet<>();
    try {
      for (RaftGroupId g : server.getGroupIds()) {
        for (RaftPeer p : server.getDivision(g).getRaftConf().getAllPeers()) {
          ids.add(p.getId().toString());
        }
      }
    } catch (IOException | RuntimeException e) {
      return java.util.Set.of(); // closing
    }
    ids.remove(self.id());
    return ids;
  }

  /**
   * The object server URI of peer {@code id}: from the membership (a peer added online carries it),
   * else from the cluster file.
   */
  public java.util.Optional<java.net.URI> httpOf(String id) {
    try {
      for (RaftGroupId g : server.getGroupIds()) {
        RaftPeer p = server.getDivision(g).getRaftConf().getPeer(RaftPeerId.valueOf(id));
        if (p != null) {
          java.net.URI http = peerOf(p).http();
          if (http != null) return java.util.Optional.of(http);
        }
      }
    } catch (IOException | RuntimeException e) {
      // closing: the file's
    }
    return config.peers().stream()
        .filter(p -> p.id().equals(id))
        .map(ClusterConfig.Peer::http)
        .filter(Objects::nonNull)
        .findFirst();
  }

  /**
   * The Raft host of peer {@code id} in the current membership of any shard (else the file's), for
   * the identity check of {@link PeerIdentity}.
   */
  java.util.Optional<String> hostOf(String id) {
    try {
      for (RaftGroupId g : server.getGroupIds()) {
        RaftPeer p = server.getDivision(g).getRaftConf().getPeer(RaftPeerId.valueOf(id));
        if (p != null) return java.util.Optional.of(peerOf(p).host());
      }
    } catch (IOException | RuntimeException e) {
      // closing: the file's
    }
    return config.peers().stream()
        .filter(p -> p.id().equals(id))
        .map(ClusterConfig.Peer::host)
        .findFirst();
  }

  /** The member (or file peer) whose Raft address is {@code host:port}, if any. */
  java.util.Optional<String> peerAt(String host, int port) {
    try {
      for (RaftGroupId g : server.getGroupIds()) {
        for (RaftPeer p : server.getDivision(g).getRaftConf().getAllPeers()) {
          ClusterConfig.Peer peer = peerOf(p);
          if (peer.port() == port && peer.host().equalsIgnoreCase(host))
            return java.util.Optional.of(peer.id());
        }
      }
    } catch (IOException | RuntimeException e) {
      // closing: the file's
    }
    return config.peers().stream()
        .filter(p -> p.port() == port && p.host().equalsIgnoreCase(host))
        .map(ClusterConfig.Peer::id)
        .findFirst();
  }

  /** How many peers of the membership (and the file) use each Raft host. */
  java.util.Map<String, Integer> peersPerHost() {
    Map<String, String> hostById = new HashMap<>();
    for (ClusterConfig.Peer p : config.peers()) hostById.put(p.id(), p.host());
    try {
      for (RaftGroupId g : server.getGroupIds()) {
        for (RaftPeer p : server.getDivision(g).getRaftConf().getAllPeers()) {
          hostById.put(p.getId().toString(), peerOf(p).host());
        }
      }
    } catch (IOException | RuntimeException e) {
      // closing: the file's
    }
    Map<String, Integer> count = new HashMap<>();
    for (String host : hostById.values()) count.merge(host, 1, Integer::sum);
    return count;
  }

  private static final org.slf4j.Logger MEMBERSHIP_LOG =
      org.slf4j.LoggerFactory.getLogger(RatisPeer.class);

  RaftGroupId groupId(int shard) {
    return RaftGroupId.valueOf(config.groupUuid(shard));
  }

  /** This peer's id. */
  public String id() {
    return self.id();
  }

  public ClusterConfig config() {
    return config;
  }

  public PeerOptions options() {
    return options;
  }

  /** A new view of shard {@code shard} on this peer (each {@code Runtime} closes its own). */
  public ReplicatedStorageEngine engine(int shard) {
    config.checkShard(shard);
    ShardStateMachine machine = machines.get(shard);
    if (machine == null)
      throw new IllegalStateException(
          "peer " + self.id() + " does not serve shard " + shard + " (closed?)");
    return new ReplicatedStorageEngine(this, shard, groupId(shard));
  }

  /** The state machine of {@code shard}'s current division on this peer. */
  ShardStateMachine machine(int shard) {
    ShardStateMachine machine = machines.get(shard);
    if (machine == null)
      throw new IllegalStateException(
          "peer " + self.id() + " does not serve shard " + shard + " (closed?)");
    return machine;
  }

  /** The view of the shard that holds {@code object} ({@link ClusterConfig#shardOf}). */
  public ReplicatedStorageEngine engineFor(String object) {
    return engine(config.shardOf(object));
  }

  /** The counters of {@code shard} on this peer (421 answers, fencing). */
  ShardCounters counters(int shard) {
    return counters[shard];
  }

  RaftServer server() {
    return server;
  }

  private volatile boolean backoffResetUnavailable;

  /** Whether {@link #resetConnectBackoff()} reaches Ratis' gRPC channels (for tests). */
  boolean canResetConnectBackoff() {
    return !backoffResetUnavailable;
  }

  /**
   * Makes this peer's gRPC channels to the other peers that are waiting out a reconnect back-off
   * try again now. gRPC backs a failed channel off exponentially (up to two minutes); Ratis resets
   * it for its log appenders but not for votes, so a candidate could not reach a peer that was down
   * a while ago and is back, and an election needing that peer's vote stalled for the back-off. A
   * channel that is connected or idle is left alone. Best effort (it reaches into Ratis' gRPC
   * transport); a no-op if that is not possible.
   */
  public void resetConnectBackoff() {
    if (backoffResetUnavailable) return;
    try {
      if (!(server.getServerRpc()
          instanceof org.apache.ratis.server.RaftServerRpcWithProxy<?, ?> rpc)) {
        backoffResetUnavailable = true;
        return;
      }
      for (String other : otherPeers()) {
        Object proxy = rpc.getProxies().getProxy(RaftPeerId.valueOf(other));
        java.lang.reflect.Method reset = proxy.getClass().getMethod("resetConnectBackoff");
        reset.setAccessible(true); // public method of a package-private Ratis class
        reset.invoke(proxy);
      }
    } catch (IOException e) {
      // a proxy could not be created now: the next check tries again
    } catch (ReflectiveOperationException | RuntimeException e) {
      backoffResetUnavailable = true;
      org.slf4j.LoggerFactory.getLogger(RatisPeer.class)
          .warn(
              "peer {}: cannot reset gRPC reconnect back-off ({}); elections may wait",
              self.id(),
              e.toString());
    }
  }

  /** Followers whose channels are being replaced now (one replacement at a time each). */
  private final java.util.Set<String> reconnecting = ConcurrentHashMap.newKeySet();

  /** When each follower's channels were last replaced (System.nanoTime()). */
  private final Map<String, Long> lastReconnect = new ConcurrentHashMap<>();

  /** How many times each follower's channels were replaced since this peer started. */
  private final Map<String, AtomicLong> reconnects = new ConcurrentHashMap<>();

  /** The followers that have not answered for {@link #silence()}, as last seen. */
  private final java.util.Set<String> silentFollowers = ConcurrentHashMap.newKeySet();

  /**
   * How long a follower may go without answering this peer, as the leader of some shard, before its
   * channels are replaced ({@link #reconnectSilentFollowers}): three maximal election timeouts (3 s
   * by default), well above the pauses of a busy follower.
   */
  Duration silence() {
    return options.electionTimeoutMax().multipliedBy(3);
  }

  /**
   * As the leader of some shard, replaces this peer's gRPC channels (new TCP connections) to each
   * follower that has not answered it for {@link #silence()}, again every {@link #silence()} while
   * it stays silent; returns the followers it started to reconnect to now.
   *
   * <p>Why: a link cut without a reset (a partition, a pulled cable) leaves the connection to the
   * follower established but silent. Ratis' log appender times out each append yet keeps its gRPC
   * stream, and gRPC has no keepalive on these channels, so the appends go on queueing on that
   * connection while TCP retransmits with an exponential back-off (13 s between two tries after 20
   * s of loss). When the link is back, nothing reaches the follower until the next retransmission:
   * a deposed leader cut off for 20 s knew no leader for 5-13 s after its link returned. A new
   * connection instead tries again within a second or two (SYN retransmissions) once the link is
   * back. Closing the old channels fails the appender's streams, and Ratis opens new ones on the
   * new channels. Best effort; the closing runs on its own thread (gRPC waits for the old
   * channels).
   */
  public java.util.List<String> reconnectSilentFollowers() {
    if (!(server.getServerRpc()
        instanceof org.apache.ratis.server.RaftServerRpcWithProxy<?, ?> rpc)) {
      return java.util.List.of();
    }
    long silenceMs = silence().toMillis();
    Map<String, Long> quietMs = new HashMap<>(); // per follower: the least time since an answer
    try {
      for (RaftGroupId g : server.getGroupIds()) {
        RaftServer.Division d = server.getDivision(g);
        if (!d.getInfo().isLeader()) continue;
        org.apache.ratis.proto.RaftProtos.RoleInfoProto role = d.getInfo().getRoleInfoProto();
        if (!role.hasLeaderInfo()) continue;
        for (var f : role.getLeaderInfo().getFollowerInfoList()) {
          quietMs.merge(f.getId().getId().toStringUtf8(), f.getLastRpcElapsedTimeMs(), Math::min);
        }
      }
    } catch (IOException | RuntimeException e) {
      return java.util.List.of(); // a group closing: the next check looks again
    }
    java.util.List<String> started = new java.util.ArrayList<>();
    long now = System.nanoTime();
    for (String id : otherPeers()) {
      Long quiet = quietMs.get(id);
      if (quiet == null || quiet < silenceMs) {
        if (silentFollowers.remove(id) && quiet != null) {
          RECONNECT_LOG.info("peer {}: follower {} answers again", self.id(), id);
        }
        continue;
      }
      Long last = lastReconnect.get(id);
      if (last != null && now - last < silence().toNanos()) continue;
      if (!reconnecting.add(id)) continue; // the last replacement is still closing
      lastReconnect.put(id, now);
      if (silentFollowers.add(id)) {
        RECONNECT_LOG.warn(
            "peer {}: follower {} has not answered for {} ms; replacing the connections to it"
                + " every {} ms while it stays silent (a partition or a stopped peer)",
            self.id(),
            id,
            quiet,
            silence().toMillis());
      }
      started.add(id);
      Thread.ofVirtual()
          .name("reconnect-" + self.id() + "-" + id)
          .start(
              () -> {
                try {
                  rpc.getProxies().resetProxy(RaftPeerId.valueOf(id));
                  reconnects.computeIfAbsent(id, k -> new AtomicLong()).incrementAndGet();
                } catch (RuntimeException e) {
                  RECONNECT_LOG.warn(
                      "peer {}: replacing the connections to {} failed: {}",
                      self.id(),
                      id,
                      e.toString());
                } finally {
                  reconnecting.remove(id);
                }
              });
    }
    return started;
  }

  /** How many times this peer replaced its channels to {@code peerId} (for tests). */
  long reconnectsTo(String peerId) {
    AtomicLong n = reconnects.get(peerId);
    return n == null ? 0 : n.get();
  }

  /** The gRPC client this peer uses for {@code peerId} now (its identity, for tests). */
  Object channelsTo(String peerId) throws IOException {
    return ((org.apache.ratis.server.RaftServerRpcWithProxy<?, ?>) server.getServerRpc())
        .getProxies()
        .getProxy(RaftPeerId.valueOf(peerId));
  }

  private static final org.slf4j.Logger RECONNECT_LOG =
      org.slf4j.LoggerFactory.getLogger(RatisPeer.class);

  /** Stops serving every shard: in-flight commits fail; the data stays for a restart. */
  @Override
  public void close() {
    closing = true;
    try {
      server.close();
    } catch (IOException e) {
      throw new UncheckedIOException("closing peer " + self.id() + " failed: " + e.getMessage(), e);
    }
  }

  @Override
  public String toString() {
    return "RatisPeer[" + self.id() + " of " + config.name() + " at " + self.address() + "]";
  }
}
