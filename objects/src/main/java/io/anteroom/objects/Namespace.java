package io.anteroom.objects;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * An object class bound to a name in a {@link Runtime}: creates ids and typed stubs.
 *
 * <pre>{@code
 * Namespace<Counter> counters = runtime.namespace("counter", Counter.class, ctx -> new CounterObject(ctx));
 * Counter orders = counters.get("orders");            // stub by name
 * long n = orders.next();                             // blocks until the result is durable
 * Counter fresh = counters.stub(counters.newUniqueId());
 * }</pre>
 *
 * <p>In-process calls keep message semantics: arguments and results are copied through the {@link
 * Codec} (so they must be serializable, and neither side sees the other's later mutations), except
 * immutable scalars (strings, boxed primitives, enums, ids, instants), which are passed as they are
 * because copying them changes nothing. Stubs obtained through {@link ObjectContext#namespace} obey
 * the calling object's gates.
 *
 * @param <T> the object's RPC interface
 */
public final class Namespace<T> {
  private final Runtime runtime;
  private final String name;
  private final Class<T> iface;
  private final Function<ObjectContext, ? extends T> factory;
  private final Map<String, Method> methods;
  private final ObjectHost caller;

  Namespace(
      Runtime runtime,
      String name,
      Class<T> iface,
      Function<ObjectContext, ? extends T> factory,
      ObjectHost caller) {
    this.runtime = runtime;
    this.name = name;
    this.iface = iface;
    this.factory = factory;
    this.methods = Stubs.methods(iface);
    this.caller = caller;
  }

  /** The same namespace seen from inside {@code host}: its calls obey that object's gates. */
  Namespace<T> from(ObjectHost host) {
    return new Namespace<>(runtime, name, iface, factory, host);
  }

  public String name() {
    return name;
  }

  public Class<T> iface() {
    return iface;
  }

  Function<ObjectContext, ? extends T> factory() {
    return factory;
  }

  /** Every method of the interface that can be called. */
  java.util.Collection<Method> methods() {
    return methods.values();
  }

  /** The method called {@code methodName}, or null. */
  Method method(String methodName) {
    return methods.get(methodName);
  }

  /** The id of the object called {@code objectName} here: the same in every process. */
  public ObjectId idFromName(String objectName) {
    return ObjectId.fromName(name, objectName);
  }

  /** A new random id. */
  public ObjectId newUniqueId() {
    return ObjectId.unique();
  }

  /** The stub of object {@code objectName} (same as {@code stub(idFromName(objectName))}). */
  public T get(String objectName) {
    return stub(idFromName(objectName));
  }

  /** A typed stub of object {@code id}; the object is created on its first call. */
  public T stub(ObjectId id) {
    Objects.requireNonNull(id, "id");
    ObjectTransport elsewhere = runtime.elsewhere(name, id);
    if (elsewhere != null) {
      // served by another runtime (another shard): through its transport, obeying our gates
      return caller != null
          ? caller.context.stub(iface, name, id, elsewhere)
          : Stubs.create(iface, name, id, elsewhere);
    }
    Codec codec = runtime.codec;
    InvocationHandler handler =
        (proxy, method, args) -> {
          if (method.getDeclaringClass() == Object.class)
            return Stubs.objectMethod(proxy, method, args, "stub of " + name + "/" + id);
          if (method.isDefault()) return InvocationHandler.invokeDefault(proxy, method, args);
          Object[] copied = copyArgs(codec, method, args);
          boolean async = Codec.isAsync(method);
          if (caller == null) {
            if (!async)
              return ObjectContextImpl.join(runtime.invokeBlocking(this, id, method, copied));
            try {
              return runtime.detached(runtime.invoke(this, id, method, copied, false));
            } catch (ObjectOverloadedException e) {
              return CompletableFuture.failedFuture(e);
            }
          }
          ObjectContextImpl ctx = caller.context;
          if (async) {
            return runtime.detached(
                ctx.heldByOutputGate(() -> runtime.invoke(this, id, method, copied, false)));
          }
          return ctx.outgoing(() -> runtime.invoke(this, id, method, copied, false));
        };
    return iface.cast(
        Proxy.newProxyInstance(iface.getClassLoader(), new Class<?>[] {iface}, handler));
  }

  private static Object[] copyArgs(Codec codec, Method method, Object[] args) {
    if (args == null) return new Object[0];
    Object[] out = args.clone();
    for (int i = 0; i < out.length; i++) {
      if (!Codec.isImmutableScalar(out[i])) {
        out[i] =
            codec.copy(
                out[i],
                codec.parameterTypes(method)[i],
                "argument " + i + " of " + Codec.describe(method));
      }
    }
    return out;
  }

  @Override
  public String toString() {
    return "Namespace[" + name + ", " + iface.getName() + "]";
  }
}
