package io.anteroom.objects.ratis;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Raft state machine of one shard on one peer: applies each committed log entry (one
 * group-commit, {@link BatchCodec}) to the peer's {@link LocalReplica}.
 *
 * <p>Invariants: Ratis calls {@link #applyTransaction}, {@link #takeSnapshot} and {@link
 * #reinitialize} from the shard's single state-machine thread, in log order. An entry is applied
 * together with its index in one local transaction, and entries at or below the replica's recorded
 * index are skipped, so a replay after a restart (Ratis replays from the last snapshot) neither
 * applies an entry twice nor skips one. The apply is synchronous: when the leader answers a commit,
 * the entry is in its local copy. A failed apply (a full disk) throws, which stops this peer's
 * division of the shard (Ratis closes it) rather than let the copy silently diverge; the peer is
 * told first ({@code onStorageFailure}) and starts the division again from its log once the copy
 * can be written ({@link RatisPeer}).
 *
 * <p>Snapshots are whole copies of the replica ({@link LocalReplica#snapshotTo}) named by the term
 * and index of the last applied entry; Ratis purges the log up to them and sends them to peers that
 * lag behind the purged log, which then {@link #reinitialize} from them.
 */
final class ShardStateMachine extends BaseStateMachine {
  private static final Logger log = LoggerFactory.getLogger(ShardStateMachine.class);

  private final int shard;
  private final Supplier<LocalReplica> openReplica;
  private final SnapshotStorage storage = new SnapshotStorage();
  private final List<Consumer<LeaderChange>> listeners;
  private final Consumer<StorageFailure> onStorageFailure;
  private volatile LocalReplica replica;

  /** When a snapshot last failed (System.nanoTime()), 0 if the last one did not. */
  private volatile long snapshotFailedAt;

  /**
   * The index the local copy records as applied ({@link LocalReplica#appliedIndex}), kept here so
   * that applying an entry does not first read it back from the copy. Set from the copy whenever
   * the copy is opened or replaced; written and read by the state-machine thread.
   */
  private volatile long copyApplied;

  private volatile String peerId = "?";

  /** When the apply in progress started (System.nanoTime()), 0 if none is. */
  private volatile long applyingSince;

  /** How long the last completed apply of an entry to the copy took. */
  private volatile long lastApplyNanos;

  /** The last configuration seen in the log ({@link #notifyConfigurationChanged}). */
  private volatile String lastConfiguration;

  private volatile RaftServer.Division division;
  private final AtomicLong skippedOnReplay = new AtomicLong();

  /** A machine with listeners of its own and no reaction to a storage failure (tests). */
  ShardStateMachine(int shard, Supplier<LocalReplica> openReplica) {
    this(shard, openReplica, new CopyOnWriteArrayList<>(), f -> {});
  }

  /**
   * @param listeners the shard's leader listeners, shared by every machine the peer makes for the
   *     shard (a machine lives as long as the shard's Raft division, which a storage failure ends)
   * @param onStorageFailure told when this peer's copy or log of the shard could not be written;
   *     the division stops at once (Ratis closes it), the peer starts it again ({@link RatisPeer})
   */
  ShardStateMachine(
      int shard,
      Supplier<LocalReplica> openReplica,
      List<Consumer<LeaderChange>> listeners,
      Consumer<StorageFailure> onStorageFailure) {
    this.shard = shard;
    this.openReplica = openReplica;
    this.listeners = listeners;
    this.onStorageFailure = onStorageFailure;
  }

  /**
   * Why this peer's copy (or log) of a shard could not be written, and whether the disk is full.
   */
  record StorageFailure(int shard, String what, boolean diskFull) {}

  /** Whether {@code e} or one of its causes says the disk (or the database) is full. */
  static boolean diskFull(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String m = String.valueOf(t.getMessage());
      if (m.contains("SQLITE_FULL")
          || m.contains("No space left on device")
          || m.contains("database or disk is full")) return true;
    }
    return false;
  }

  /** The innermost message of {@code e}: what went wrong, without the layers. */
  static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null) t = t.getCause();
    return t.getMessage() == null ? t.toString() : t.getMessage();
  }

  int shard() {
    return shard;
  }

  /** The local copy; {@code null} before Ratis initialised this shard. */
  LocalReplica replica() {
    return replica;
  }

  void addListener(Consumer<LeaderChange> listener) {
    listeners.add(listener);
  }

  void removeListener(Consumer<LeaderChange> listener) {
    listeners.remove(listener);
  }

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage)
      throws IOException {
    getLifeCycle().transition(LifeCycle.State.STARTING);
    super.initialize(server, groupId, raftStorage);
    peerId = server.getId().toString();
    storage.init(raftStorage);
    replica = openReplica.get();
    SingleFileSnapshotInfo snapshot = storage.reload();
    if (snapshot != null) {
      // a snapshot newer than the copy: it was installed from the leader and the restore did not
      // finish
      if (snapshot.getIndex() > replica.appliedIndex()) restore(snapshot);
      setLastAppliedTermIndex(snapshot.getTermIndex());
    }
    copyApplied = replica.appliedIndex();
    getLifeCycle().transition(LifeCycle.State.RUNNING);
  }

  /**
   * Ratis pauses the machine before installing a snapshot from the leader, then calls {@link
   * #reinitialize}.
   */
  @Override
  public void pause() {
    storage.forgetAbsence(); // an install is about to write a snapshot that lookups must find
    if (getLifeCycleState() != LifeCycle.State.RUNNING) return;
    getLifeCycle().transition(LifeCycle.State.PAUSING);
    getLifeCycle().transition(LifeCycle.State.PAUSED);
  }

  @Override
  public void reinitialize() throws IOException {
    SingleFileSnapshotInfo snapshot = storage.reload();
    if (snapshot == null)
      throw new IOException(
          "shard " + shard + " on peer " + peerId + ": asked to reload, but there is no snapshot");
    restore(snapshot);
    copyApplied = replica.appliedIndex();
    setLastAppliedTermIndex(snapshot.getTermIndex());
    if (getLifeCycleState() == LifeCycle.State.PAUSED) {
      getLifeCycle().transition(LifeCycle.State.STARTING);
      getLifeCycle().transition(LifeCycle.State.RUNNING);
    }
  }

  private void restore(SingleFileSnapshotInfo snapshot) throws IOException {
    File file = snapshot.getFile().getPath().toFile();
    if (snapshot.getFile().getFileDigest() != null)
      MD5FileUtil.verifySavedMD5(file, snapshot.getFile().getFileDigest());
    replica.restoreFrom(file.toPath());
    log.info(
        "shard {} on peer {}: restored the snapshot at {} ({} bytes)",
        shard,
        peerId,
        snapshot.getTermIndex(),
        file.length());
  }

  @Override
  public SimpleStateMachineStorage getStateMachineStorage() {
    return storage;
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    long index = entry.getIndex();
    if (index > copyApplied) {
      byte[] data = entry.getStateMachineLogEntry().getLogData().toByteArray();
      long started = System.nanoTime();
      applyingSince = started;
      try {
        replica.apply(BatchCodec.decode(data), entry.getTerm(), index);
        copyApplied = index;
      } catch (RuntimeException e) {
        // stop this peer's division of the shard rather than let its copy silently diverge: Ratis
        // closes it, and the peer starts it again from its log once the copy can be written
        String what =
            "cannot apply log entry " + index + " to its copy (" + replica + "): " + rootMessage(e);
        onStorageFailure.accept(new StorageFailure(shard, what, diskFull(e)));
        throw new ShardStoppedException(
            "shard " + shard + " on peer " + peerId + " stopped: " + what);
      } finally {
        applyingSince = 0;
        lastApplyNanos = System.nanoTime() - started;
      }
    } else {
      skippedOnReplay.incrementAndGet();
    }
    updateLastAppliedTermIndex(entry.getTerm(), index);
    return CompletableFuture.completedFuture(Message.EMPTY);
  }

  /**
   * The answer to a read-index request ({@link ReplicatedStorageEngine#confirmReads}): Ratis calls
   * it only once leadership was confirmed (lease or heartbeat round) and every entry up to the read
   * index was applied; the reads themselves go to the copy directly.
   */
  @Override
  public CompletableFuture<Message> query(Message request) {
    return CompletableFuture.completedFuture(Message.EMPTY);
  }

  /** How long after a failed snapshot the next one is tried. */
  static final java.time.Duration SNAPSHOT_RETRY = java.time.Duration.ofSeconds(10);

  @Override
  public long takeSnapshot() throws IOException {
    TermIndex last = getLastAppliedTermIndex();
    if (last == null || last.getIndex() <= 0) return -1;
    long failedAt = snapshotFailedAt;
    if (failedAt != 0 && System.nanoTime() - failedAt < SNAPSHOT_RETRY.toNanos()) return -1;
    File file = storage.getSnapshotFile(last.getTerm(), last.getIndex());
    FileInfo info;
    try {
      if (!file.exists()) replica.snapshotTo(file.toPath());
      info = new FileInfo(file.toPath(), MD5FileUtil.computeAndSaveMd5ForFile(file));
    } catch (IOException | RuntimeException e) {
      // Ratis would log the failure with its stack trace and try again after every entry applied:
      // one line, and the next try after SNAPSHOT_RETRY; the log is kept meanwhile
      java.nio.file.Files.deleteIfExists(file.toPath());
      if (failedAt == 0) {
        log.warn(
            "shard {} on peer {}: cannot take a snapshot at {}{}: {}; the log is kept, next try"
                + " in {} s",
            shard,
            peerId,
            last,
            diskFull(e) ? " (the disk is full)" : "",
            rootMessage(e),
            SNAPSHOT_RETRY.toSeconds());
      }
      snapshotFailedAt = System.nanoTime();
      return -1;
    }
    if (failedAt != 0) {
      log.info("shard {} on peer {}: snapshots work again (at {})", shard, peerId, last);
      snapshotFailedAt = 0;
    }
    storage.updateLatestSnapshot(new SingleFileSnapshotInfo(info, last));
    log.debug("shard {} on peer {}: snapshot at {}", shard, peerId, last);
    return last.getIndex();
  }

  /**
   * How long applying one entry to this peer's copy takes now: the longer of the last completed
   * apply and the one in progress, in nanoseconds. A few milliseconds on a healthy disk (one SQLite
   * commit, fsynced); the fsync's time on a slow one.
   */
  long recentApplyNanos() {
    long since = applyingSince;
    long inProgress = since == 0 ? 0 : System.nanoTime() - since;
    return Math.max(lastApplyNanos, inProgress);
  }

  /**
   * Entries replayed by Ratis that the local copy already had, since this machine started. For
   * tests.
   */
  long skippedOnReplay() {
    return skippedOnReplay.get();
  }

  /** How often this shard listed its snapshot directory since it started. For tests. */
  long snapshotDirectoryScans() {
    return storage.scans.get();
  }

  /** The file of the latest snapshot, if any. For tests and operators. */
  Optional<Path> latestSnapshotFile() {
    SingleFileSnapshotInfo s = storage.getLatestSnapshot();
    return s == null ? Optional.empty() : Optional.of(s.getFile().getPath());
  }

  @Override
  public void notifyLeaderChanged(RaftGroupMemberId member, RaftPeerId newLeader) {
    boolean self = newLeader != null && newLeader.equals(member.getPeerId());
    fire(
        new LeaderChange(
            shard,
            peerId,
            Optional.ofNullable(newLeader).map(RaftPeerId::toString),
            currentTerm(),
            self,
            false));
  }

  /**
   * This peer stepped down as the shard's leader. Ratis reports the new leader only once it hears
   * from it ({@link #notifyLeaderChanged}), so without this the peer's runtime would learn of its
   * loss only then, or from a poll.
   */
  @Override
  public void notifyNotLeader(Collection<TransactionContext> pendingEntries) {
    fire(new LeaderChange(shard, peerId, Optional.empty(), currentTerm(), false, false));
  }

  @Override
  public void notifyLeaderReady() {
    fire(new LeaderChange(shard, peerId, Optional.of(peerId), currentTerm(), true, true));
  }

  /**
   * A membership change reached this peer's log (one line for the operator; during a change, the
   * joint configuration first, then the new one).
   */
  @Override
  public void notifyConfigurationChanged(
      long term, long index, org.apache.ratis.proto.RaftProtos.RaftConfigurationProto conf) {
    java.util.List<String> now = new java.util.ArrayList<>();
    conf.getPeersList().forEach(p -> now.add(p.getId().toStringUtf8()));
    java.util.Collections.sort(now);
    String seen = conf.getOldPeersCount() + "|" + now;
    // a new leader's first entry repeats the configuration: one line per change, not per election
    if (seen.equals(lastConfiguration)) return;
    boolean first = lastConfiguration == null;
    lastConfiguration = seen;
    if (first && conf.getOldPeersCount() == 0) return; // the membership it started with
    if (conf.getOldPeersCount() > 0) {
      java.util.List<String> old = new java.util.ArrayList<>();
      conf.getOldPeersList().forEach(p -> old.add(p.getId().toStringUtf8()));
      java.util.Collections.sort(old);
      log.info(
          "peer {}: shard {} is changing its membership from {} to {} (log index {}, term {})",
          peerId,
          shard,
          old,
          now,
          index,
          term);
    } else {
      log.info(
          "peer {}: shard {}'s members are now {} (log index {}, term {})",
          peerId,
          shard,
          now,
          index,
          term);
    }
  }

  /**
   * This peer's Raft log of the shard could not be written (e.g. the disk is full): the peer stops
   * the division and starts it again from what the log holds once it can be written ({@link
   * RatisPeer}).
   */
  @Override
  public void notifyLogFailed(Throwable cause, LogEntryProto failedEntry) {
    String what =
        "cannot write its Raft log"
            + (failedEntry == null ? "" : " (entry " + failedEntry.getIndex() + ")")
            + ": "
            + rootMessage(cause);
    onStorageFailure.accept(new StorageFailure(shard, what, diskFull(cause)));
  }

  /**
   * Called by the peer once Ratis created the shard's division (looking it up from a callback could
   * block).
   */
  void attach(RaftServer.Division division) {
    this.division = division;
  }

  private long currentTerm() {
    RaftServer.Division d = division;
    return d == null ? -1 : d.getInfo().getCurrentTerm();
  }

  private void fire(LeaderChange change) {
    for (Consumer<LeaderChange> l : listeners) {
      try {
        l.accept(change);
      } catch (RuntimeException e) {
        log.warn(
            "shard {} on peer {}: a leader-change listener failed on {}", shard, peerId, change, e);
      }
    }
  }

  @Override
  public void close() throws IOException {
    LocalReplica r = replica;
    if (r != null) r.close();
  }

  /**
   * Ratis' single-file snapshot storage, which remembers that its directory holds no snapshot.
   * Ratis looks the latest snapshot up on every append to a follower, and its storage caches only a
   * snapshot it found: until a shard's first snapshot, each lookup would list the directory again
   * (a directory read per append, on every peer). Here a {@link #reload} that finds none is
   * remembered until {@link #forgetAbsence} (Ratis pauses the machine before it installs a snapshot
   * from the leader, and its lookups during the install must see the files it writes) or a snapshot
   * is taken.
   */
  private static final class SnapshotStorage extends SimpleStateMachineStorage {
    private final AtomicLong scans = new AtomicLong();
    private volatile boolean noneOnDisk;

    /** Lists the directory now; if it holds no snapshot, later lookups answer none at once. */
    SingleFileSnapshotInfo reload() {
      SingleFileSnapshotInfo latest = loadLatestSnapshot();
      noneOnDisk = latest == null;
      return latest;
    }

    void forgetAbsence() {
      noneOnDisk = false;
    }

    @Override
    public SingleFileSnapshotInfo getLatestSnapshot() {
      return noneOnDisk ? null : super.getLatestSnapshot();
    }

    @Override
    public SingleFileSnapshotInfo loadLatestSnapshot() {
      scans.incrementAndGet();
      return super.loadLatestSnapshot();
    }

    @Override
    public SingleFileSnapshotInfo updateLatestSnapshot(SingleFileSnapshotInfo info) {
      SingleFileSnapshotInfo updated = super.updateLatestSnapshot(info);
      noneOnDisk = false;
      return updated;
    }
  }
}
