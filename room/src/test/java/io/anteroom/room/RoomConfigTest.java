package io.anteroom.room;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.anteroom.room.slots.StrategyKind;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RoomConfigTest {

  @Test
  void defaultsAreThoseOfTheSpec() {
    RoomConfig c = Fixtures.room(1000, 200).build();

    assertThat(c.queueRefreshSeconds()).isEqualTo(20);
    assertThat(c.queueTimeout()).isEqualTo(Duration.ofMinutes(5));
    assertThat(c.strategy()).isEqualTo(StrategyKind.COUNTERS);
    assertThat(c.historyLagMinutes()).isEqualTo(2);
    assertThat(c.curveFactor()).isEqualTo(1.0);
    assertThat(c.rules()).isEqualTo(Rules.spec());
    assertThat(c.sessionRenewal()).isTrue();
  }

  @Test
  void missingLimitsAreRejectedNamingTheField() {
    assertThatThrownBy(
            () -> RoomConfig.builder("shop").newUsersPerMinute(5).sessionDurationMinutes(5).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("room 'shop': totalActiveUsers is -1; allowed: 1..100000000");
  }

  @Test
  void badValuesAreRejectedWithTheAllowedRange() {
    assertThatThrownBy(() -> Fixtures.room(10, 10).curveFactor(0).build())
        .hasMessageContaining("curveFactor is 0.0; allowed: 0 < curveFactor <= 10");
    assertThatThrownBy(() -> Fixtures.room(10, 10).queueTimeout(Duration.ofSeconds(5)).build())
        .hasMessageContaining("queueTimeout is 5 s; allowed: at least queueRefreshSeconds (20 s)");
    assertThatThrownBy(
            () -> Fixtures.room(10, 10).workerReportInterval(Duration.ofSeconds(31)).build())
        .hasMessageContaining("workerReportInterval is 31 s; allowed: 1 s..30 s");
    assertThatThrownBy(() -> Fixtures.room(10, 10).historyLagMinutes(0).build())
        .hasMessageContaining("historyLagMinutes is 0; allowed: 1..10");
    assertThatThrownBy(() -> Fixtures.room(10, 10).strategy(null).build())
        .hasMessageContaining("strategy is missing");
    assertThatThrownBy(
            () ->
                RoomConfig.builder(" ")
                    .totalActiveUsers(1)
                    .newUsersPerMinute(1)
                    .sessionDurationMinutes(1)
                    .build())
        .hasMessageContaining("roomId must be a non-blank string");
  }

  @Test
  void theQueueTimeoutCanBeGivenInMinutesAsInTheConfigFile() {
    assertThat(Fixtures.room(10, 10).queueTimeoutMinutes(7).build().queueTimeout())
        .isEqualTo(Duration.ofMinutes(7));
  }

  @Test
  void aBuilderFromAConfigKeepsEveryFieldAndTheWithersChangeOnlyTheirs() {
    var event =
        new EventWindow(
            "launch",
            null,
            java.time.Instant.parse("2026-12-01T18:00:00Z"),
            java.time.Instant.parse("2026-12-01T20:00:00Z"),
            false);
    RoomConfig c =
        RoomConfig.builder("shop")
            .totalActiveUsers(500)
            .newUsersPerMinute(50)
            .sessionDurationMinutes(10)
            .queueRefreshSeconds(30)
            .queueTimeoutMinutes(7)
            .strategy(StrategyKind.EVEN_SPLIT)
            .curveFactor(2)
            .historyLagMinutes(3)
            .workerReportInterval(Duration.ofSeconds(7))
            .dataCenterReportInterval(Duration.ofSeconds(9))
            .rules(Rules.published())
            .sessionRenewal(false)
            .queueOrder(QueueOrder.RANDOM)
            .event(event)
            .build();

    assertThat(c.toBuilder().build()).isEqualTo(c);
    assertThat(c.withStrategy(StrategyKind.COUNTERS))
        .isEqualTo(c.toBuilder().strategy(StrategyKind.COUNTERS).build());
    assertThat(c.withStrategy(StrategyKind.COUNTERS).withStrategy(StrategyKind.EVEN_SPLIT))
        .isEqualTo(c);
    assertThat(c.withEvent(null).withEvent(event)).isEqualTo(c);
    assertThat(c.withEvent(null).event()).isNull();
    assertThat(c.withRules(Rules.spec()).withRules(Rules.published())).isEqualTo(c);
  }
}
