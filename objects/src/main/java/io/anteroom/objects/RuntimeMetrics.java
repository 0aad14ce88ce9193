package io.anteroom.objects;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.RatioGauge;
import com.codahale.metrics.SlidingWindowReservoir;
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
    gauge(
        "cache.hit-ratio",
        new RatioGauge() {
          @Override
          protected Ratio getRatio() {
            return Ratio.of(cacheHits.getCount(), cacheHits.getCount() + cacheMisses.getCount());
          }
        });
  }

  /**
   * Registers a gauge of this runtime, replacing one left by an earlier runtime on a shared
   * registry.
   */
  void gauge(String name, com.codahale.metrics.Gauge<?> gauge) {
    registry.remove(PREFIX + name);
    registry.register(PREFIX + name, gauge);
  }

  // These are updated on every event and flush: a sliding window of the last 1,028 values is
  // the cheapest reservoir (an array write), and shows recent behaviour.
  private static final int WINDOW = 1028;

  private Timer timer(String name) {
    return registry.timer(PREFIX + name, () -> new Timer(new SlidingWindowReservoir(WINDOW)));
  }

  private Histogram histogram(String name) {
    return registry.histogram(
        PREFIX + name, () -> new Histogram(new SlidingWindowReservoir(WINDOW)));
  }
}
