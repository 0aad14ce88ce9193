package io.anteroom.objects.ratis;

import io.anteroom.objects.storage.KeyRange;
import io.anteroom.objects.storage.StorageEngine;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.ratis.metrics.MetricRegistries;
import org.apache.ratis.metrics.MetricRegistryInfo;
import org.apache.ratis.metrics.RatisMetrics;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SnapshotManagementRequest;
import org.apache.ratis.protocol.TransferLeadershipRequest;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.metrics.LeaderElectionMetrics;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * A {@link StorageEngine} whose commits are replicated through one shard's Raft group; this peer's
 * local copy of the shard serves the reads. Obtained from {@link RatisPeer#engine(int)}; hand it to
 * a {@code Runtime} on the shard's leader.
 *
 * <p>Guarantees:
 *
 * <ul>
 *   <li>{@link #commit} returns only once the group-commit is committed on a majority of the
 *       shard's peers (each fsyncs its log) <em>and</em> applied to this peer's local copy, so a
 *       read after it sees it. All batches of one call form one log entry, applied atomically on
 *       every peer.
 *   <li>{@link #commit} throws unless this peer is the shard's leader and ready (see below); it
 *       never returns for an entry that was not committed. A {@link NotShardLeaderException} with
 *       {@link NotShardLeaderException#mayBeCommittedLater()} false applied nothing; any other
 *       failure (leadership lost while the entry was in flight, timeout) leaves the entry's fate
 *       unknown: a later leader may still commit it. Either way the runtime resets the object, so
 *       nothing unconfirmed is observed outside.
 *   <li>Reads are served only while this peer is the <em>ready</em> leader: Ratis makes a new
 *       leader ready once it applied the first entry of its own term, hence every entry committed
 *       before it. On any other peer they throw {@link NotShardLeaderException}.
 *   <li>Fencing the runtime ({@link #fenceWith}): on every leader change this peer sees, except it
 *       becoming the ready leader, the runtime's {@code resetAll} is called: its instances and
 *       caches are dropped, its held replies fail, and its next instances read here (refused on a
 *       follower).
 *   <li>No stale read ({@link #confirmReads}): a reply leaves the runtime only once a read-index
 *       request sent after the event's reads succeeded, i.e. this peer still led the shard then (by
 *       its leader lease, or a heartbeat round to a majority), so no other leader can have
 *       committed anything the call should have seen. Concurrent callers share rounds. A leader
 *       that was deposed without knowing it yet (a partition, a long pause) therefore answers
 *       nothing, even from the runtime's cache. The lease assumes clock rates of the peers differ
 *       by less than 10% over an election timeout. An event that wrote needs no such round ({@link
 *       #commitConfirmsReads}): its reply waits for its entry's commit, and an entry appended after
 *       the reads commits only if no other leader committed anything before it.
 * </ul>
 *
 * <p>Closing this engine (as {@code Runtime.close()} does) closes only this view: the peer keeps
 * serving the shard, and {@link RatisPeer#engine} gives a fresh view.
 *
 * <pre>{@code
 * try (RatisPeer peer = RatisPeer.start(config, "a", Path.of("data/a"), PeerOptions.defaults())) {
 *     ReplicatedStorageEngine shard0 = peer.engine(0);
 *     shard0.addLeaderListener(change -> { if (change.ready()) startRuntimeOn(shard0); });
 * }
 * }</pre>
 */
public final class ReplicatedStorageEngine implements StorageEngine {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(ReplicatedStorageEngine.class);

  private static final AtomicLong CALL_IDS = new AtomicLong();

  /** Runs the end of each read-index round (a virtual thread each; needs no shutdown). */
  private static final java.util.concurrent.Executor READ_ROUNDS =
      r -> Thread.ofVirtual().name("anteroom-read-round").start(r);

  private final RatisPeer peer;
  private final int shard;
  private final RaftGroupId groupId;
  private final ClientId clientId = ClientId.randomId();
  private final List<Consumer<LeaderChange>> listeners = new CopyOnWriteArrayList<>();
  private volatile boolean closed;
  private final Object readRounds = new Object();

  /** The read-index round sent and not answered yet, if any. */
  private CompletableFuture<Void> roundInFlight;

  /** Callers that came after {@link #roundInFlight} was sent: they need the next round. */
  private CompletableFuture<Void> nextRound;

  ReplicatedStorageEngine(RatisPeer peer, int shard, RaftGroupId groupId) {
    this.peer = peer;
    this.shard = shard;
    this.groupId = groupId;
  }

  // ---- StorageEngine ----

  @Override
  public byte[] get(String object, String key) {
    return readable().get(object, key);
  }

  @Override
  public List<Map.Entry<String, byte[]>> list(String object, KeyRange range) {
    return readable().list(object, range);
  }

  @Override
  public Optional<Instant> getAlarm(String object) {
    return readable().getAlarm(object);
  }

  @Override
  public Map<String, Instant> alarms() {
    return readable().alarms();
  }

  @Override
  public void commit(List<Batch> batches) {
    checkOpen();
    RaftServer.Division division = division();
    if (!division.getInfo().isLeader())
      throw notLeader(division, "it is " + division.getInfo().getCurrentRole(), false);
    if (!division.getInfo().isLeaderReady())
      throw notLeader(division, "it was just elected and is still applying earlier entries", false);
    byte[] entry = BatchCodec.encode(batches);
    if (entry.length > peer.options().maxEntryBytes()) {
      throw new IllegalArgumentException(
          "group-commit of "
              + batches.size()
              + " batches is "
              + entry.length
              + " bytes encoded, more than"
              + " maxEntryBytes ("
              + peer.options().maxEntryBytes()
              + ") of one Raft log entry; nothing was applied");
    }
    RaftClientRequest request =
        RaftClientRequest.newBuilder()
            .setClientId(clientId)
            .setServerId(division.getId())
            .setGroupId(groupId)
            .setCallId(CALL_IDS.incrementAndGet())
            .setMessage(Message.valueOf(UnsafeByteOperations.unsafeWrap(entry)))
            .setType(RaftClientRequest.writeRequestType())
            .build();
    RaftClientReply reply;
    long timeoutMillis = peer.options().commitTimeout().toMillis();
    ShardCounters counters = peer.counters(shard);
    long inFlight = counters.started();
    long sent = System.nanoTime();
    try {
      reply =
          peer.server().submitClientRequestAsync(request).get(timeoutMillis, TimeUnit.MILLISECONDS);
      if (LOG.isDebugEnabled()) {
        LOG.debug(
            "shard {}: commit of {} batches in {} ms",
            shard,
            batches.size(),
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw unconfirmed(batches, "interrupted while waiting for the majority", e);
    } catch (TimeoutException e) {
      throw unconfirmed(batches, "no majority within " + peer.options().commitTimeout(), e);
    } catch (ExecutionException | CompletionException | IOException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      if (cause instanceof NotLeaderException || cause instanceof LeaderNotReadyException) {
        throw notLeader(division, cause.getMessage(), true);
      }
      throw unconfirmed(batches, cause.toString(), cause);
    } finally {
      counters.finished(inFlight);
    }
    if (!reply.isSuccess()) {
      if (reply.getNotLeaderException() != null) {
        NotLeaderException nle = reply.getNotLeaderException();
        RaftPeer suggested = nle.getSuggestedLeader();
        throw new NotShardLeaderException(
            shard,
            peer.id(),
            Optional.ofNullable(suggested).map(p -> p.getId().toString()),
            "leadership lost",
            true);
      }
      if (reply.getLeaderNotReadyException() != null)
        throw notLeader(division, "leader not ready", true);
      throw unconfirmed(batches, String.valueOf(reply.getException()), reply.getException());
    }
  }

  /**
   * Resets the runtime's instances ({@code resetAll}) on every leader change this peer sees, except
   * when it becomes the ready leader: when it loses the leadership, and when it is elected again
   * (whatever a runtime still held then predates another leader's term). Each fencing and the
   * instances it reset are counted per shard ({@link ClusterStatus}).
   */
  @Override
  public void fenceWith(java.util.function.ToIntFunction<String> resetAll) {
    addLeaderListener(
        change -> {
          if (change.ready()) return;
          int reset =
              resetAll.applyAsInt(
                  "peer "
                      + change.peer()
                      + " saw a leader change of shard "
                      + change.shard()
                      + " (term "
                      + change.term()
                      + ", leader "
                      + change.leader().orElse("unknown")
                      + ")");
          peer.counters(shard).fenced(reset);
        });
  }

  /**
   * True: a commit succeeds only once its entry is committed (a leader that steps down fails its
   * pending commits), and an entry this peer appended after another leader was elected never
   * commits (that leader's log, which every later commit extends, does not hold it). So an event's
   * write that commits proves that no other leader committed anything before it, after the event's
   * reads.
   */
  @Override
  public boolean commitConfirmsReads() {
    return true;
  }

  /**
   * No: a reply that left before its write committed could hand out a state a new leader does not
   * have (issue 40's partition suite: a counter's numbers issued twice after a minority-majority
   * split). Every reply waits for its event's writes to commit.
   */
  @Override
  public boolean allowsUnconfirmedOutputs() {
    return false;
  }

  /**
   * Completes once this peer is confirmed, after the call, as the shard's leader with every entry
   * committed before applied (a linearizable read index, by lease when valid); exceptionally
   * ({@link NotShardLeaderException}, or a timeout after {@code commitTimeout}) otherwise. Calls
   * that arrive while a round is in flight share the next one.
   */
  @Override
  public CompletionStage<Void> confirmReads() {
    CompletableFuture<Void> round;
    synchronized (readRounds) {
      if (roundInFlight != null) {
        if (nextRound == null) nextRound = new CompletableFuture<>();
        return nextRound;
      }
      round = roundInFlight = new CompletableFuture<>();
    }
    send(round);
    return round;
  }

  private void send(CompletableFuture<Void> round) {
    // never on Ratis' thread: it completes reads holding a lock of its read queue, and sending
    // the next round from there blocks on that lock
    readIndex()
        .whenCompleteAsync(
            (ok, failure) -> {
              CompletableFuture<Void> next;
              synchronized (readRounds) {
                next = nextRound;
                nextRound = null;
                roundInFlight = next;
              }
              if (next != null) send(next);
              if (failure == null) round.complete(null);
              else
                round.completeExceptionally(
                    failure instanceof CompletionException c && c.getCause() != null
                        ? c.getCause()
                        : failure);
            },
            READ_ROUNDS);
  }

  private CompletableFuture<Void> readIndex() {
    try {
      checkOpen();
      RaftServer.Division division = division();
      if (!division.getInfo().isLeader())
        throw notLeader(division, "it is " + division.getInfo().getCurrentRole(), false);
      RaftClientRequest request =
          RaftClientRequest.newBuilder()
              .setClientId(clientId)
              .setServerId(division.getId())
              .setGroupId(groupId)
              .setCallId(CALL_IDS.incrementAndGet())
              .setMessage(Message.EMPTY)
              .setType(RaftClientRequest.readRequestType())
              .build();
      long timeoutMillis = peer.options().commitTimeout().toMillis();
      ShardCounters counters = peer.counters(shard);
      long inFlight = counters.started();
      long sent = System.nanoTime();
      return peer.server()
          .submitClientRequestAsync(request)
          .orTimeout(timeoutMillis, TimeUnit.MILLISECONDS)
          .whenComplete(
              (reply, failure) -> {
                counters.finished(inFlight);
                if (LOG.isDebugEnabled()) {
                  LOG.debug(
                      "shard {}: read index in {} ms",
                      shard,
                      TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent));
                }
              })
          .thenApply(
              reply -> {
                if (reply.isSuccess()) return null;
                if (reply.getNotLeaderException() != null
                    || reply.getLeaderNotReadyException() != null) {
                  throw notLeader(division, "its leadership could not be confirmed", false);
                }
                throw new IllegalStateException(
                    "peer "
                        + peer.id()
                        + " could not confirm its leadership of shard "
                        + shard
                        + ": "
                        + reply.getException(),
                    reply.getException());
              });
    } catch (IOException | RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** Closes this view only: it refuses further calls. The peer keeps serving the shard. */
  @Override
  public void close() {
    closed = true;
    listeners.forEach(machine()::removeListener);
    listeners.clear();
  }

  // ---- leadership and progress ----

  /** The shard this engine serves. */
  public int shard() {
    return shard;
  }

  /** The id of this engine's peer. */
  public String peerId() {
    return peer.id();
  }

  /** This peer currently believes it leads the shard (it may not be ready yet). */
  public boolean isLeader() {
    return division().getInfo().isLeader();
  }

  /**
   * This peer leads the shard and has applied every entry committed before its term: commits and
   * reads are served.
   */
  public boolean isLeaderReady() {
    RaftServer.Division d = division();
    return d.getInfo().isLeader() && d.getInfo().isLeaderReady();
  }

  /** The leader this peer knows of, if any. */
  public Optional<String> leader() {
    return Optional.ofNullable(division().getInfo().getLeaderId()).map(Object::toString);
  }

  /** The current Raft term as this peer knows it. */
  public long term() {
    return division().getInfo().getCurrentTerm();
  }

  /** The index of the last log entry this peer knows to be committed. */
  public long commitIndex() {
    return division().getRaftLog().getLastCommittedIndex();
  }

  /**
   * How long the oldest commit or read-index round this peer sent for the shard has waited for its
   * answer, in nanoseconds; 0 if none is in flight.
   */
  public long oldestRequestNanos() {
    return peer.counters(shard).oldestInFlightNanos();
  }

  /**
   * How long applying one entry to this peer's copy takes now (the last apply, or the one in
   * progress if longer), in nanoseconds.
   */
  public long applyNanos() {
    return machine().recentApplyNanos();
  }

  /** The index of the last log entry applied to this peer's copy. */
  public long appliedIndex() {
    return division().getInfo().getLastAppliedIndex();
  }

  /** This peer's Raft role in the shard: {@code LEADER}, {@code FOLLOWER}, {@code CANDIDATE}. */
  public String role() {
    return division().getInfo().getCurrentRole().name();
  }

  /**
   * Campaigns this peer ran for the shard since its Raft server started: each pre-vote or election
   * round that ended, won or not (Ratis' own {@code electionCount}). A peer that campaigns again
   * and again cannot reach a leader (a partition, an untrusted certificate); {@code -1} if Ratis
   * keeps no metrics for it.
   */
  public long elections() {
    MetricRegistryInfo info =
        new MetricRegistryInfo(
            division().getMemberId().toString(),
            RatisMetrics.RATIS_APPLICATION_NAME_METRICS,
            LeaderElectionMetrics.RATIS_LEADER_ELECTION_METRICS,
            LeaderElectionMetrics.RATIS_LEADER_ELECTION_METRICS_DESC);
    return MetricRegistries.global()
        .get(info)
        .map(r -> r.counter(LeaderElectionMetrics.LEADER_ELECTION_COUNT_METRIC).getCount())
        .orElse(-1L);
  }

  /**
   * The commit index of every peer of the shard as this peer knows it (on the leader: from the
   * followers' latest replies; elsewhere mostly its own), by peer id.
   */
  public Map<String, Long> commitIndices() {
    Map<String, Long> out = new java.util.TreeMap<>();
    for (org.apache.ratis.proto.RaftProtos.CommitInfoProto info : division().getCommitInfos()) {
      out.put(info.getServer().getId().toStringUtf8(), info.getCommitIndex());
    }
    return out;
  }

  /**
   * On the leader: per follower, the milliseconds since it last answered this leader; empty on any
   * other peer.
   */
  public Map<String, Long> followerQuietMillis() {
    Map<String, Long> out = new java.util.TreeMap<>();
    RaftServer.Division d = division();
    if (!d.getInfo().isLeader()) return out;
    org.apache.ratis.proto.RaftProtos.RoleInfoProto role = d.getInfo().getRoleInfoProto();
    if (!role.hasLeaderInfo()) return out;
    for (var f : role.getLeaderInfo().getFollowerInfoList()) {
      out.put(f.getId().getId().toStringUtf8(), f.getLastRpcElapsedTimeMs());
    }
    return out;
  }

  /**
   * The first index still in this peer's log: greater than 1 once a snapshot let it purge the log.
   */
  public long logStartIndex() {
    return division().getRaftLog().getStartIndex();
  }

  /**
   * Calls {@code listener} on every change of the shard's leader seen by this peer, and when this
   * peer becomes a ready leader. Called on a Ratis thread: return quickly.
   */
  public void addLeaderListener(Consumer<LeaderChange> listener) {
    checkOpen();
    listeners.add(listener);
    machine().addListener(listener);
  }

  public void removeLeaderListener(Consumer<LeaderChange> listener) {
    listeners.remove(listener);
    machine().removeListener(listener);
  }

  /**
   * Takes a snapshot of this peer's copy now, whatever the automatic threshold, and returns its
   * index. The log before it is purged once at least {@code min(snapshotEveryEntries, 1024)}
   * entries lie between this snapshot and the last purge.
   */
  public long takeSnapshot() {
    checkOpen();
    try {
      RaftClientReply reply =
          peer.server()
              .snapshotManagement(
                  SnapshotManagementRequest.newCreate(
                      clientId,
                      division().getId(),
                      groupId,
                      CALL_IDS.incrementAndGet(),
                      peer.options().commitTimeout().toMillis()));
      if (!reply.isSuccess())
        throw new IllegalStateException(
            "snapshot of shard "
                + shard
                + " on peer "
                + peer.id()
                + " failed: "
                + reply.getException());
      return reply.getLogIndex();
    } catch (IOException e) {
      throw new IllegalStateException(
          "snapshot of shard " + shard + " on peer " + peer.id() + " failed: " + e.getMessage(), e);
    }
  }

  /**
   * Hands the shard's leadership from this peer (which must lead it) to {@code peerId}, e.g. before
   * stopping this peer for maintenance. Returns once {@code peerId} was elected; from then on this
   * engine refuses commits and reads.
   *
   * @throws IllegalStateException if this peer does not lead the shard or the transfer did not
   *     complete
   */
  public void transferLeadership(String peerId) {
    checkOpen();
    if (peer.members(shard).stream().noneMatch(p -> p.id().equals(peerId)))
      throw new IllegalArgumentException(
          "transfer of shard " + shard + " to " + peerId + ": not a member of the shard");
    try {
      RaftClientReply reply =
          peer.server()
              .transferLeadership(
                  new TransferLeadershipRequest(
                      clientId,
                      division().getId(),
                      groupId,
                      CALL_IDS.incrementAndGet(),
                      RaftPeerId.valueOf(peerId),
                      peer.options().commitTimeout().toMillis()));
      if (!reply.isSuccess()) {
        throw new IllegalStateException(
            "transfer of shard "
                + shard
                + " from "
                + peer.id()
                + " to "
                + peerId
                + " failed: "
                + reply.getException());
      }
    } catch (IOException e) {
      throw new IllegalStateException(
          "transfer of shard "
              + shard
              + " from "
              + peer.id()
              + " to "
              + peerId
              + " failed: "
              + e.getMessage(),
          e);
    }
  }

  /** This peer's copy, whatever its role. For tests. */
  StorageEngine localCopy() {
    return machine().replica().engine();
  }

  /** The state machine of the shard's current division on this peer. */
  ShardStateMachine machine() {
    return peer.machine(shard);
  }

  // ---- internals ----

  private StorageEngine readable() {
    checkOpen();
    RaftServer.Division d = division();
    if (!d.getInfo().isLeader()) throw notLeader(d, "reads are served by the leader only", false);
    if (!d.getInfo().isLeaderReady())
      throw notLeader(d, "it was just elected and is still applying earlier entries", false);
    return machine().replica().engine();
  }

  private RaftServer.Division division() {
    try {
      return peer.server().getDivision(groupId);
    } catch (IOException e) {
      throw new IllegalStateException(
          "shard "
              + shard
              + " is not served by peer "
              + peer.id()
              + " (closed?): "
              + e.getMessage(),
          e);
    }
  }

  private NotShardLeaderException notLeader(
      RaftServer.Division d, String detail, boolean submitted) {
    Optional<String> leader = Optional.ofNullable(d.getInfo().getLeaderId()).map(Object::toString);
    return new NotShardLeaderException(shard, peer.id(), leader, detail, submitted);
  }

  private IllegalStateException unconfirmed(List<Batch> batches, String why, Throwable cause) {
    return new IllegalStateException(
        "commit of "
            + batches.size()
            + " batches on shard "
            + shard
            + " by peer "
            + peer.id()
            + " not confirmed ("
            + why
            + "); a later leader may still commit it",
        cause);
  }

  private void checkOpen() {
    if (closed)
      throw new IllegalStateException(
          "this engine of shard " + shard + " on peer " + peer.id() + " is closed");
  }

  @Override
  public String toString() {
    return "ReplicatedStorageEngine[shard " + shard + " on peer " + peer.id() + "]";
  }
}
