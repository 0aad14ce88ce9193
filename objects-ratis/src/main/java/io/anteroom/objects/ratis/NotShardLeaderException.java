package io.anteroom.objects.ratis;

import java.util.Optional;

/**
 * A {@link ReplicatedStorageEngine} refused a commit or a read because its peer is not the ready
 * leader of the shard, or lost leadership while a commit was in flight ({@link
 * #mayBeCommittedLater()}). {@link #leader()} names the leader this peer knows of, if any, so that
 * a caller can go there.
 */
public class NotShardLeaderException extends IllegalStateException {
  private final int shard;
  private final transient Optional<String> leader;
  private final boolean mayBeCommittedLater;

  public NotShardLeaderException(
      int shard, String peer, Optional<String> leader, String detail, boolean mayBeCommittedLater) {
    super(
        "peer "
            + peer
            + " is not the leader of shard "
            + shard
            + " ("
            + detail
            + "); "
            + leader.map(l -> "the leader is " + l).orElse("no leader is known yet")
            + (mayBeCommittedLater
                ? "; the entry was already in the log: a later leader may still commit it"
                : "; nothing was applied"));
    this.shard = shard;
    this.leader = leader;
    this.mayBeCommittedLater = mayBeCommittedLater;
  }

  /**
   * False when the refusal came before the entry reached the log (nothing was or will be applied:
   * safe to retry elsewhere); true when leadership was lost while it was in flight.
   */
  public boolean mayBeCommittedLater() {
    return mayBeCommittedLater;
  }

  public int shard() {
    return shard;
  }

  /** The leader's peer id, if this peer knows it. */
  public Optional<String> leader() {
    return leader;
  }
}
