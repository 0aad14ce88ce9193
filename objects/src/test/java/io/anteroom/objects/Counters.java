package io.anteroom.objects;

import java.util.concurrent.CompletableFuture;

/**
 * The counter object of the spec, shared by the runtime tests, the HTTP tests and the crash test's
 * child process.
 */
public final class Counters {
  private Counters() {}

  public interface Counter {
    long next();

    long current();

    CompletableFuture<Long> nextAsync();

    void fail(String message);

    void failChecked() throws java.io.IOException;
  }

  /** The naive counter of the spec, plus methods that throw. */
  public static final class CounterObject implements Counter {
    private final Storage storage;

    public CounterObject(ObjectContext ctx) {
      this.storage = ctx.storage();
    }

    @Override
    public long next() {
      long v = storage.get("counter", Long.class).orElse(0L);
      storage.put("counter", v + 1);
      return v;
    }

    @Override
    public long current() {
      return storage.get("counter", Long.class).orElse(0L);
    }

    @Override
    public CompletableFuture<Long> nextAsync() {
      return CompletableFuture.completedFuture(next());
    }

    @Override
    public void fail(String message) {
      throw new IllegalStateException(message);
    }

    @Override
    public void failChecked() throws java.io.IOException {
      throw new java.io.IOException("disk on fire");
    }
  }
}
