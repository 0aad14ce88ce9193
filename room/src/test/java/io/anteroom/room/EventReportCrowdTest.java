package io.anteroom.room;

import static io.anteroom.room.RoomWorkerTest.EVEN;
import static io.anteroom.room.RoomWorkerTest.M;
import static io.anteroom.room.RoomWorkerTest.NOW;
import static io.anteroom.room.RoomWorkerTest.state;
import static io.anteroom.room.RoomWorkerTest.waiting;
import static io.anteroom.room.RoomWorkerTest.worker;
import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.room.history.HistoryRow;
import io.anteroom.room.history.MinuteActivity;
import io.anteroom.room.report.EventReport;
import io.anteroom.room.report.ReportCounts;
import io.anteroom.room.report.ReportLine;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A scripted crowd through the real room worker, in injected time, and the report its activity
 * makes: arrivals, admissions, waits, passes used and no-shows with exact numbers.
 */
class EventReportCrowdTest {

  @Test
  void aScriptedCrowdsReportCountsItsArrivalsAdmissionsWaitsPassesAndNoShows() {
    // 10:00:10: ten users of 09:57 wait with no slot; four newcomers queue behind them
    RoomWorker w = worker(EVEN, state(List.of(new BucketState(M - 3, 10, 0)), 0));
    for (int i = 0; i < 4; i++) {
      Decision d = w.decide(null, NOW);
      assertThat(d).isInstanceOf(Decision.Queue.class);
      assertThat(((Decision.Queue) d).estimate().ahead()).isEqualTo(10);
    }
    // 10:00:30: the 09:57 bucket is whole; three of its users come back and are let in, two of
    // them reach the origin with their pass, the third never does
    w.applyState(state(List.of(new BucketState(M - 3, 10, 10)), 30));
    var later = NOW.plusSeconds(20);
    for (int i = 0; i < 3; i++) {
      assertThat(w.decide(waiting(M - 3, NOW.minusSeconds(5), 0), later))
          .isInstanceOf(Decision.Admit.class);
    }
    w.passUsed(later);
    w.passUsed(later.plusSeconds(1));
    MinuteActivity minute = w.report(later.plusSeconds(2)).activity().get(M);

    EventReport report = new EventReport();
    report.noteEvent(
        new EventWindow("launch", null, Minutes.startOf(M), Minutes.startOf(M + 60), false));
    HistoryRow row = HistoryRow.empty(M).withDataCenter("dc", minute).withAbandoned(1);
    report.fold(List.of(row), M);

    ReportLine day = report.days(EventReport.dayOf(M), EventReport.dayOf(M) + 1, List.of()).get(0);
    assertThat(day.key()).isEqualTo("2026-01-01");
    ReportCounts c = day.counts();
    assertThat(c.arrivals()).isEqualTo(4);
    assertThat(c.admissions()).isEqualTo(3);
    assertThat(c.abandoned()).isEqualTo(1);
    assertThat(c.passesUsed()).isEqualTo(2);
    assertThat(c.noShows()).isEqualTo(1);
    // 10 users ahead at the state's 60 admissions a minute: 10 s shown to each newcomer
    assertThat(c.estimatedWaitSeconds(0.5)).hasValue(10);
    assertThat(c.estimatedWaitSeconds(0.95)).hasValue(10);
    // 09:57:00 to 10:00:30: 210 s, in the bucket up to 240 s
    assertThat(c.realWaitSeconds(0.5)).hasValue(240);
    assertThat(c.realWaitSeconds(0.95)).hasValue(240);

    ReportLine event = report.eventLines(List.of()).get(0);
    assertThat(event.key()).isEqualTo("launch");
    assertThat(event.counts()).isEqualTo(c);
  }
}
