package io.anteroom.objects.http;

import io.anteroom.objects.ObjectId;
import io.anteroom.objects.Stubs;
import java.net.URI;
import java.util.Objects;

/**
 * Typed stubs for the objects of a runtime in another process, served there by {@link
 * HttpObjectServer}. Stubs behave like local ones, gates included: a call returns only once the
 * remote object's output gate released its reply, and an exception the object threw comes back with
 * its type and message. A lost connection or a timeout throws {@link
 * io.anteroom.objects.ObjectTransportException}; the call is never retried for you, because it may
 * have run.
 *
 * <pre>{@code
 * // in the process that hosts the objects
 * Runtime runtime = Runtime.builder().dataDir(Path.of("data")).build();
 * runtime.namespace("counter", Counter.class, CounterObject::new);
 * SharedSecret secret = SharedSecret.parse(System.getenv("ANTEROOM_COORDINATOR_SECRET"));
 * HttpObjectServer server = HttpObjectServer.builder(runtime.transport())
 *         .export("counter").secret(secret).host("0.0.0.0").port(8081).start();
 *
 * // in any other process
 * try (RemoteObjects remote = RemoteObjects.over(HttpObjectTransport.builder(URI.create("http://10.0.0.2:8081"))
 *         .secret(secret).build())) {
 *     Counter orders = remote.get("counter", Counter.class, "orders");
 *     long n = orders.next();     // durable on the remote side before it returns
 * }
 * }</pre>
 *
 * <p>Thread-safe; one instance (one connection pool) per remote runtime is enough for a process.
 */
public final class RemoteObjects implements AutoCloseable {
  private final HttpObjectTransport transport;

  private RemoteObjects(HttpObjectTransport transport) {
    this.transport = transport;
  }

  /**
   * Connects without authentication to the runtime served at {@code uri} with the default pool (64)
   * and timeout (30 s): only for a server on a loopback address without a secret.
   */
  public static RemoteObjects connect(URI uri) {
    return new RemoteObjects(HttpObjectTransport.builder(uri).build());
  }

  /**
   * Uses a transport configured by the caller, e.g. {@code
   * RemoteObjects.over(HttpObjectTransport.builder(uri).timeout(Duration.ofSeconds(5)).build())};
   * closing the {@code RemoteObjects} closes it.
   */
  public static RemoteObjects over(HttpObjectTransport transport) {
    return new RemoteObjects(Objects.requireNonNull(transport, "transport"));
  }

  /** A stub of object {@code id} of {@code namespace}, implementing {@code iface}. */
  public <T> T stub(String namespace, Class<T> iface, ObjectId id) {
    return Stubs.create(iface, namespace, id, transport);
  }

  /**
   * The stub of the object called {@code name}: the same object as {@code namespace.get(name)} in
   * the hosting runtime.
   */
  public <T> T get(String namespace, Class<T> iface, String name) {
    return stub(namespace, iface, ObjectId.fromName(namespace, name));
  }

  /** The underlying transport (for code that speaks encoded calls itself). */
  public HttpObjectTransport transport() {
    return transport;
  }

  /** Closes the connection pool; calls in flight fail with an {@code ObjectTransportException}. */
  @Override
  public void close() {
    transport.close();
  }
}
