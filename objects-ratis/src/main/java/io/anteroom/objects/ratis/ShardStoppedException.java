package io.anteroom.objects.ratis;

/**
 * Stops one peer's Raft division of a shard whose local copy could not be written (a full disk, a
 * failing database): thrown into Ratis from the shard's state machine, which closes the division
 * rather than let the copy diverge; the peer starts it again from its log once it can ({@link
 * RatisPeer}). The peer has already said why in one line, so this carries no stack trace, and a log
 * configuration may drop Ratis' own report of it.
 */
public final class ShardStoppedException extends RuntimeException {
  ShardStoppedException(String message) {
    super(message, null, false, false);
  }
}
