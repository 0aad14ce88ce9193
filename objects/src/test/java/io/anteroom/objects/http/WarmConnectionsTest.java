package io.anteroom.objects.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Which coordinators a routing transport pings to keep a warm connection to each, and which one a
 * call tries next.
 */
class WarmConnectionsTest {
  private static final Duration INTERVAL = Duration.ofSeconds(1);
  private static final List<String> PEERS = List.of("a", "b", "c");

  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final WarmConnections warm = new WarmConnections(PEERS, INTERVAL, now::get);

  private void advance(Duration d) {
    now.addAndGet(d.toNanos());
  }

  /** Every coordinator pinged and answering. */
  private void allAnswer() {
    for (String c : warm.due()) warm.pingEnded(c, true);
  }

  @Test
  void everyCoordinatorIsPingedAtTheFirstCheckSinceNoneHasAConnectionYet() {
    assertThat(warm.due()).containsExactly("a", "b", "c");
  }

  @Test
  void aCoordinatorThatAnsweredACallWithinTheIntervalIsNotPinged() {
    allAnswer();
    advance(Duration.ofMillis(700));
    warm.answered("a"); // the leader: every call goes there

    advance(Duration.ofMillis(300));

    assertThat(warm.due()).containsExactly("b", "c");
  }

  @Test
  void anIdleCoordinatorIsPingedOnceUntilItsPingEndsThenAgainAfterTheInterval() {
    allAnswer();
    advance(INTERVAL);
    assertThat(warm.due()).containsExactly("a", "b", "c");

    advance(INTERVAL.multipliedBy(3)); // the pings hang (silent coordinators)
    assertThat(warm.due()).as("no second ping while one is in flight").isEmpty();

    warm.pingEnded("b", false);
    assertThat(warm.due()).as("not at once after its ping failed").isEmpty();
    advance(INTERVAL.minusMillis(1));
    assertThat(warm.due()).isEmpty();
    advance(Duration.ofMillis(1));
    assertThat(warm.due()).containsExactly("b");
  }

  @Test
  void aCoordinatorThatHasNotAnsweredForOneAndAHalfIntervalsIsPassedOverForTheNextThatAnswers() {
    allAnswer();
    advance(Duration.ofMillis(1400));
    warm.answered("c");
    assertThat(warm.nextAfter("a")).as("b answered 1.4 s ago").isEqualTo("b");

    advance(Duration.ofMillis(100)); // b's ping hangs: b is cut off
    assertThat(warm.answersNow("b")).isFalse();
    assertThat(warm.answersNow("c")).isTrue();
    assertThat(warm.nextAfter("a")).isEqualTo("c");
    assertThat(warm.nextAfter("c")).as("a and b silent: c again rather than a").isEqualTo("c");
  }

  @Test
  void whenNoCoordinatorAnswersTheNextInOrderIsTriedAnyway() {
    allAnswer();
    advance(INTERVAL.multipliedBy(2));

    assertThat(warm.nextAfter("a")).isEqualTo("b");
    assertThat(warm.nextAfter("c")).isEqualTo("a");
  }

  @Test
  void atTheStartNoneHasAnsweredAndTheOrderIsKept() {
    assertThat(warm.answersNow("a")).isFalse();
    assertThat(warm.nextAfter("a")).isEqualTo("b");
    assertThat(warm.nextAfter("b")).isEqualTo("c");
    assertThat(warm.nextAfter("c")).isEqualTo("a");
  }

  @Test
  void answersOfUnknownCoordinatorsAreIgnored() {
    warm.answered("z");
    warm.pingEnded("z", true);

    assertThat(warm.due()).containsExactly("a", "b", "c");
    assertThat(warm.answersNow("z")).isFalse();
  }

  @Test
  void theIntervalMustBePositive() {
    assertThatThrownBy(() -> new WarmConnections(PEERS, Duration.ZERO, now::get))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("interval must be positive");
  }
}
