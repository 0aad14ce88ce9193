package io.anteroom.objects;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Typed stubs over any {@link ObjectTransport}: a {@link Proxy} implementing the object's interface
 * whose calls are encoded by the {@link Codec}, sent, and decoded. Methods returning {@code
 * CompletableFuture<R>} are asynchronous; any other method blocks until the reply (released by the
 * object's output gate) arrives. An exception the object threw is re-thrown with its type and
 * message (see {@link Codec}).
 *
 * <p>An object interface may not overload method names: calls are routed by name.
 *
 * <pre>{@code
 * Counter counter = Stubs.create(Counter.class, "counter", ObjectId.fromName("counter", "orders"), transport);
 * long n = counter.next();
 * }</pre>
 */
public final class Stubs {
  private static final ClassValue<Map<String, Method>> METHODS =
      new ClassValue<>() {
        @Override
        protected Map<String, Method> computeValue(Class<?> iface) {
          return scan(iface);
        }
      };

  private Stubs() {}

  /** A stub of object {@code id} of {@code namespace}, reached through {@code transport}. */
  public static <T> T create(
      Class<T> iface, String namespace, ObjectId id, ObjectTransport transport) {
    return create(iface, namespace, id, transport, ObjectContextImpl::join);
  }

  /** As above; {@code waiter} waits for replies of blocking methods (gate-aware inside objects). */
  static <T> T create(
      Class<T> iface,
      String namespace,
      ObjectId id,
      ObjectTransport transport,
      Function<CompletableFuture<byte[]>, byte[]> waiter) {
    methods(iface);
    Codec codec = Codec.standard();
    InvocationHandler handler =
        (proxy, method, args) -> {
          if (method.getDeclaringClass() == Object.class)
            return objectMethod(proxy, method, args, "stub of " + namespace + "/" + id);
          if (method.isDefault()) return InvocationHandler.invokeDefault(proxy, method, args);
          byte[] encoded = codec.encodeArgs(method, args);
          CompletableFuture<byte[]> reply =
              transport.call(namespace, id, method.getName(), encoded);
          if (Codec.isAsync(method)) {
            return reply.thenApply(bytes -> codec.decodeReply(method, bytes));
          }
          return codec.decodeReply(method, waiter.apply(reply));
        };
    return iface.cast(
        Proxy.newProxyInstance(iface.getClassLoader(), new Class<?>[] {iface}, handler));
  }

  /**
   * The methods of an object interface by name.
   *
   * @throws IllegalArgumentException if {@code iface} is not an interface or overloads a name
   */
  static Map<String, Method> methods(Class<?> iface) {
    return METHODS.get(iface);
  }

  private static Map<String, Method> scan(Class<?> iface) {
    if (!iface.isInterface()) {
      throw new IllegalArgumentException(
          iface.getName() + " is not an interface: stubs implement the object's RPC interface");
    }
    Map<String, Method> out = new HashMap<>();
    for (Method m : iface.getMethods()) {
      if (m.isDefault() || Modifier.isStatic(m.getModifiers())) continue;
      Method previous = out.put(m.getName(), m);
      if (previous != null) {
        throw new IllegalArgumentException(
            "object interface "
                + iface.getName()
                + " overloads method "
                + m.getName()
                + ": calls are routed by name, give each method a distinct name");
      }
      m.setAccessible(true);
    }
    return Collections.unmodifiableMap(out);
  }

  static Object objectMethod(Object proxy, Method method, Object[] args, String description) {
    return switch (method.getName()) {
      case "equals" -> proxy == args[0];
      case "hashCode" -> System.identityHashCode(proxy);
      default -> description;
    };
  }
}
