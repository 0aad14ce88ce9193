package io.anteroom.objects;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * How a stub reaches the runtime that hosts an object: in-process, HTTP to a remote runtime, or
 * HTTP routed to the leader of the object's shard among several coordinators.
 *
 * <p>Invariants every implementation keeps:
 *
 * <ul>
 *   <li>One {@link #call} is at most one delivery of one event to the object. A transport never
 *       sends a call again once it may have been delivered: a retry could apply it twice (a routing
 *       transport may try another server only when the call certainly did not run). Connection
 *       failures and timeouts complete the future exceptionally with {@link
 *       ObjectTransportException}.
 *   <li>The returned future completes only when the reply has been released by the object's output
 *       gate, i.e. after every write the call made is durable.
 *   <li>Arguments and replies are opaque bytes produced by the runtime's codec; a transport does
 *       not look inside them. A reply encodes either the result or the exception the object threw
 *       (type name and message), so a remote failure of the object is a normal completion here.
 * </ul>
 */
public interface ObjectTransport extends AutoCloseable {

  /**
   * Delivers a call to {@code method} of object {@code id} in namespace {@code namespace}.
   *
   * @param encodedArgs the codec's encoding of the argument array
   * @return the codec's encoding of the reply (result or exception)
   */
  CompletableFuture<byte[]> call(String namespace, ObjectId id, String method, byte[] encodedArgs);

  /**
   * The runtime instance that serves object {@code id} of {@code namespace} now, where this
   * transport hosts it (an object server sends it with each reply); empty for transports that only
   * reach a remote runtime, or while no runtime serves the object here.
   */
  default Optional<Incarnation> incarnation(String namespace, ObjectId id) {
    return Optional.empty();
  }

  @Override
  default void close() {}
}
