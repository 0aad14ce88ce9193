package io.anteroom.room.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.room.EventWindow;
import io.anteroom.room.report.StateChanges.Observation;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StateChangesTest {

  static final Instant T = Instant.parse("2026-03-01T10:00:00Z");

  static Observation seen(
      int seconds, long waiting, Set<String> reporting, List<EventReport.EventTotals> events) {
    return new Observation(T.plusSeconds(seconds), waiting, false, reporting, events);
  }

  static List<String> types(List<StateChange> changes) {
    return changes.stream().map(StateChange::type).toList();
  }

  @Test
  void queueingBeginsWhenSomeoneWaitsAndEndsOnlyAfterAQuietMinute() {
    StateChanges s = new StateChanges("shop", null);
    assertThat(s.observe(seen(0, 0, Set.of("d"), List.of()))).isEmpty();
    assertThat(types(s.observe(seen(5, 3, Set.of("d"), List.of()))))
        .containsExactly("queueing.began");
    assertThat(s.observe(seen(10, 4, Set.of("d"), List.of()))).isEmpty();
    assertThat(s.observe(seen(15, 0, Set.of("d"), List.of()))).isEmpty();
    assertThat(s.observe(seen(30, 2, Set.of("d"), List.of()))).as("someone waits again").isEmpty();
    assertThat(s.observe(seen(40, 0, Set.of("d"), List.of()))).isEmpty();
    assertThat(s.observe(seen(99, 0, Set.of("d"), List.of()))).as("59 s quiet").isEmpty();
    assertThat(types(s.observe(seen(100, 0, Set.of("d"), List.of()))))
        .containsExactly("queueing.ended");
    assertThat(s.observe(seen(200, 0, Set.of("d"), List.of()))).isEmpty();
  }

  @Test
  void aDataCenterThatStopsReportingIsDegradedAndRecoversWhenItReportsAgain() {
    StateChanges s = new StateChanges("shop", null);
    assertThat(s.observe(seen(0, 0, Set.of("dublin", "nairobi"), List.of())))
        .as("first seen: neither")
        .isEmpty();
    List<StateChange> down = s.observe(seen(40, 0, Set.of("nairobi"), List.of()));
    assertThat(types(down)).containsExactly("degraded");
    assertThat(down.get(0).subject()).isEqualTo("dublin");
    assertThat(s.observe(seen(45, 0, Set.of("nairobi"), List.of()))).isEmpty();
    List<StateChange> up = s.observe(seen(60, 0, Set.of("dublin", "nairobi"), List.of()));
    assertThat(types(up)).containsExactly("recovered");
    assertThat(up.get(0).subject()).isEqualTo("dublin");
  }

  @Test
  void anEventAnnouncesItsPrequeueStartAndEndOnceEachAndNeverBackwards() {
    StateChanges s = new StateChanges("shop", null);
    var e =
        new EventWindow("drop", T.plusSeconds(60), T.plusSeconds(120), T.plusSeconds(180), false);
    var known =
        List.of(
            new EventReport.EventTotals(
                e.name(), e.prequeueFrom(), e.opensAt(), e.closesAt(), ReportCounts.EMPTY));
    assertThat(s.observe(seen(0, 0, Set.of(), known))).isEmpty();
    assertThat(types(s.observe(seen(61, 0, Set.of(), known)))).containsExactly("event.prequeue");
    assertThat(s.observe(seen(62, 0, Set.of(), known))).isEmpty();
    assertThat(types(s.observe(seen(130, 0, Set.of(), known)))).containsExactly("event.start");
    assertThat(types(s.observe(seen(200, 0, Set.of(), known)))).containsExactly("event.end");
    assertThat(s.observe(seen(300, 0, Set.of(), known))).isEmpty();
  }

  @Test
  void theMemoryCarriesNumbersAndStateAcrossARestartSoIdsAreNeverReused() {
    StateChanges s = new StateChanges("shop", null);
    List<StateChange> first = s.observe(seen(0, 5, Set.of("d"), List.of()));
    assertThat(first.get(0).id()).isEqualTo("shop/1");
    StateChanges restarted = new StateChanges("shop", s.memory());
    assertThat(restarted.observe(seen(10, 5, Set.of("d"), List.of())))
        .as("still queueing: no second 'began'")
        .isEmpty();
    assertThat(restarted.configChanged("0/-", "x", "y", T)).as("the first key seen").isEmpty();
    List<StateChange> config = restarted.configChanged("1/-", "admin API", "v1", T);
    assertThat(config)
        .extracting(StateChange::id, StateChange::type)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("shop/2", "config.changed"));
    assertThat(restarted.configChanged("1/-", "admin API", "v1", T)).isEmpty();
  }
}
