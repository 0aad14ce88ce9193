package io.anteroom.objects.ratis.internal;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.ratis.metrics.LongCounter;
import org.apache.ratis.metrics.MetricRegistries;
import org.apache.ratis.metrics.MetricRegistryInfo;
import org.apache.ratis.metrics.RatisMetricRegistry;
import org.apache.ratis.metrics.Timekeeper;
import org.apache.ratis.util.RefCountingMap;
import org.apache.ratis.util.TimeDuration;

/**
 * Ratis' internal metrics without histograms. Ratis' servers need a {@link MetricRegistries}
 * implementation; its default one ({@code ratis-metrics-default}) feeds a Dropwizard timer with an
 * exponentially decaying reservoir (a concurrent skip list) several times per log entry on every
 * peer: about 1.7 % of a cluster's CPU outside the JIT in a profile of the benchmark, for figures
 * nobody reads. Anteroom exports its own per-shard metrics ({@code /metrics} of a coordinator), and
 * nothing reports Ratis' registries: no JMX or console reporter is ever started.
 *
 * <p>So counters and gauges are kept (cheap, and readable by anyone holding the registry), while a
 * timer only measures the elapsed time it returns and records nothing. Reporters are refused with a
 * clear error rather than silently given empty timers.
 *
 * <p>Loaded by Ratis through {@link java.util.ServiceLoader} ({@code
 * META-INF/services/org.apache.ratis.metrics.MetricRegistries}).
 */
public final class LeanRatisMetrics extends MetricRegistries {
  /**
   * Counted as Ratis' default counts them: each {@link #create} of a component's registry must be
   * matched by a {@link #remove} before it goes (several parts of a server share one).
   */
  private final RefCountingMap<MetricRegistryInfo, Registry> registries = new RefCountingMap<>();

  /** Called by Ratis' loader. */
  public LeanRatisMetrics() {}

  @Override
  public void clear() {
    registries.clear();
  }

  @Override
  public RatisMetricRegistry create(MetricRegistryInfo info) {
    return registries.put(info, () -> new Registry(info));
  }

  /** Releases one {@link #create}; true once no creator holds the registry any more. */
  @Override
  public boolean remove(MetricRegistryInfo info) {
    return registries.remove(info) == null;
  }

  @Override
  public Optional<RatisMetricRegistry> get(MetricRegistryInfo info) {
    return Optional.ofNullable(registries.get(info));
  }

  @Override
  public Set<MetricRegistryInfo> getMetricRegistryInfos() {
    return Set.copyOf(registries.keySet());
  }

  @Override
  public Collection<RatisMetricRegistry> getMetricRegistries() {
    return List.copyOf(registries.values());
  }

  @Override
  public void addReporterRegistration(
      Consumer<RatisMetricRegistry> start, Consumer<RatisMetricRegistry> stop) {
    throw noReporters();
  }

  @Override
  public void enableJmxReporter() {
    throw noReporters();
  }

  @Override
  public void enableConsoleReporter(TimeDuration period) {
    throw noReporters();
  }

  private static UnsupportedOperationException noReporters() {
    return new UnsupportedOperationException(
        "Anteroom runs Ratis without its metric reporters (LeanRatisMetrics keeps no timer"
            + " histograms); a coordinator's metrics are served by --status-listen's /metrics");
  }

  /** One component's counters and gauges; timers measure and record nothing. */
  static final class Registry implements RatisMetricRegistry {
    private static final Timekeeper ELAPSED_ONLY =
        () -> {
          long start = System.nanoTime();
          return () -> System.nanoTime() - start;
        };

    private final MetricRegistryInfo info;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final Map<String, Supplier<?>> gauges = new ConcurrentHashMap<>();

    Registry(MetricRegistryInfo info) {
      this.info = info;
    }

    @Override
    public Timekeeper timer(String name) {
      return ELAPSED_ONLY;
    }

    @Override
    public LongCounter counter(String name) {
      return counters.computeIfAbsent(name, n -> new Counter());
    }

    @Override
    public boolean remove(String name) {
      return counters.remove(name) != null | gauges.remove(name) != null;
    }

    @Override
    public <T> void gauge(String name, Supplier<Supplier<T>> gauge) {
      gauges.put(name, gauge.get());
    }

    /** The current value of gauge {@code name}, if registered. */
    Optional<Object> gaugeValue(String name) {
      return Optional.ofNullable(gauges.get(name)).map(Supplier::get);
    }

    @Override
    public MetricRegistryInfo getMetricRegistryInfo() {
      return info;
    }
  }

  private static final class Counter implements LongCounter {
    private final LongAdder count = new LongAdder();

    @Override
    public void inc(long n) {
      count.add(n);
    }

    @Override
    public void dec(long n) {
      count.add(-n);
    }

    @Override
    public long getCount() {
      return count.sum();
    }
  }
}
