package io.anteroom.objects;

import io.anteroom.objects.storage.InMemoryStorageEngine;
import io.anteroom.objects.storage.StorageEngine;
import io.anteroom.testkit.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.UnaryOperator;

/** An in-memory runtime on virtual time, closed after the test. */
final class Fixture implements AutoCloseable {
  static final Instant START = ManualClock.DEFAULT_START;

  final InMemoryStorageEngine engine;
  final ManualScheduler time;
  final Runtime runtime;
  private final ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor();
  private final List<Runtime> extra = new ArrayList<>();

  static {
    // conditions here are met within microseconds: poll often so that the suite stays fast
    org.awaitility.Awaitility.setDefaultPollInterval(Duration.ofMillis(2));
    org.awaitility.Awaitility.setDefaultPollDelay(Duration.ZERO);
  }

  Fixture() {
    this(new InMemoryStorageEngine(), new ManualScheduler(START), b -> b);
  }

  Fixture(UnaryOperator<Runtime.Builder> config) {
    this(new InMemoryStorageEngine(), new ManualScheduler(START), config);
  }

  Fixture(
      InMemoryStorageEngine engine, ManualScheduler time, UnaryOperator<Runtime.Builder> config) {
    this.engine = engine;
    this.time = time;
    this.runtime = config.apply(Runtime.builder().storage(engine).scheduler(time)).build();
  }

  /** Runs a call on its own (virtual) thread, as another client would. */
  <R> CompletableFuture<R> async(Callable<R> call) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return call.call();
          } catch (Exception e) {
            throw new CompletionException(e);
          }
        },
        callers);
  }

  /**
   * A second runtime over {@code engine} (e.g. a crash image or a reopened store), closed with this
   * fixture.
   */
  Runtime restart(StorageEngine engine) {
    Runtime r = Runtime.builder().storage(engine).scheduler(time).build();
    extra.add(r);
    return r;
  }

  long meter(String name) {
    return runtime.metrics().meter("objects." + name).getCount();
  }

  static Duration seconds(double s) {
    return Duration.ofMillis((long) (s * 1000));
  }

  @Override
  public void close() {
    runtime.close();
    extra.forEach(Runtime::close);
    callers.shutdownNow();
  }
}
