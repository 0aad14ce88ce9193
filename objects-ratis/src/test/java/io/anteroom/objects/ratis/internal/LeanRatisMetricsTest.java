package io.anteroom.objects.ratis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.ratis.metrics.LongCounter;
import org.apache.ratis.metrics.MetricRegistries;
import org.apache.ratis.metrics.MetricRegistryInfo;
import org.apache.ratis.metrics.RatisMetricRegistry;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.Test;

class LeanRatisMetricsTest {
  private static final MetricRegistryInfo INFO =
      new MetricRegistryInfo("p0@group-1", "ratis", "server", "a test registry");

  @Test
  void ratisLoadsTheLeanMetricsInsteadOfItsDropwizardDefault() {
    assertThat(MetricRegistries.global()).isInstanceOf(LeanRatisMetrics.class);
  }

  @Test
  void oneRegistryPerComponentKeepsCountersAndGaugesUntilRemoved() {
    LeanRatisMetrics metrics = new LeanRatisMetrics();
    RatisMetricRegistry registry = metrics.create(INFO);
    assertThat(metrics.create(INFO)).isSameAs(registry);
    assertThat(metrics.get(INFO)).containsSame(registry);

    LongCounter counter = registry.counter("appendEntries");
    counter.inc();
    counter.inc(4);
    counter.dec();
    assertThat(registry.counter("appendEntries").getCount()).isEqualTo(4);
    registry.gauge("commitIndex", () -> () -> 42L);
    assertThat(((LeanRatisMetrics.Registry) registry).gaugeValue("commitIndex")).contains(42L);

    assertThat(registry.remove("appendEntries")).isTrue();
    assertThat(registry.counter("appendEntries").getCount()).isZero();
    assertThat(metrics.remove(INFO)).as("created twice: one creator left").isFalse();
    assertThat(metrics.remove(INFO)).isTrue();
    assertThat(metrics.get(INFO)).isEmpty();
    assertThat(metrics.getMetricRegistries()).isEmpty();
  }

  /** As in Ratis' default: a registry created twice (two parts of a server) stays for the other. */
  @Test
  void aRegistryCreatedTwiceStaysUntilBothCreatorsRemovedIt() {
    LeanRatisMetrics metrics = new LeanRatisMetrics();
    RatisMetricRegistry first = metrics.create(INFO);
    first.counter("elections").inc();
    assertThat(metrics.create(INFO)).isSameAs(first);

    assertThat(metrics.remove(INFO)).as("one creator left").isFalse();
    assertThat(metrics.get(INFO)).containsSame(first);
    assertThat(metrics.get(INFO).orElseThrow().counter("elections").getCount()).isOne();

    assertThat(metrics.remove(INFO)).as("none left").isTrue();
    assertThat(metrics.get(INFO)).isEmpty();
  }

  @Test
  void aTimerReturnsTheElapsedTimeAndReportersAreRefusedWithAReason() {
    LeanRatisMetrics metrics = new LeanRatisMetrics();
    long before = System.nanoTime();
    long elapsed = metrics.create(INFO).timer("flush").time().stop();
    assertThat(elapsed).isBetween(0L, System.nanoTime() - before);

    assertThatThrownBy(metrics::enableJmxReporter)
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("/metrics");
    assertThatThrownBy(() -> metrics.enableConsoleReporter(TimeDuration.ONE_SECOND))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> metrics.addReporterRegistration(r -> {}, r -> {}))
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
