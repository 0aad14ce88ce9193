package io.anteroom.objects;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Runs short tasks at instants of a {@link Clock}: alarms, idle eviction, timeouts. Tests use
 * {@link ManualScheduler}, whose clock only moves when told, so no test sleeps.
 */
public interface Scheduler extends AutoCloseable {

    /** The clock that defines "now" for {@link #schedule}. */
    Clock clock();

    /** Runs {@code task} at or after {@code at} (at once if it is in the past). */
    Cancellable schedule(Instant at, Runnable task);

    /** Stops running tasks. */
    @Override
    void close();

    /** A scheduled task. */
    interface Cancellable {
        /** Prevents the task from running if it has not started. */
        void cancel();
    }

    /** Real time: a single daemon thread runs the tasks. */
    static Scheduler system(Clock clock) {
        return new SystemScheduler(clock);
    }

    /** The default implementation over a {@link ScheduledExecutorService}. */
    final class SystemScheduler implements Scheduler {
        private final Clock clock;
        private final ScheduledThreadPoolExecutor executor;

        SystemScheduler(Clock clock) {
            this.clock = clock;
            this.executor = new ScheduledThreadPoolExecutor(1, r -> {
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
}
