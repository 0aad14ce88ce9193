package io.anteroom.door;

import com.codahale.metrics.Reservoir;
import com.codahale.metrics.Snapshot;
import java.util.function.IntUnaryOperator;

/**
 * A reservoir that hands its inner reservoir every value until it has handed it {@code warm}
 * values, then one value in {@code every}, chosen at random: the quantiles of a steady stream are
 * unchanged (a uniform random thinning keeps the distribution), and a quiet room's first values are
 * all kept. The histogram around it still counts every value.
 *
 * <p>Why: the origin's latency is recorded on every passed request, and the exponentially decaying
 * reservoir's update costs far more than the request's other metrics once time has run (newer
 * values weigh more, so nearly every one goes into its sorted map): 1.6 % of the request threads'
 * samples in the Servlet filter's profile (docs/benchmarks.md). Thread-safe: the warm count is a
 * plain field, read racily (a few values more or fewer in the warm phase).
 */
final class ThinnedReservoir implements Reservoir {
  private final Reservoir inner;
  private final int warm;
  private final int every;
  private final IntUnaryOperator random;
  private int handed;

  /**
   * @param inner the reservoir that keeps the values
   * @param warm how many values are all handed on first
   * @param every one value in this many is handed on after that
   * @param random {@code bound -> a number in [0, bound)}
   */
  ThinnedReservoir(Reservoir inner, int warm, int every, IntUnaryOperator random) {
    if (warm < 0 || every < 1) {
      throw new IllegalArgumentException("warm must not be negative, every must be positive");
    }
    this.inner = inner;
    this.warm = warm;
    this.every = every;
    this.random = random;
  }

  @Override
  public int size() {
    return inner.size();
  }

  @Override
  public void update(long value) {
    if (handed < warm) {
      handed++;
      inner.update(value);
    } else if (random.applyAsInt(every) == 0) {
      inner.update(value);
    }
  }

  @Override
  public Snapshot getSnapshot() {
    return inner.getSnapshot();
  }
}
