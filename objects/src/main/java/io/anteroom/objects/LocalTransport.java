package io.anteroom.objects;

import java.lang.reflect.Method;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The in-process {@link ObjectTransport} of a runtime: decodes the arguments, delivers one event,
 * and completes with the encoded reply once the output gate released it. Everything the object or
 * the runtime reports about the call (the object's exception, an unknown method, overload, reset)
 * is an encoded error reply; only a closed runtime fails the future itself (nothing was delivered).
 */
final class LocalTransport implements ObjectTransport {
  private final Runtime runtime;

  LocalTransport(Runtime runtime) {
    this.runtime = runtime;
  }

  @Override
  public CompletableFuture<byte[]> call(
      String namespace, ObjectId id, String method, byte[] encodedArgs) {
    if (runtime.isClosed()) {
      return CompletableFuture.failedFuture(
          new IllegalStateException("runtime is closed: it accepts no more calls"));
    }
    Codec codec = runtime.codec;
    Namespace<?> ns = runtime.namespaceOrNull(namespace);
    if (ns == null) {
      return error(
          codec, new IllegalArgumentException("no namespace " + namespace + " in this runtime"));
    }
    Method m = ns.method(method);
    if (m == null) {
      return error(
          codec,
          new IllegalArgumentException(
              "namespace "
                  + namespace
                  + " ("
                  + ns.iface().getName()
                  + ") has no method "
                  + method));
    }
    Object[] args;
    try {
      args = codec.decodeArgs(m, encodedArgs);
    } catch (IllegalArgumentException e) {
      return error(codec, e);
    }
    CompletableFuture<Object> reply;
    try {
      reply = runtime.invoke(ns, id, m, args, true);
    } catch (ObjectOverloadedException e) {
      return error(codec, e);
    } catch (IllegalStateException e) {
      return CompletableFuture.failedFuture(e);
    }
    CompletableFuture<byte[]> out = new CompletableFuture<>();
    reply.whenComplete(
        (bytes, failure) -> {
          if (failure == null) {
            out.complete((byte[]) bytes);
          } else if (Codec.unwrap(failure) instanceof Runtime.ClosedBeforeRunException notRun) {
            out.completeExceptionally(notRun); // the transport's failure: the call did not run
          } else {
            out.complete(codec.encodeError(failure));
          }
        });
    return out;
  }

  /** The runtime's incarnation, in group {@value Runtime#INCARNATION_GROUP}: every object. */
  @Override
  public Optional<Incarnation> incarnation(String namespace, ObjectId id) {
    return Optional.of(runtime.incarnation());
  }

  private static CompletableFuture<byte[]> error(Codec codec, Throwable t) {
    return CompletableFuture.completedFuture(codec.encodeError(t));
  }
}
