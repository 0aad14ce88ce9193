package io.anteroom.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The ground-truth reading of the "nobody queued below 95 % utilization" target. */
class ObservationsTest {
  static final long HORIZON = 22_000; // refresh 20 s + 2 s grace

  /** T = 100, N = 1000 (so admissions never make the N side bind), 2 minutes. */
  static Observations room() {
    return new Observations(100, 1000, 2, HORIZON);
  }

  static void activeUsers(Observations o, int n) {
    for (int i = 0; i < n; i++) {
      o.sessionStarted();
    }
  }

  @Test
  void userQueuedBelow95WhileTheQueueAheadFillsTheRoomWithinARefreshIsNotCountedForTheTarget() {
    Observations o = room();
    activeUsers(o, 84);
    o.queued(5_000, 0); // at 84 % of T
    for (int s = 0; s < 10; s++) {
      o.sample(s);
    }
    activeUsers(o, 15); // 99 %: users ahead entered on their refresh
    for (int s = 10; s < 120; s++) {
      o.sample(s);
    }

    Metrics m = o.metrics();
    assertThat(m.shareQueuedBelow95()).isEqualTo(1.0);
    assertThat(m.shareQueuedBelow95ForARefresh()).isZero();
  }

  @Test
  void userQueuedBelow95WhileTheRoomStaysBelow95ForARefreshIsCounted() {
    Observations o = room();
    activeUsers(o, 84);
    o.queued(5_000, 0);
    for (int s = 0; s < 28; s++) { // below 95 % through 5 s + 22 s
      o.sample(s);
    }
    activeUsers(o, 15);
    for (int s = 28; s < 120; s++) {
      o.sample(s);
    }

    Metrics m = o.metrics();
    assertThat(m.shareQueuedBelow95()).isEqualTo(1.0);
    assertThat(m.shareQueuedBelow95ForARefresh()).isEqualTo(1.0);
  }

  @Test
  void userQueuedAt95OrAboveCountsInNeitherShare() {
    Observations o = room();
    activeUsers(o, 96);
    o.queued(5_000, 0);
    for (int s = 0; s < 120; s++) {
      o.sample(s);
    }

    assertThat(o.metrics().shareQueuedBelow95()).isZero();
    assertThat(o.metrics().shareQueuedBelow95ForARefresh()).isZero();
  }
}
