/**
 * A replicated {@link io.anteroom.objects.storage.StorageEngine} on Apache Ratis: objects map to
 * shards ({@link io.anteroom.objects.ratis.ClusterConfig#shardOf}), each shard is one Raft group of
 * all the peers, and each peer ({@link io.anteroom.objects.ratis.RatisPeer}) applies the committed
 * group-commits of every shard to its own SQLite copy. A {@link
 * io.anteroom.objects.ratis.ReplicatedStorageEngine} confirms a commit only once a majority has it
 * and the local copy applied it, and serves reads only on the shard's ready leader.
 *
 * <p>Separate from {@code io.anteroom.objects} so that the embedded runtime does not carry Ratis
 * and its shaded gRPC/Netty. See {@code docs/cluster.md} for what exists and what does not yet.
 */
package io.anteroom.objects.ratis;
