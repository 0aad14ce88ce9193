package io.anteroom.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.pass.PassCheck;
import io.anteroom.pass.PassRefusal;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Refused passes are logged summarised, never a line per request. */
class RefusalSummaryTest {

  /** A clock the test moves. */
  static final class Manual extends Clock {
    long millis = 1_000_000;

    @Override
    public ZoneId getZone() {
      return ZoneId.of("UTC");
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(millis);
    }
  }

  private static PassCheck.Refused refused(PassRefusal reason) {
    return new PassCheck.Refused(reason, "why " + reason);
  }

  @Test
  void theFirstRefusalIsOneLineThenAtMostOneLineAMinuteWithTheCountsByReason() {
    var clock = new Manual();
    List<String> lines = new ArrayList<>();
    var summary = new RefusalSummary(clock, lines::add, "refused");

    summary.refused(refused(PassRefusal.MISSING));
    for (int i = 0; i < 100; i++) {
      summary.refused(refused(i % 4 == 0 ? PassRefusal.SIGNATURE : PassRefusal.MISSING));
      clock.millis += 100;
    }
    assertThat(lines)
        .containsExactly(
            "anteroom pass: refused 1 request without a valid pass (MISSING 1); last: MISSING: why"
                + " MISSING (further refusals are summed up once a minute)");

    clock.millis += RefusalSummary.PERIOD_MILLIS;
    summary.refused(refused(PassRefusal.EXPIRED));

    assertThat(lines).hasSize(2);
    assertThat(lines.get(1))
        .isEqualTo(
            "anteroom pass: refused 101 requests without a valid pass in the last 70 s (MISSING"
                + " 75, SIGNATURE 25, EXPIRED 1); last: EXPIRED: why EXPIRED");

    summary.flush();
    assertThat(lines).as("nothing counted since").hasSize(2);
  }
}
