package io.anteroom.gateway.edge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ConnectionBudgetTest {

  @Test
  void atMostMaxConnectionsAreOpenAndClosedOnesGiveTheirPlaceBack() {
    var budget = new ConnectionBudget(2);
    assertThat(budget.tryOpen()).isTrue();
    assertThat(budget.tryOpen()).isTrue();
    assertThat(budget.tryOpen()).isFalse();
    assertThat(budget.open()).isEqualTo(2);
    budget.closed();
    assertThat(budget.tryOpen()).isTrue();
    assertThat(budget.tryOpen()).isFalse();
  }

  @Test
  void manyThreadsNeverExceedTheCap() throws Exception {
    var budget = new ConnectionBudget(100);
    var granted = new AtomicInteger();
    var start = new CountDownLatch(1);
    var threads = new Thread[8];
    for (int t = 0; t < threads.length; t++) {
      threads[t] =
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      start.await();
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                    for (int i = 0; i < 1000; i++) {
                      if (budget.tryOpen()) {
                        granted.incrementAndGet();
                      }
                    }
                  });
    }
    start.countDown();
    for (Thread t : threads) {
      t.join();
    }
    assertThat(granted.get()).isEqualTo(100);
    assertThat(budget.open()).isEqualTo(100);
  }

  @Test
  void misuseIsRefused() {
    assertThatThrownBy(() -> new ConnectionBudget(0)).isInstanceOf(IllegalArgumentException.class);
    var budget = new ConnectionBudget(1);
    assertThatThrownBy(budget::closed).isInstanceOf(IllegalStateException.class);
    assertThat(budget.open()).isZero();
  }
}
