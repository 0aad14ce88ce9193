package io.anteroom.objects;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.LockFreeExponentiallyDecayingReservoir;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.RatioGauge;
import com.codahale.metrics.Timer;

/** The runtime's Dropwizard metrics; names are documented in {@code docs/objects.md}. */
final class RuntimeMetrics {
    static final String PREFIX = "objects.";

    final MetricRegistry registry;
    final Meter events;
    final Timer gateWait;
    final Timer flushLatency;
    final Histogram batchSize;
    final Meter fsyncs;
    final Histogram batchesPerCommit;
    final Meter cacheHits;
    final Meter cacheMisses;
    final Meter resets;
    final Meter overloadRejections;
    final Counter alarmRetries;

    RuntimeMetrics(MetricRegistry registry) {
        this.registry = registry;
        this.events = registry.meter(PREFIX + "events");
        this.gateWait = timer("gate.wait");
        this.flushLatency = timer("flush.latency");
        this.batchSize = histogram("flush.batch-size");
        this.fsyncs = registry.meter(PREFIX + "storage.fsyncs");
        this.batchesPerCommit = histogram("storage.batches-per-commit");
        this.cacheHits = registry.meter(PREFIX + "cache.hits");
        this.cacheMisses = registry.meter(PREFIX + "cache.misses");
        this.resets = registry.meter(PREFIX + "resets");
        this.overloadRejections = registry.meter(PREFIX + "overload.rejections");
        this.alarmRetries = registry.counter(PREFIX + "alarms.retries");
        registry.register(PREFIX + "cache.hit-ratio", new RatioGauge() {
            @Override
            protected Ratio getRatio() {
                return Ratio.of(cacheHits.getCount(), cacheHits.getCount() + cacheMisses.getCount());
            }
        });
    }

    // lock-free reservoirs: these are updated on every event from many threads
    private Timer timer(String name) {
        return registry.timer(PREFIX + name, () -> new Timer(LockFreeExponentiallyDecayingReservoir.builder().build()));
    }

    private Histogram histogram(String name) {
        return registry.histogram(PREFIX + name, () -> new Histogram(LockFreeExponentiallyDecayingReservoir.builder().build()));
    }
}
