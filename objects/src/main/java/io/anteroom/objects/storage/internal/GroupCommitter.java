package io.anteroom.objects.storage.internal;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import io.anteroom.objects.storage.StorageEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The single writer of a storage engine: takes every batch waiting (from any object), commits them
 * in one transaction with one fsync, then confirms each. The more batches wait, the more each fsync
 * carries, so throughput grows with load.
 *
 * <p>Invariants: {@link StorageEngine#commit} is called only from this thread, never concurrently;
 * batches are committed in submission order; each submitted batch gets exactly one callback
 * (success, or the failure of the commit that carried it), on a virtual thread after its commit;
 * after {@link #close()} returns every batch submitted before it has been committed or failed.
 *
 * <p>Not API: public only so that the runtime in {@code io.anteroom.objects} can drive it (see
 * {@code package-info}).
 */
public final class GroupCommitter implements AutoCloseable {
  /**
   * A batch with its confirmation, called once the commit ended ({@code null}: success). Identity
   * equality.
   */
  private static final class Flush {
    private final StorageEngine.Batch batch;
    private final Consumer<Throwable> done;

    Flush(StorageEngine.Batch batch, Consumer<Throwable> done) {
      this.batch = batch;
      this.done = done;
    }

    StorageEngine.Batch batch() {
      return batch;
    }

    void done(Throwable failure) {
      done.accept(failure);
    }
  }

  private static final int MAX_BATCHES_PER_COMMIT = 4096;
  private static final Flush STOP = new Flush(null, failure -> {});

  private final StorageEngine engine;
  private final Meter fsyncs;
  private final Histogram batchesPerCommit;
  private final LinkedBlockingQueue<Flush> queue = new LinkedBlockingQueue<>();
  private final Thread writer;
  private volatile boolean stopped;

  /**
   * Starts the writer thread of {@code engine}; each commit marks {@code fsyncs} and records the
   * number of batches it carried in {@code batchesPerCommit}.
   */
  public GroupCommitter(StorageEngine engine, Meter fsyncs, Histogram batchesPerCommit) {
    this.engine = engine;
    this.fsyncs = fsyncs;
    this.batchesPerCommit = batchesPerCommit;
    this.writer = new Thread(this::run, "anteroom-objects-group-commit");
    this.writer.setDaemon(true);
    this.writer.start();
  }

  /**
   * Queues {@code batch} for the next commit; {@code done} is called once that commit ended, with
   * {@code null} on success or the failure. After {@link #close()} the batch fails at once.
   */
  public void submit(StorageEngine.Batch batch, Consumer<Throwable> done) {
    Flush flush = new Flush(batch, done);
    if (stopped) {
      // not on this thread: the submitter holds its object's storage lock
      Thread.ofVirtual()
          .start(
              () ->
                  flush.done(
                      new IllegalStateException(
                          "runtime is closed: storage no longer accepts writes")));
      return;
    }
    queue.add(flush);
  }

  /** Batches waiting for the next commit. For tests. */
  public int queued() {
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
        fsyncs.mark();
        batchesPerCommit.update(batches.size());
      } catch (RuntimeException | Error e) {
        failure = e;
      }
      // Confirm on a virtual thread: waking the callers is slow from this platform thread and
      // the next commit should not wait for it. Order between groups does not matter: an
      // object has at most one flush in flight, submitted only after the previous confirmed.
      List<Flush> done = List.copyOf(group);
      Throwable result = failure;
      Thread.ofVirtual()
          .name("anteroom-objects-confirm")
          .start(
              () -> {
                for (Flush f : done) f.done(result);
              });
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
      if (f != STOP)
        f.done(new IllegalStateException("runtime is closed: storage no longer accepts writes"));
    }
  }
}
