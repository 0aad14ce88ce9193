package io.anteroom.objects.example;

import io.anteroom.objects.Namespace;
import io.anteroom.objects.ObjectContext;
import io.anteroom.objects.Runtime; // shadows java.lang.Runtime on purpose
import io.anteroom.objects.Storage;
import io.anteroom.objects.http.HttpObjectServer;
import io.anteroom.objects.http.HttpObjectTransport;
import io.anteroom.objects.http.RemoteObjects;
import io.anteroom.objects.http.SharedSecret;
import java.nio.file.Path;

/** A counter object in a runtime with SQLite storage, called in process and over HTTP. */
public class GettingStarted {
  /** What callers see: a plain Java interface. */
  public interface Counter {
    long next();

    long current();
  }

  /** The object: one instance per id, one event at a time, state in its own storage. */
  static final class CounterObject implements Counter {
    private final Storage storage;

    CounterObject(ObjectContext ctx) {
      this.storage = ctx.storage();
    }

    @Override
    public long next() {
      long v = current();
      storage.put("value", v + 1);
      return v; // the caller gets v only once v + 1 is durable
    }

    @Override
    public long current() {
      return storage.get("value", Long.class).orElse(0L);
    }
  }

  /** Two numbers in process, one over HTTP; returns the three. */
  public static long[] run(Path dataDir) {
    try (Runtime runtime = Runtime.builder().dataDir(dataDir).build()) {
      Namespace<Counter> counters = runtime.namespace("counter", Counter.class, CounterObject::new);
      Counter orders = counters.get("orders"); // the same object in every process
      long a = orders.next();
      long b = orders.next();

      SharedSecret secret = SharedSecret.generate("k1"); // in production: SharedSecret.parse(...)
      try (HttpObjectServer server =
              HttpObjectServer.builder(runtime.transport())
                  .export("counter") // only exported namespaces can be called
                  .secret(secret) // every call signed with HMAC-SHA256
                  .start(); // 127.0.0.1, a free port
          RemoteObjects remote =
              RemoteObjects.over(
                  HttpObjectTransport.builder(server.uri()).secret(secret).build())) {
        Counter remoteOrders = remote.get("counter", Counter.class, "orders");
        long c = remoteOrders.next(); // durable on the server's side before it returns
        return new long[] {a, b, c};
      }
    }
  }

  public static void main(String[] args) {
    long[] numbers = run(Path.of(args.length > 0 ? args[0] : "data"));
    System.out.println(java.util.Arrays.toString(numbers)); // [0, 1, 2], then [3, 4, 5], ...
  }
}
