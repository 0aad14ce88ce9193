package io.anteroom.room.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.room.EventWindow;
import io.anteroom.room.history.HistoryRow;
import io.anteroom.room.history.MinuteActivity;
import io.anteroom.room.history.WaitHistogram;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventReportTest {

  static final Instant T0 = Instant.parse("2026-03-01T23:58:00Z");
  static final long M0 = T0.getEpochSecond() / 60;

  static HistoryRow row(long minute, String dc, long arrivals, long admissions, long passes) {
    return HistoryRow.empty(minute)
        .withDataCenter(
            dc,
            new MinuteActivity(
                arrivals,
                admissions,
                0,
                0,
                0,
                WaitHistogram.EMPTY.with(Duration.ofSeconds(50)),
                null,
                passes));
  }

  @Test
  void minutesAreFoldedIntoTheirUtcDayOnceHoweverOftenTheyAreFolded() {
    EventReport r = new EventReport();
    List<HistoryRow> rows =
        List.of(
            row(M0, "dublin", 2, 1, 1),
            row(M0 + 1, "dublin", 3, 2, 2),
            row(M0 + 2, "dublin", 5, 4, 1));
    r.fold(rows.subList(0, 2), M0 + 1);
    r.fold(rows, M0 + 1); // the same minutes again: nothing changes
    r.fold(rows, M0 + 2); // only the new minute
    List<ReportLine> days = r.days(EventReport.dayOf(M0), EventReport.dayOf(M0) + 2, List.of());
    assertThat(days).extracting(ReportLine::key).containsExactly("2026-03-01", "2026-03-02");
    assertThat(days.get(0).counts().arrivals()).isEqualTo(5);
    assertThat(days.get(0).counts().admissions()).isEqualTo(3);
    assertThat(days.get(1).counts().arrivals()).isEqualTo(5);
    assertThat(days.get(1).counts().noShows()).isEqualTo(3);
    assertThat(r.foldedThrough()).isEqualTo(M0 + 2);
  }

  @Test
  void aReportAddsTheMinutesNotFoldedYetButNotThoseAlreadyFolded() {
    EventReport r = new EventReport();
    r.fold(List.of(row(M0, "dublin", 2, 0, 0)), M0);
    List<HistoryRow> unfolded =
        List.of(row(M0, "dublin", 2, 0, 0), row(M0 + 1, "nairobi", 7, 0, 0));
    var day = r.days(EventReport.dayOf(M0), EventReport.dayOf(M0) + 1, unfolded).get(0);
    assertThat(day.counts().arrivals()).isEqualTo(9);
  }

  @Test
  void anEventCountsTheMinutesFromItsPrequeueToItsEnd() {
    EventReport r = new EventReport();
    Instant pre = Instant.ofEpochSecond((M0 + 1) * 60);
    r.noteEvent(new EventWindow("drop", pre, pre.plusSeconds(60), pre.plusSeconds(120), false));
    r.fold(
        List.of(
            row(M0, "d", 1, 0, 0), // before the pre-queue
            row(M0 + 1, "d", 10, 0, 0), // pre-queue
            row(M0 + 2, "d", 20, 5, 4), // open
            row(M0 + 3, "d", 100, 0, 0)), // after its end
        M0 + 3);
    ReportLine e = r.eventLines(List.of()).get(0);
    assertThat(e.kind()).isEqualTo(ReportLine.Kind.EVENT);
    assertThat(e.from()).isEqualTo(pre);
    assertThat(e.counts().arrivals()).isEqualTo(30);
    assertThat(e.counts().passesUsed()).isEqualTo(4);
    assertThat(e.counts().minutes()).isEqualTo(2);
  }

  @Test
  void daysOlderThanTheRetentionAreForgottenAndWhatIsKeptSurvivesSaveAndRestore() {
    EventReport r = new EventReport();
    r.fold(List.of(row(M0, "d", 1, 1, 1)), M0);
    long later = M0 + (EventReport.RETENTION_DAYS - 1) * 1440L;
    r.fold(List.of(row(later, "d", 2, 2, 2)), later);
    assertThat(r.days(0, Long.MAX_VALUE, List.of())).hasSize(2);
    EventReport restored = EventReport.restore(r.save());
    assertThat(restored.days(0, Long.MAX_VALUE, List.of()))
        .isEqualTo(r.days(0, Long.MAX_VALUE, List.of()));
    assertThat(restored.foldedThrough()).isEqualTo(later);
    r.fold(List.of(), later + 1440);
    assertThat(r.days(0, Long.MAX_VALUE, List.of()))
        .extracting(ReportLine::key)
        .as("the first day fell out of the %d days kept", EventReport.RETENTION_DAYS)
        .doesNotContain("2026-03-01")
        .hasSize(1);
  }
}
