package io.anteroom.door;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.Reservoir;
import com.codahale.metrics.Snapshot;
import com.codahale.metrics.UniformSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ThinnedReservoirTest {

  /** Keeps every value it is handed. */
  private static final class Everything implements Reservoir {
    final List<Long> values = new ArrayList<>();

    @Override
    public int size() {
      return values.size();
    }

    @Override
    public void update(long value) {
      values.add(value);
    }

    @Override
    public Snapshot getSnapshot() {
      return new UniformSnapshot(values);
    }
  }

  @Test
  void everyValueIsHandedOnUntilTheWarmCountThenOneInEvery() {
    var inner = new Everything();
    int[] draws = {0};
    // the random source answers 0 on every fourth draw: one value in 4 after the warm phase
    var thinned = new ThinnedReservoir(inner, 10, 4, bound -> draws[0]++ % bound);
    for (long v = 0; v < 10; v++) {
      thinned.update(v);
    }
    assertThat(inner.values).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
    for (long v = 10; v < 30; v++) {
      thinned.update(v);
    }
    assertThat(inner.values).hasSize(15).endsWith(10L, 14L, 18L, 22L, 26L);
  }

  @Test
  void theHistogramStillCountsEveryValueAndTheQuantilesFollowTheStream() {
    var inner = new Everything();
    var random = new Random(7);
    var histogram = new Histogram(new ThinnedReservoir(inner, 100, 16, random::nextInt));
    for (int i = 0; i < 160_000; i++) {
      histogram.update(i % 1000); // uniform over 0..999
    }
    assertThat(histogram.getCount()).isEqualTo(160_000);
    assertThat(inner.values.size()).isBetween(9_000, 11_000); // 100 + about 159,900 / 16
    Snapshot s = histogram.getSnapshot();
    assertThat(s.getMedian()).isBetween(450.0, 550.0);
    assertThat(s.get95thPercentile()).isBetween(920.0, 980.0);
  }

  @Test
  void aNegativeWarmCountOrANonPositiveRateIsRefused() {
    assertThatThrownBy(() -> new ThinnedReservoir(new Everything(), -1, 16, b -> 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ThinnedReservoir(new Everything(), 0, 0, b -> 0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
