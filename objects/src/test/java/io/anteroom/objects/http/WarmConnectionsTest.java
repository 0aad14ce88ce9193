package io.anteroom.objects.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Which coordinators a routing transport pings to keep a warm connection to each. */
class WarmConnectionsTest {
  private static final Duration INTERVAL = Duration.ofSeconds(2);
  private static final List<String> PEERS = List.of("a", "b", "c");

  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final WarmConnections warm = new WarmConnections(PEERS, INTERVAL, now::get);

  private void advance(Duration d) {
    now.addAndGet(d.toNanos());
  }

  @Test
  void everyCoordinatorIsPingedAtTheFirstCheckSinceNoneHasAConnectionYet() {
    assertThat(warm.due()).containsExactly("a", "b", "c");
  }

  @Test
  void aCoordinatorThatAnsweredACallWithinTheIntervalIsNotPinged() {
    warm.due().forEach(warm::pingEnded);
    advance(Duration.ofMillis(1500));
    warm.exchanged("a"); // the leader: every call goes there

    advance(Duration.ofMillis(500));

    assertThat(warm.due()).containsExactly("b", "c");
  }

  @Test
  void anIdleCoordinatorIsPingedOnceUntilItsPingEndsThenAgainAfterTheInterval() {
    warm.due().forEach(warm::pingEnded);
    advance(INTERVAL);
    assertThat(warm.due()).containsExactly("a", "b", "c");

    advance(INTERVAL.multipliedBy(3)); // the pings hang (a silent coordinator)
    assertThat(warm.due()).as("no second ping while one is in flight").isEmpty();

    warm.pingEnded("b");
    assertThat(warm.due()).as("not at once after its ping ended").isEmpty();
    advance(INTERVAL.minusMillis(1));
    assertThat(warm.due()).isEmpty();
    advance(Duration.ofMillis(1));
    assertThat(warm.due()).containsExactly("b");
  }

  @Test
  void anExchangeWithAnUnknownCoordinatorIsIgnored() {
    warm.exchanged("z");
    warm.pingEnded("z");

    assertThat(warm.due()).containsExactly("a", "b", "c");
  }

  @Test
  void theIntervalMustBePositive() {
    assertThatThrownBy(() -> new WarmConnections(PEERS, Duration.ZERO, now::get))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("interval must be positive");
  }
}
