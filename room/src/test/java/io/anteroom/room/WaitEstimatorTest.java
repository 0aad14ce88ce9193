package io.anteroom.room;

import static io.anteroom.room.Fixtures.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class WaitEstimatorTest {
  static final Instant NOW = at("2026-01-01T10:00:10Z");
  static final long M = Minutes.minuteOf(NOW);
  static final List<BucketState> BUCKETS =
      List.of(new BucketState(M - 2, 30, 0), new BucketState(M - 1, 30, 0));

  @Test
  void abandonmentShortensTheEstimate() {
    // h = 6 / 60 = 0.1 per minute; ahead 60 at 30 per minute: ln(1 + 0.1 × 2) / 0.1
    WaitEstimate w =
        WaitEstimator.estimate(Fixtures.state(NOW, BUCKETS, 30, 6), M - 1, Rules.spec());

    assertThat(w.minutes()).isCloseTo(Math.log(1.2) / 0.1, within(1e-9));
    assertThat(w.minutes()).isLessThan(2.0);
  }

  @Test
  void publishedEstimateIgnoresAbandonment() {
    WaitEstimate w =
        WaitEstimator.estimate(Fixtures.state(NOW, BUCKETS, 30, 6), M - 1, Rules.published());

    assertThat(w.minutes()).isEqualTo(2.0);
  }

  @Test
  void theSpreadFollowsTheUsersPlaceInItsOwnBucket() {
    WaitEstimate w =
        WaitEstimator.estimate(Fixtures.state(NOW, BUCKETS, 30, 0), M - 1, Rules.spec());

    assertThat(w.p25()).isEqualTo(1.25);
    assertThat(w.p50()).isEqualTo(1.5);
    assertThat(w.p75()).isEqualTo(1.75);
    assertThat(w.p25()).isLessThan(w.p50()).isLessThan(w.p75()).isLessThan(w.minutes());
  }

  @Test
  void withoutAdmissionsTheWaitIsUnknown() {
    WaitEstimate w =
        WaitEstimator.estimate(Fixtures.state(NOW, BUCKETS, 0, 0), M - 1, Rules.spec());

    assertThat(w.known()).isFalse();
    assertThat(w.ahead()).isEqualTo(60);
  }

  @Test
  void eligibleUsersAreNotAhead() {
    List<BucketState> partlyServed =
        List.of(new BucketState(M - 2, 30, 30), new BucketState(M - 1, 30, 10));

    WaitEstimate w =
        WaitEstimator.estimate(Fixtures.state(NOW, partlyServed, 10, 0), M - 1, Rules.spec());

    assertThat(w.ahead()).isEqualTo(20);
    assertThat(w.minutes()).isEqualTo(2.0);
  }
}
