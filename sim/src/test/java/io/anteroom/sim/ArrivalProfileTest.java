package io.anteroom.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ArrivalProfileTest {
  @TempDir Path dir;

  @Test
  void segmentsAreStepsThatFollowEachOtherAndSetTheRunsLength() {
    ArrivalProfile p = ArrivalProfile.parse("0-10m:50/min,10-12m:5000/min,12-60m:300/min");

    assertThat(p.minutes()).isEqualTo(60);
    assertThat(p.profile().rateAt(0)).isEqualTo(50);
    assertThat(p.profile().rateAt(9.99)).isEqualTo(50);
    assertThat(p.profile().rateAt(10)).isEqualTo(5000);
    assertThat(p.profile().rateAt(11.5)).isEqualTo(5000);
    assertThat(p.profile().rateAt(12)).isEqualTo(300);
    assertThat(p.profile().rateAt(59)).isEqualTo(300);
    assertThat(p.expectedUsers()).isCloseTo(500 + 10_000 + 48 * 300, within(1.0));
  }

  @Test
  void aRampIsAStraightLineWithinItsSegment() {
    ArrivalProfile p = ArrivalProfile.parse(" 0-30m:0..400/min , 30-45m:400/min ");

    assertThat(p.minutes()).isEqualTo(45);
    assertThat(p.profile().rateAt(15)).isEqualTo(200);
    assertThat(p.profile().rateAt(40)).isEqualTo(400);
  }

  @Test
  void aSegmentInTheWrongFormIsNamedWithTheExpectedForm() {
    assertThatThrownBy(() -> ArrivalProfile.parse("0-10m:50/min,10-12m:5000/mn"))
        .hasMessageContaining("segment 2 \"10-12m:5000/mn\"")
        .hasMessageContaining("FROM-TOm:USERS/min");
    assertThatThrownBy(() -> ArrivalProfile.parse("0-10:50/min")).hasMessageContaining("segment 1");
    assertThatThrownBy(() -> ArrivalProfile.parse("")).hasMessageContaining("--arrivals: empty");
  }

  @Test
  void gapsOverlapsAndALateStartAreRefused() {
    assertThatThrownBy(() -> ArrivalProfile.parse("5-10m:50/min"))
        .hasMessageContaining("the first segment must start at 0");
    assertThatThrownBy(() -> ArrivalProfile.parse("0-10m:50/min,12-20m:50/min"))
        .hasMessageContaining("starts at minute 12 but the previous one ends at 10");
    assertThatThrownBy(() -> ArrivalProfile.parse("0-10m:50/min,8-20m:50/min"))
        .hasMessageContaining("starts at minute 8");
    assertThatThrownBy(() -> ArrivalProfile.parse("0-0m:50/min"))
        .hasMessageContaining("ends at minute 0, not after 0");
  }

  @Test
  void ratesAndLengthsOutOfRangeAreRefused() {
    assertThatThrownBy(() -> ArrivalProfile.parse("0-10m:2000000/min"))
        .hasMessageContaining("out of range");
    assertThatThrownBy(() -> ArrivalProfile.parse("0-1441m:5/min")).hasMessageContaining("0..1440");
    assertThat(ArrivalProfile.parse("0-1000m:5/min,1000-1440m:5/min").minutes()).isEqualTo(1440);
  }

  @Test
  void aCsvFileHasOneRowPerMinuteWithAnOptionalHeaderAndComments() throws IOException {
    Path csv = dir.resolve("arrivals.csv");
    Files.writeString(csv, "minute,users\n# warm-up\n0,50\n1,50\n\n2,5000\n3, 300\n");

    ArrivalProfile p = ArrivalProfile.parse(csv.toString());

    assertThat(p.minutes()).isEqualTo(4);
    assertThat(p.profile().rateAt(1.5)).isEqualTo(50);
    assertThat(p.profile().rateAt(2.5)).isEqualTo(5000);
    assertThat(p.profile().rateAt(3.5)).isEqualTo(300);
  }

  @Test
  void aCsvRowOutOfOrderOrMalformedIsNamedByLine() throws IOException {
    Path skipped = dir.resolve("skipped.csv");
    Files.writeString(skipped, "0,50\n2,50\n");
    assertThatThrownBy(() -> ArrivalProfile.parse(skipped.toString()))
        .hasMessageContaining("skipped.csv line 2: minute 2 where minute 1 was expected");

    Path bad = dir.resolve("bad.csv");
    Files.writeString(bad, "0,50\n1,fifty\n");
    assertThatThrownBy(() -> ArrivalProfile.parse(bad.toString()))
        .hasMessageContaining("bad.csv line 2: \"fifty\" is not a number");

    assertThatThrownBy(() -> ArrivalProfile.parse(dir.resolve("missing.csv").toString()))
        .hasMessageContaining("cannot read");
  }
}
