package io.anteroom.objects.example;

// Verbatim copy of the README example in docs/objects.md: compiled against the public API only.
import io.anteroom.objects.Namespace;
import io.anteroom.objects.ObjectContext;
import io.anteroom.objects.Runtime; // a single-type import: it shadows java.lang.Runtime
import io.anteroom.objects.Storage;
import java.nio.file.Path;

public class CounterExample {
  public interface Counter {
    long next();
  }

  static final class CounterObject implements Counter {
    private final Storage storage;

    CounterObject(ObjectContext ctx) {
      this.storage = ctx.storage();
    }

    @Override
    public long next() {
      long v = storage.get("counter", Long.class).orElse(0L);
      storage.put("counter", v + 1);
      return v; // reaches the caller only once v + 1 is durable
    }
  }

  public static void main(String[] args) {
    try (Runtime runtime = Runtime.builder().dataDir(Path.of("data")).build()) {
      Namespace<Counter> counters = runtime.namespace("counter", Counter.class, CounterObject::new);
      Counter orders = counters.get("orders"); // stub by name: same id in every process
      System.out.println(orders.next()); // 0, then 1, 2, ... across restarts
    }
  }
}
