package io.anteroom.objects;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;

/**
 * The output gate of one live object: nothing the object sends out is seen before the writes it
 * issued earlier are durable.
 *
 * <p>What is held back: every write has a sequence number; {@code confirmSeq} is the last write
 * that holds outputs (every write not made with {@code allowUnconfirmed}). An output captured when
 * {@code confirmSeq} was {@code s} (the reply of a call, an outgoing call, a {@code sync()} or a
 * writer waiting out backpressure) is released once {@code durableSeq >= s}, in sequence order.
 * {@code durableSeq} only grows, as flushes become durable ({@link #durable}).
 *
 * <p>What is serialized: nothing runs here; the gate is a queue ordered by sequence number, and its
 * futures are completed only outside the lock, by the thread that made them releasable.
 *
 * <p>What happens on failure: once broken ({@link #breakWith}, a flush failed or the instance was
 * reset), nothing held is ever released and nothing new passes: held outputs and later ones fail
 * with {@link ObjectResetException}. The failure is final.
 *
 * <p>Locking: every method takes {@code lock}, the owning {@link ObjectStorage}'s lock (it is
 * reentrant), so that the storage can advance the gate together with its cache and batches.
 */
final class OutputGate {
  private final Object lock;
  private final String object;
  private long confirmSeq;
  private long durableSeq;
  private final PriorityQueue<Held> held = new PriorityQueue<>();
  private Throwable failure;

  OutputGate(Object lock, String object) {
    this.lock = lock;
    this.object = object;
  }

  /** An output waiting for write {@code seq} to be durable. */
  record Held(long seq, CompletableFuture<Object> future, Object result, Throwable error)
      implements Comparable<Held> {
    @Override
    public int compareTo(Held o) {
      return Long.compare(seq, o.seq);
    }

    void complete() {
      if (error != null) future.completeExceptionally(error);
      else future.complete(result);
    }
  }

  /** The sequence number an output captured now must wait for. */
  long confirmationPoint() {
    synchronized (lock) {
      return confirmSeq;
    }
  }

  /** Write {@code seq} holds later outputs (or, in a rollback, restores an earlier point). */
  void holdOutputsUntil(long seq) {
    synchronized (lock) {
      confirmSeq = seq;
    }
  }

  /** Whether write {@code seq} is durable. */
  boolean isDurable(long seq) {
    synchronized (lock) {
      return seq <= durableSeq;
    }
  }

  /** The last durable write. */
  long durableSeq() {
    synchronized (lock) {
      return durableSeq;
    }
  }

  /** The cause of the failure, null while the gate works. */
  Throwable failure() {
    synchronized (lock) {
      return failure;
    }
  }

  /** Whether any output is held. */
  boolean holdsOutputs() {
    synchronized (lock) {
      return !held.isEmpty();
    }
  }

  /**
   * Releases {@code reply} with {@code result} or {@code error} once write {@code seq} is durable.
   */
  void release(long seq, CompletableFuture<Object> reply, Object result, Throwable error) {
    Held h = new Held(seq, reply, result, error);
    synchronized (lock) {
      if (failure != null) {
        h =
            new Held(
                seq,
                reply,
                null,
                new ObjectResetException(
                    "object "
                        + object
                        + " was reset before this call's writes were durable: "
                        + failure.getMessage(),
                    failure));
      } else if (seq > durableSeq) {
        held.add(h);
        return;
      }
    }
    h.complete();
  }

  /** A future completing when every write before now that holds outputs is durable. */
  CompletableFuture<Object> whenConfirmed() {
    CompletableFuture<Object> f = new CompletableFuture<>();
    synchronized (lock) {
      if (failure != null) {
        f.completeExceptionally(
            new ObjectResetException(
                "object " + object + " was reset: " + failure.getMessage(), failure));
      } else if (confirmSeq <= durableSeq) {
        f.complete(null);
      } else {
        held.add(new Held(confirmSeq, f, null, null));
      }
    }
    return f;
  }

  /** A future completing when write {@code seq} is durable (the caller checked it is not yet). */
  CompletableFuture<Object> whenDurable(long seq) {
    CompletableFuture<Object> f = new CompletableFuture<>();
    synchronized (lock) {
      held.add(new Held(seq, f, null, null));
    }
    return f;
  }

  /**
   * Writes up to {@code seq} are durable. Returns the outputs now released, to be completed with
   * {@link #complete} once the caller left the lock.
   */
  List<Held> durable(long seq) {
    synchronized (lock) {
      durableSeq = seq;
      List<Held> release = new ArrayList<>();
      while (!held.isEmpty() && held.peek().seq() <= durableSeq) release.add(held.poll());
      return release;
    }
  }

  static void complete(List<Held> released) {
    for (Held h : released) h.complete();
  }

  /** Breaks the gate with {@code cause} unless it is broken already; true if it broke now. */
  boolean breakWith(Throwable cause) {
    synchronized (lock) {
      if (failure != null) return false;
      failure = cause;
      return true;
    }
  }

  /**
   * Takes every held output, to be failed with {@link #fail} once the caller left the lock (the
   * gate must be broken).
   */
  List<Held> takeHeld() {
    synchronized (lock) {
      List<Held> failed = new ArrayList<>(held);
      held.clear();
      return failed;
    }
  }

  void fail(List<Held> failed, Throwable cause) {
    for (Held h : failed) {
      h.future()
          .completeExceptionally(
              new ObjectResetException(
                  "object "
                      + object
                      + " was reset before this call's writes were durable: "
                      + cause.getMessage(),
                  cause));
    }
  }
}
