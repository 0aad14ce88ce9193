package io.anteroom.objects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Virtual time: tasks run in time order, and work they start elsewhere can be waited for. */
class ManualSchedulerTest {
  private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

  @Test
  void tasksRunInTimeOrderWithTheClockAtTheirTime() {
    var time = new ManualScheduler(START);
    List<String> ran = new CopyOnWriteArrayList<>();
    time.schedule(START.plusSeconds(20), () -> ran.add("b@" + time.clock().instant()));
    time.schedule(START.plusSeconds(10), () -> ran.add("a@" + time.clock().instant()));
    time.schedule(START.plusSeconds(31), () -> ran.add("late"));
    time.advance(Duration.ofSeconds(30));
    assertThat(ran).containsExactly("a@2026-01-01T00:00:10Z", "b@2026-01-01T00:00:20Z");
    assertThat(time.clock().instant()).isEqualTo(START.plusSeconds(30));
  }

  /**
   * Each task hands its work to another thread, which reads the clock when it gets to it. With a
   * settle condition the clock waits at each task's time until that work is done.
   */
  @Test
  void withASettleConditionWorkStartedByATaskRunsAtThatTasksTime() throws Exception {
    ExecutorService elsewhere = Executors.newCachedThreadPool();
    try {
      var time = new ManualScheduler(START);
      AtomicInteger running = new AtomicInteger();
      Semaphore go = new Semaphore(0);
      List<Instant> seen = new CopyOnWriteArrayList<>();
      time.settleOn("test work", () -> running.get() == 0);
      for (int s = 1; s <= 3; s++) {
        time.schedule(
            START.plusSeconds(s),
            () -> {
              running.incrementAndGet();
              elsewhere.execute(
                  () -> {
                    go.acquireUninterruptibly();
                    seen.add(time.clock().instant());
                    running.decrementAndGet();
                  });
            });
      }
      var advancing = CompletableFuture.runAsync(() -> time.advance(Duration.ofSeconds(3)));
      for (int s = 1; s <= 3; s++) {
        Instant due = START.plusSeconds(s);
        int done = s - 1;
        // the clock reaches a task's time only once the work before it is done; without the
        // settle condition it is at 3 s at once with all three pieces waiting, and this times out
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    time.clock().instant().equals(due)
                        && running.get() == 1
                        && seen.size() == done);
        go.release();
      }
      advancing.get(30, TimeUnit.SECONDS);
      assertThat(seen)
          .containsExactly(START.plusSeconds(1), START.plusSeconds(2), START.plusSeconds(3));
    } finally {
      elsewhere.shutdownNow();
    }
  }

  @Test
  void advanceUntilStopsAtTheFirstStepWhereTheConditionHoldsAndSaysWhenItNeverDoes() {
    var time = new ManualScheduler(START);
    AtomicInteger ran = new AtomicInteger();
    time.schedule(START.plusSeconds(25), ran::incrementAndGet);
    assertThat(time.advanceUntil(Duration.ofSeconds(10), 5, () -> ran.get() == 1)).isTrue();
    assertThat(time.clock().instant()).as("three steps, no more").isEqualTo(START.plusSeconds(30));
    assertThat(time.advanceUntil(Duration.ofSeconds(10), 2, () -> false)).isFalse();
    assertThat(time.clock().instant()).isEqualTo(START.plusSeconds(50));
  }

  @Test
  void timeNeverGoesBackAndAStepMustMoveIt() {
    var time = new ManualScheduler(START);
    assertThatThrownBy(() -> time.advance(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("only moves forward");
    assertThatThrownBy(() -> time.advanceUntil(Duration.ZERO, 3, () -> false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("positive step");
    assertThatThrownBy(() -> time.advanceUntil(Duration.ofSeconds(1), -1, () -> false))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(time.clock().instant()).isEqualTo(START);
  }

  @Test
  void workThatNeverSettlesIsAClearError() {
    var time = new ManualScheduler(START);
    time.settleOn("stuck work", Duration.ofMillis(1), () -> false);
    time.schedule(START.plusSeconds(1), () -> {});
    assertThatThrownBy(() -> time.advance(Duration.ofSeconds(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("stuck work not settled after PT0.001S");
  }
}
