package io.anteroom.objects.ratis;

import java.util.Optional;

/**
 * A change of a shard's leadership as one peer saw it. {@code ready} is true once the leader has
 * applied every entry committed before its term began: only then does it accept commits and serve
 * reads ({@link ReplicatedStorageEngine}).
 *
 * @param shard the shard
 * @param peer the peer that saw the change
 * @param leader the new leader's id, empty while there is none known
 * @param term the Raft term of the change as known to {@code peer}; {@code -1} if reported while
 *     the peer was still starting
 * @param thisPeerLeads {@code leader} is {@code peer}
 * @param ready {@code thisPeerLeads} and the leader is ready
 */
public record LeaderChange(
    int shard,
    String peer,
    Optional<String> leader,
    long term,
    boolean thisPeerLeads,
    boolean ready) {}
