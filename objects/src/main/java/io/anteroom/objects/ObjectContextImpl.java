package io.anteroom.objects;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The context of one live object. Every wait here is gate-aware (see {@link ObjectContext}); the
 * methods must be called from the object's own event (the thread holding its input gate).
 */
final class ObjectContextImpl implements ObjectContext {
  private final ObjectHost host;

  ObjectContextImpl(ObjectHost host) {
    this.host = host;
  }

  @Override
  public ObjectId id() {
    return host.id;
  }

  @Override
  public String namespaceName() {
    return host.namespace.name();
  }

  @Override
  public Storage storage() {
    return host.storage;
  }

  @Override
  public Clock clock() {
    return host.runtime.clock();
  }

  @Override
  public <R> R blockConcurrencyWhile(Callable<R> task) {
    host.checkHolder("blockConcurrencyWhile");
    host.throwIfBroken();
    Thread caller = Thread.currentThread();
    Duration limit = host.runtime.blockConcurrencyTimeout;
    CompletableFuture<R> result = new CompletableFuture<>();
    host.blockDepth++;
    // the task runs on its own virtual thread so that the timeout can end the wait for it
    Thread worker =
        Thread.ofVirtual()
            .name("object-" + host.namespace.name() + "-block")
            .start(
                () -> {
                  host.gate.runBy(Thread.currentThread());
                  try {
                    result.complete(task.call());
                  } catch (Throwable t) {
                    result.completeExceptionally(t);
                  }
                });
    Scheduler.Cancellable timeout =
        host.runtime.scheduler.schedule(
            host.runtime.clock().instant().plus(limit),
            () ->
                result.completeExceptionally(
                    new TimeoutException(
                        "blockConcurrencyWhile task of object "
                            + host.namespace.name()
                            + "/"
                            + host.id
                            + " exceeded its "
                            + limit.toMillis()
                            + " ms timeout")));
    try {
      return result.join();
    } catch (CompletionException e) {
      Throwable cause = Codec.unwrap(e);
      if (cause instanceof TimeoutException) worker.interrupt();
      host.reset(cause);
      throw new ObjectResetException(
          "blockConcurrencyWhile failed, object "
              + host.namespace.name()
              + "/"
              + host.id
              + " was reset: "
              + cause,
          cause);
    } finally {
      timeout.cancel();
      host.gate.runBy(caller);
      host.blockDepth--;
    }
  }

  @Override
  public <T> Namespace<T> namespace(String name, Class<T> iface) {
    return host.runtime.namespace(name, iface).from(host);
  }

  @Override
  public <T> T stub(Class<T> iface, String namespace, ObjectId id, ObjectTransport transport) {
    ObjectTransport gated =
        new ObjectTransport() {
          @Override
          public CompletableFuture<byte[]> call(
              String ns, ObjectId target, String method, byte[] encodedArgs) {
            return heldByOutputGate(() -> transport.call(ns, target, method, encodedArgs));
          }
        };
    return Stubs.create(iface, namespace, id, gated, this::await);
  }

  /** Sends once every earlier confirmed write is durable, without waiting here. */
  <R> CompletableFuture<R> heldByOutputGate(Supplier<CompletableFuture<R>> send) {
    host.checkHolder("an outgoing call");
    checkNotInTransaction();
    CompletableFuture<Object> confirmed = host.storage.whenConfirmed();
    if (host.blockDepth > 0)
      host.storage.onYield(); // nothing else will seal the writes it waits for
    return confirmed.thenCompose(v -> send.get());
  }

  @Override
  public <R> R outgoing(Supplier<CompletableFuture<R>> send) {
    host.checkHolder("outgoing");
    checkNotInTransaction();
    CompletableFuture<Object> confirmed = host.storage.whenConfirmed();
    if (host.blockDepth > 0) {
      host.storage.onYield(); // the gate stays closed, but the writes must still flush
      join(confirmed);
      return join(send.get());
    }
    host.exitGate();
    try {
      join(confirmed);
      return join(send.get());
    } finally {
      host.enterGate();
    }
  }

  @Override
  public <T> java.net.http.HttpResponse<T> fetch(
      java.net.http.HttpRequest request, java.net.http.HttpResponse.BodyHandler<T> body) {
    return outgoing(() -> host.runtime.httpClient().sendAsync(request, body));
  }

  @Override
  public <R> R await(CompletableFuture<R> future) {
    host.checkHolder("await");
    if (future.isDone() || host.blockDepth > 0) return join(future);
    host.exitGate();
    try {
      return join(future);
    } finally {
      host.enterGate();
    }
  }

  @Override
  public void sleep(Duration duration) {
    CompletableFuture<Void> woke = new CompletableFuture<>();
    host.runtime.scheduler.schedule(
        host.runtime.clock().instant().plus(duration), () -> woke.complete(null));
    await(woke);
  }

  private void checkNotInTransaction() {
    if (host.storage.inTransaction()) {
      throw new IllegalStateException(
          "outgoing calls are not allowed inside storage.transaction(...): "
              + "the transaction's writes cannot be confirmed before it ends; call after the transaction");
    }
  }

  static <R> R join(CompletableFuture<R> f) {
    try {
      return f.join();
    } catch (CompletionException e) {
      throw Codec.sneaky(Codec.unwrap(e));
    }
  }
}
