package io.anteroom.objects.ratis;

import java.time.Duration;
import java.util.Objects;

/**
 * How one peer runs its shards. Defaults suit a production peer; tests shorten them.
 *
 * <pre>{@code
 * PeerOptions options = PeerOptions.builder()
 *         .snapshotEveryEntries(10_000)      // default 10,000: then the log before it is purged
 *         .electionTimeout(Duration.ofMillis(500), Duration.ofMillis(1000))
 *         .build();
 * }</pre>
 *
 * @param localStorage where each peer keeps its copy of each shard (default SQLite)
 * @param snapshotEveryEntries a snapshot of a shard's copy is taken once this many log entries were
 *     applied since the last one; the log up to it is then purged, and a peer that lags behind the
 *     purged log catches up by installing it
 * @param logSegmentBytes size at which a log segment is closed; only closed segments are purged
 * @param electionTimeoutMin a follower that hears nothing from a leader for a random time between
 *     these two starts an election
 * @param electionTimeoutMax see {@code electionTimeoutMin}
 * @param commitTimeout how long {@link ReplicatedStorageEngine#commit} waits for a majority
 * @param maxEntryBytes the largest group-commit (encoded) one log entry may carry; a larger one is
 *     refused before it reaches the log (Ratis' own default, 4 MiB, is below what one object may
 *     leave unflushed); costs a log write buffer of this size per shard on each peer
 * @param tls mutual TLS between the peers ({@link PeerTls}), or {@code null}: plain text, no
 *     authentication (only for a Raft network no one else can reach)
 * @param join this peer joins a running cluster: on an empty data directory it starts with no
 *     membership and waits for a leader to add it ({@link ClusterAdmin#add}, {@link
 *     ClusterAdmin#replace}), instead of taking the cluster file's peers and campaigning among
 *     members that do not know it (they would tell it to shut down). No effect on a directory that
 *     has the groups already.
 */
public record PeerOptions(
    LocalStorage localStorage,
    long snapshotEveryEntries,
    long logSegmentBytes,
    Duration electionTimeoutMin,
    Duration electionTimeoutMax,
    Duration commitTimeout,
    int maxEntryBytes,
    PeerTls tls,
    boolean join) {

  /** Where a peer keeps its copies. */
  public enum LocalStorage {
    /** One {@code SqliteStorageEngine} per shard under the peer's directory: survives restarts. */
    SQLITE,
    /**
     * An {@code InMemoryStorageEngine} per shard, for tests: a restarted peer rebuilds it from the
     * log or a snapshot.
     */
    MEMORY
  }

  public PeerOptions {
    Objects.requireNonNull(localStorage, "localStorage");
    if (snapshotEveryEntries < 1)
      throw new IllegalArgumentException(
          "snapshotEveryEntries must be at least 1, got " + snapshotEveryEntries);
    if (logSegmentBytes < 1024)
      throw new IllegalArgumentException(
          "logSegmentBytes must be at least 1024, got " + logSegmentBytes);
    positive(electionTimeoutMin, "electionTimeoutMin");
    positive(electionTimeoutMax, "electionTimeoutMax");
    positive(commitTimeout, "commitTimeout");
    if (maxEntryBytes < 1 << 20 || maxEntryBytes > 1 << 30) {
      throw new IllegalArgumentException(
          "maxEntryBytes must be 1 MiB to 1 GiB, got " + maxEntryBytes);
    }
    if (electionTimeoutMax.compareTo(electionTimeoutMin) <= 0) {
      throw new IllegalArgumentException(
          "electionTimeoutMax ("
              + electionTimeoutMax
              + ") must be greater than electionTimeoutMin ("
              + electionTimeoutMin
              + ")");
    }
  }

  /** The defaults. */
  public static PeerOptions defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  private static void positive(Duration d, String what) {
    if (d == null || d.isZero() || d.isNegative())
      throw new IllegalArgumentException(what + " must be a positive duration, got " + d);
  }

  /** Builds {@link PeerOptions}; every setting has a documented default. */
  public static final class Builder {
    private LocalStorage localStorage = LocalStorage.SQLITE;
    private long snapshotEveryEntries = 10_000;
    private long logSegmentBytes = 8L << 20;
    // longer than Ratis' 150-300 ms: a JVM pause or a busy 2-core machine should not depose a
    // healthy leader
    private Duration electionTimeoutMin = Duration.ofMillis(500);
    private Duration electionTimeoutMax = Duration.ofMillis(1000);
    private Duration commitTimeout = Duration.ofSeconds(10);
    private int maxEntryBytes = 16 << 20;
    private PeerTls tls;
    private boolean join;

    private Builder() {}

    /** Default {@link LocalStorage#SQLITE}. */
    public Builder localStorage(LocalStorage storage) {
      this.localStorage = storage;
      return this;
    }

    /** Default 10,000 entries. */
    public Builder snapshotEveryEntries(long entries) {
      this.snapshotEveryEntries = entries;
      return this;
    }

    /** Default 8 MiB. */
    public Builder logSegmentBytes(long bytes) {
      this.logSegmentBytes = bytes;
      return this;
    }

    /** Default 500 ms to 1 s. */
    public Builder electionTimeout(Duration min, Duration max) {
      this.electionTimeoutMin = min;
      this.electionTimeoutMax = max;
      return this;
    }

    /** Default 10 s. */
    public Builder commitTimeout(Duration timeout) {
      this.commitTimeout = timeout;
      return this;
    }

    /** Default 16 MiB. Each shard's log keeps a write buffer of this size on each peer. */
    public Builder maxEntryBytes(int bytes) {
      this.maxEntryBytes = bytes;
      return this;
    }

    /** Default none (plain text between the peers). */
    public Builder tls(PeerTls tls) {
      this.tls = tls;
      return this;
    }

    /** Default false: an empty data directory bootstraps with the cluster file's peers. */
    public Builder join(boolean join) {
      this.join = join;
      return this;
    }

    public PeerOptions build() {
      return new PeerOptions(
          localStorage,
          snapshotEveryEntries,
          logSegmentBytes,
          electionTimeoutMin,
          electionTimeoutMax,
          commitTimeout,
          maxEntryBytes,
          tls,
          join);
    }
  }
}
