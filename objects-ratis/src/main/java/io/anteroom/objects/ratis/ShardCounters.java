package io.anteroom.objects.ratis;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of one shard on one peer since the peer started, for {@link ClusterStatus}: calls the
 * coordinator refused because it does not serve the shard (421), and the fencing of the shard's
 * runtime on a leader change.
 */
final class ShardCounters {
  private final LongAdder misdirected = new LongAdder();
  private final LongAdder fencings = new LongAdder();
  private final LongAdder fencedInstances = new LongAdder();

  /** A call was answered 421: this peer is not the shard's ready leader, or its runtime is down. */
  void misdirected() {
    misdirected.increment();
  }

  /** A runtime of the shard was fenced on a leader change, resetting {@code instances}. */
  void fenced(int instances) {
    fencings.increment();
    fencedInstances.add(instances);
  }

  long misdirectedCount() {
    return misdirected.sum();
  }

  long fencingCount() {
    return fencings.sum();
  }

  long fencedInstanceCount() {
    return fencedInstances.sum();
  }
}
