package io.anteroom.objects;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** The default implementation over a {@link ScheduledExecutorService}. */
final class SystemScheduler implements Scheduler {
  private final Clock clock;
  private final ScheduledThreadPoolExecutor executor;

  SystemScheduler(Clock clock) {
    this.clock = clock;
    this.executor =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "anteroom-objects-scheduler");
              t.setDaemon(true);
              return t;
            });
    executor.setRemoveOnCancelPolicy(true);
  }

  @Override
  public Clock clock() {
    return clock;
  }

  @Override
  public Cancellable schedule(Instant at, Runnable task) {
    long delay = Math.max(0, Duration.between(clock.instant(), at).toNanos());
    ScheduledFuture<?> f = executor.schedule(task, delay, TimeUnit.NANOSECONDS);
    return () -> f.cancel(false);
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
