package io.anteroom.room;

import static io.anteroom.room.Fixtures.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The place in line comes from the state's counts: older buckets ahead, the own bucket spread. */
class PlaceInLineTest {
  static final Instant NOW = at("2026-01-01T15:57:10Z");
  static final long B1554 = Minutes.minuteOf(at("2026-01-01T15:54:00Z"));

  /** Worked example 2's buckets: {15:54: 2, 15:55: 50, 15:56: 60}, 52 free slots. */
  static final RoomState EXAMPLE =
      Fixtures.state(
          NOW,
          List.of(
              new BucketState(B1554, 2, 2),
              new BucketState(B1554 + 1, 50, 50),
              new BucketState(B1554 + 2, 60, 0)),
          30,
          0);

  @Test
  void everyoneOfOlderBucketsIsAheadAndHalfOfTheOwnBucketOnAverage() {
    PlaceInLine p = PlaceInLine.of(EXAMPLE, B1554 + 2);

    assertThat(p.low())
        .as("older buckets, eligible users included: they have not entered")
        .isEqualTo(52);
    assertThat(p.high()).isEqualTo(112);
    assertThat(p.ahead()).isEqualTo(82);
    assertThat(p.approximate()).as("±30 around 82 is wider than 20 %").isFalse();
  }

  @Test
  void aNarrowBucketBehindALongLineIsShownAsOneNumber() {
    RoomState s =
        Fixtures.state(
            NOW,
            List.of(new BucketState(B1554, 900, 0), new BucketState(B1554 + 1, 100, 0)),
            30,
            0);

    PlaceInLine p = PlaceInLine.of(s, B1554 + 1);

    assertThat(p.ahead()).isEqualTo(950);
    assertThat(p.approximate()).as("±50 around 950 is within 20 %").isTrue();
  }

  @Test
  void aBucketNotCountedYetHasOnlyTheOlderBucketsAhead() {
    PlaceInLine p = PlaceInLine.of(EXAMPLE, B1554 + 3);

    assertThat(p).isEqualTo(new PlaceInLine(112, 112, 112, true));
  }

  @Test
  void theFirstBucketOfASmallLineIsOneNumberWhenTheSpreadIsAFewPeople() {
    RoomState s = Fixtures.state(NOW, List.of(new BucketState(B1554, 8, 0)), 30, 0);

    PlaceInLine p = PlaceInLine.of(s, B1554);

    assertThat(p).isEqualTo(new PlaceInLine(4, 0, 8, true));
    assertThat(
            PlaceInLine.of(
                    Fixtures.state(NOW, List.of(new BucketState(B1554, 20, 0)), 30, 0), B1554)
                .approximate())
        .as("0..20: a range")
        .isFalse();
  }

  @Test
  void theWaitEstimateCarriesThePlaceAlsoWhileTheWaitIsUnknown() {
    RoomConfig room = WaitEstimatorTest.ROOM;
    RoomState noAdmissions =
        Fixtures.state(
            NOW, List.of(new BucketState(B1554, 900, 0), new BucketState(B1554 + 1, 100, 0)), 0, 0);

    WaitEstimate w = WaitEstimator.estimate(noAdmissions, B1554 + 1, room);

    assertThat(w.known()).isFalse();
    assertThat(w.place().ahead()).isEqualTo(950);
  }

  @Test
  void anInconsistentPlaceIsRefused() {
    assertThatThrownBy(() -> new PlaceInLine(5, 10, 20, true))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
