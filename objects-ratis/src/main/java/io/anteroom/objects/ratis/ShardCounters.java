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

  /** The Raft requests (commits, read-index rounds) this peer has in flight: id to start time. */
  private final java.util.concurrent.ConcurrentHashMap<Long, Long> inFlight =
      new java.util.concurrent.ConcurrentHashMap<>();

  private final java.util.concurrent.atomic.AtomicLong requestIds =
      new java.util.concurrent.atomic.AtomicLong();

  /** A commit or read-index round was sent to Raft; returns its id for {@link #finished}. */
  long started() {
    long id = requestIds.incrementAndGet();
    inFlight.put(id, System.nanoTime());
    return id;
  }

  /** The request {@code id} was answered (or failed). */
  void finished(long id) {
    inFlight.remove(id);
  }

  /** How long the oldest request in flight has waited, in nanoseconds; 0 if none. */
  long oldestInFlightNanos() {
    long now = System.nanoTime();
    long oldest = 0;
    for (long start : inFlight.values()) oldest = Math.max(oldest, now - start);
    return oldest;
  }

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
