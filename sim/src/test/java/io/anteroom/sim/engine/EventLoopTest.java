package io.anteroom.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventLoopTest {
  private final EventLoop loop = new EventLoop(Instant.parse("2026-01-01T00:00:00Z"));

  @Test
  void eventsRunInTimeOrderAndTiesInSchedulingOrder() {
    List<String> ran = new ArrayList<>();
    loop.at(20, () -> ran.add("b@20"));
    loop.at(10, () -> ran.add("a@10"));
    loop.at(20, () -> ran.add("c@20"));
    loop.at(10, () -> loop.after(0, () -> ran.add("d@10-nested")));
    loop.runUntil(100);
    assertThat(ran).containsExactly("a@10", "d@10-nested", "b@20", "c@20");
    assertThat(loop.now()).isEqualTo(100);
  }

  @Test
  void theClockReadsVirtualTimeInsideEvents() {
    List<Instant> seen = new ArrayList<>();
    loop.after(5_000, () -> seen.add(loop.clock().instant()));
    loop.runUntil(60_000);
    assertThat(seen).containsExactly(Instant.parse("2026-01-01T00:00:05Z"));
    assertThat(loop.clock().instant()).isEqualTo(Instant.parse("2026-01-01T00:01:00Z"));
  }

  @Test
  void eventsAfterTheEndWaitForTheNextRun() {
    List<Long> ran = new ArrayList<>();
    loop.at(150, () -> ran.add(loop.now()));
    loop.runUntil(100);
    assertThat(ran).isEmpty();
    loop.runUntil(200);
    assertThat(ran).containsExactly(150L);
  }

  @Test
  void schedulingInThePastIsRefusedWithTheTimes() {
    loop.runUntil(1_000);
    assertThatThrownBy(() -> loop.at(999, () -> {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("999 ms")
        .hasMessageContaining("1000 ms");
    assertThatThrownBy(() -> loop.after(-1, () -> {})).hasMessageContaining(">= 0");
  }

  @Test
  void runBeforeLeavesEventsAtTheEndForTheNextRunAndReadsNanoseconds() {
    List<Long> ran = new ArrayList<>();
    loop.atNanos(1_500, () -> ran.add(loop.nanos()));
    loop.atNanos(2_000, () -> ran.add(loop.nanos()));
    loop.runBefore(2_000);
    assertThat(ran).containsExactly(1_500L);
    assertThat(loop.clock().instant()).isEqualTo(Instant.parse("2026-01-01T00:00:00.000002Z"));
    loop.runBefore(2_001);
    assertThat(ran).containsExactly(1_500L, 2_000L);
    assertThatThrownBy(() -> loop.runBefore(1_000)).hasMessageContaining("cannot go back");
  }
}
