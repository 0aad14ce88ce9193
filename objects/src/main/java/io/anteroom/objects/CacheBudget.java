package io.anteroom.objects;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The runtime-wide soft memory budget of the object caches.
 *
 * <p>Invariants: {@code bytes} is the sum of every live object's cached bytes (entries charge and
 * refund themselves). Above the budget, one thread at a time evicts the least recently used
 * <em>clean</em> entries across all objects down to 90% of the budget; dirty entries are never
 * evicted, so the budget is soft. Recency is an approximate global tick.
 */
final class CacheBudget {
    record Candidate(ObjectStorage storage, String key, long lastAccess) {}

    private final long budget;
    private final Supplier<Iterable<ObjectHost>> hosts;
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong clock = new AtomicLong();
    private final AtomicBoolean evicting = new AtomicBoolean();

    CacheBudget(long budget, Supplier<Iterable<ObjectHost>> hosts) {
        this.budget = budget;
        this.hosts = hosts;
    }

    long tick() {
        return clock.incrementAndGet();
    }

    long bytes() {
        return bytes.get();
    }

    /** Records a change of cached bytes; above the budget, evicts (never call with a storage lock held for delta > 0). */
    void charge(long delta) {
        long now = bytes.addAndGet(delta);
        if (delta > 0 && now > budget && evicting.compareAndSet(false, true)) {
            try {
                evict();
            } finally {
                evicting.set(false);
            }
        }
    }

    private void evict() {
        List<Candidate> candidates = new ArrayList<>();
        for (ObjectHost h : hosts.get()) h.storage.evictionCandidates(candidates);
        candidates.sort(Comparator.comparingLong(Candidate::lastAccess));
        long target = budget - budget / 10;
        for (Candidate c : candidates) {
            if (bytes.get() <= target) break;
            long freed = c.storage().evict(c.key(), c.lastAccess());
            if (freed > 0) bytes.addAndGet(-freed);
        }
    }
}
