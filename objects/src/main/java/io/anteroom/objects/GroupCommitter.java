package io.anteroom.objects;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The single writer of a storage engine: takes every batch waiting (from any object), commits
 * them in one transaction with one fsync, then confirms each. The more batches wait, the more
 * each fsync carries, so throughput grows with load.
 *
 * <p>Invariants: {@link StorageEngine#commit} is called only from this thread, never concurrently;
 * batches are committed in submission order; each submitted batch gets exactly one callback
 * (success, or the failure of the commit that carried it); after {@link #close()} returns every
 * batch submitted before it has been committed or failed.
 */
final class GroupCommitter implements AutoCloseable {
    /** A batch with its confirmation. */
    interface Flush {
        StorageEngine.Batch batch();

        /** Called on the writer thread; {@code failure} is null on success. Must be quick. */
        void done(Throwable failure);
    }

    private static final int MAX_BATCHES_PER_COMMIT = 4096;
    private static final Flush STOP = new Flush() {
        public StorageEngine.Batch batch() { return null; }
        public void done(Throwable failure) {}
    };

    private final StorageEngine engine;
    private final RuntimeMetrics metrics;
    private final LinkedBlockingQueue<Flush> queue = new LinkedBlockingQueue<>();
    private final Thread writer;
    private volatile boolean stopped;

    GroupCommitter(StorageEngine engine, RuntimeMetrics metrics) {
        this.engine = engine;
        this.metrics = metrics;
        this.writer = new Thread(this::run, "anteroom-objects-group-commit");
        this.writer.setDaemon(true);
        this.writer.start();
    }

    void submit(Flush flush) {
        if (stopped) {
            flush.done(new IllegalStateException("runtime is closed: storage no longer accepts writes"));
            return;
        }
        queue.add(flush);
    }

    /** Batches waiting for the next commit. For tests. */
    int queued() {
        return queue.size();
    }

    private void run() {
        List<Flush> group = new ArrayList<>();
        List<StorageEngine.Batch> batches = new ArrayList<>();
        boolean stopping = false;
        while (!stopping) {
            group.clear();
            batches.clear();
            try {
                group.add(queue.take());
            } catch (InterruptedException e) {
                stopping = true;
            }
            queue.drainTo(group, MAX_BATCHES_PER_COMMIT - group.size());
            int stopAt = group.indexOf(STOP);
            if (stopAt >= 0) {
                stopping = true;
                group.subList(stopAt, group.size()).removeIf(f -> f == STOP);
            }
            if (group.isEmpty()) continue;
            for (Flush f : group) batches.add(f.batch());
            Throwable failure = null;
            try {
                engine.commit(batches);
                metrics.fsyncs.mark();
                metrics.batchesPerCommit.update(batches.size());
            } catch (RuntimeException | Error e) {
                failure = e;
            }
            for (Flush f : group) {
                f.done(failure);
            }
        }
    }

    @Override
    public void close() {
        stopped = true;
        queue.add(STOP);
        try {
            writer.join(TimeUnit.MINUTES.toMillis(1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the last commits", e);
        }
        // anything that raced past the stop flag: fail it rather than leave its caller waiting
        List<Flush> left = new ArrayList<>();
        queue.drainTo(left);
        for (Flush f : left) {
            if (f != STOP) f.done(new IllegalStateException("runtime is closed: storage no longer accepts writes"));
        }
    }
}
