package io.anteroom.objects;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * What the runtime gives an object instance: its id, its storage, and the only gate-aware ways to
 * wait. Everything an object does outside itself goes through here, so that the runtime can apply
 * the gates:
 *
 * <ul>
 *   <li>Outgoing calls ({@link #namespace} stubs, {@link #fetch}, {@link #outgoing}) are held by
 *       the output gate until the object's earlier writes are durable, and open the input gate
 *       while they wait: other events may run then, and only then.
 *   <li>{@link #await} and {@link #sleep} open the input gate while waiting.
 *   <li>{@link #blockConcurrencyWhile} keeps the input gate closed for the whole task.
 * </ul>
 *
 * <p>Blocking on anything else (a raw {@code future.join()}, a lock) keeps the input gate closed:
 * correct, but the object serves nobody meanwhile and an {@code A -> B -> A} chain would deadlock.
 *
 * <pre>{@code
 * CounterObject(ObjectContext ctx) {
 *     this.storage = ctx.storage();
 *     ctx.blockConcurrencyWhile(() -> { this.value = storage.get("v", Long.class).orElse(0L); return null; });
 * }
 * }</pre>
 */
public interface ObjectContext {

  ObjectId id();

  /** The namespace this object belongs to. */
  String namespaceName();

  Storage storage();

  /** The runtime's clock. */
  Clock clock();

  /**
   * Runs {@code task} with the input gate closed, including any outgoing calls it makes. Nesting is
   * allowed. If the task throws or exceeds the timeout (default 30 s), the instance is reset and
   * {@link ObjectResetException} is thrown.
   */
  <R> R blockConcurrencyWhile(Callable<R> task);

  /**
   * Stubs of another (or this) namespace of the same runtime, whose calls obey this object's gates.
   */
  <T> Namespace<T> namespace(String name, Class<T> iface);

  /** A stub over any transport (e.g. a remote runtime) whose calls obey this object's gates. */
  <T> T stub(Class<T> iface, String namespace, ObjectId id, ObjectTransport transport);

  /**
   * Sends an outgoing message: {@code send} runs once every earlier write is durable; the input
   * gate is open until its result arrives, then the result is returned (blocking).
   */
  <R> R outgoing(Supplier<CompletableFuture<R>> send);

  /**
   * Sends an HTTP request with the runtime's client ({@link java.net.http.HttpClient}): like {@link
   * #outgoing}, it leaves only once every earlier write is durable, and the input gate is open
   * until the response arrives.
   */
  <T> java.net.http.HttpResponse<T> fetch(
      java.net.http.HttpRequest request, java.net.http.HttpResponse.BodyHandler<T> body);

  /** Waits for {@code future} with the input gate open (not held by the output gate). */
  <R> R await(CompletableFuture<R> future);

  /** Sleeps on the runtime's scheduler with the input gate open. */
  void sleep(Duration duration);
}
