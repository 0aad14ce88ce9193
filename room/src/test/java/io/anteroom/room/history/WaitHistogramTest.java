package io.anteroom.room.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class WaitHistogramTest {

  private static WaitHistogram of(long... seconds) {
    WaitHistogram h = WaitHistogram.EMPTY;
    for (long s : seconds) {
      h = h.with(Duration.ofSeconds(s));
    }
    return h;
  }

  @Test
  void aWaitFallsInTheFirstBucketWhoseBoundHoldsIt() {
    assertThat(WaitHistogram.bucketOf(Duration.ZERO)).isZero();
    assertThat(WaitHistogram.bucketOf(Duration.ofSeconds(-3))).as("clock skew").isZero();
    assertThat(WaitHistogram.bucketOf(Duration.ofMillis(1))).isEqualTo(1);
    assertThat(WaitHistogram.bucketOf(Duration.ofSeconds(60))).isEqualTo(6);
    assertThat(WaitHistogram.bucketOf(Duration.ofSeconds(61))).isEqualTo(7);
    assertThat(WaitHistogram.bucketOf(Duration.ofDays(1))).isEqualTo(WaitHistogram.BUCKETS - 1);
  }

  @Test
  void percentilesAreTheUpperBoundOfTheBucketHoldingTheRank() {
    WaitHistogram h = of(0, 0, 0, 40, 50, 100, 100, 100, 100, 1000);
    assertThat(h.total()).isEqualTo(10);
    assertThat(h.percentileSeconds(0.5)).hasValue(60); // 5th wait: 50 s, bucket (45, 60]
    assertThat(h.percentileSeconds(0.6)).hasValue(120); // 6th wait: 100 s, bucket (90, 120]
    assertThat(h.percentileSeconds(0.3)).hasValue(0);
    assertThat(h.percentileSeconds(0.4)).hasValue(45);
    assertThat(h.percentileSeconds(0.95)).hasValue(1200);
    assertThat(h.percentileSeconds(1)).hasValue(1200);
    assertThat(WaitHistogram.EMPTY.percentileSeconds(0.5)).isEmpty();
    assertThat(of(100_000).percentileSeconds(0.5))
        .as("the open bucket answers its lower bound")
        .hasValue(21600);
  }

  @Test
  void aPercentileIsNeverBelowTheTrueWait() {
    for (long s = 0; s < 30_000; s += 7) {
      assertThat(of(s).percentileSeconds(0.5).getAsLong())
          .isGreaterThanOrEqualTo(Math.min(s, 21600));
    }
  }

  @Test
  void badCountsAreRefusedAndShortOnesPadded() {
    assertThatThrownBy(() -> new WaitHistogram(new long[] {1, -1}))
        .hasMessageContaining("negative count -1");
    assertThatThrownBy(() -> new WaitHistogram(new long[WaitHistogram.BUCKETS + 1]))
        .hasMessageContaining("at most " + WaitHistogram.BUCKETS);
    assertThat(new WaitHistogram(new long[] {2})).isEqualTo(of(0, 0));
  }

  @Property
  void mergingByAddingEqualsCountingEverythingInOne(
      @ForAll @Size(max = 20) java.util.List<@IntRange(min = 0, max = 30_000) Integer> a,
      @ForAll @Size(max = 20) java.util.List<@IntRange(min = 0, max = 30_000) Integer> b) {
    WaitHistogram ha = of(a.stream().mapToLong(Integer::longValue).toArray());
    WaitHistogram hb = of(b.stream().mapToLong(Integer::longValue).toArray());
    WaitHistogram all =
        of(
            java.util.stream.Stream.concat(a.stream(), b.stream())
                .mapToLong(Integer::longValue)
                .toArray());
    assertThat(ha.plus(hb)).isEqualTo(all).isEqualTo(hb.plus(ha));
  }
}
