package io.anteroom.room.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class WebhookOutboxTest {

  static final StateChange C = new StateChange("shop/7", "shop", "degraded", "dublin", 0, "x");

  @Test
  void aFailedDeliveryIsRetriedWithExponentialBackOffUpToTenMinutes() {
    assertThat(WebhookOutbox.backoff(1)).isEqualTo(Duration.ofSeconds(2));
    assertThat(WebhookOutbox.backoff(2)).isEqualTo(Duration.ofSeconds(4));
    assertThat(WebhookOutbox.backoff(5)).isEqualTo(Duration.ofSeconds(32));
    assertThat(WebhookOutbox.backoff(40)).isEqualTo(Duration.ofMinutes(10));

    WebhookOutbox o = new WebhookOutbox(List.of());
    assertThat(o.add(List.of(C), List.of("http://a", "http://b"), 1000)).hasSize(2);
    assertThat(o.add(List.of(C), List.of("http://a"), 1000)).as("owed once per URL").isEmpty();
    var d = o.due(1000).get(0);
    var next = o.failed(d, 1000).orElseThrow();
    assertThat(next.attempts()).isEqualTo(1);
    assertThat(next.dueMillis()).isEqualTo(3000);
    assertThat(o.due(2999)).hasSize(1).as("only the other URL");
    var again = o.failed(next, 3000).orElseThrow();
    assertThat(again.dueMillis()).isEqualTo(7000);
    o.delivered(again);
    assertThat(o.size()).isEqualTo(1);
    assertThat(o.nextDue()).hasValue(1000);
  }

  @Test
  void aDeliveryIsGivenUpOnlyAfterADayOfFailures() {
    WebhookOutbox o = new WebhookOutbox(List.of());
    var d = o.add(List.of(C), List.of("http://a"), 0).get(0);
    long almost = WebhookOutbox.GIVE_UP_AFTER.toMillis() - 1;
    assertThat(o.failed(d, almost)).isPresent();
    assertThat(o.failed(o.pending().get(0), almost + 1)).isEmpty();
    assertThat(o.size()).isZero();
  }

  @Test
  void deliveriesReadBackAfterARestartAreStillOwed() {
    WebhookOutbox o = new WebhookOutbox(List.of());
    var stored = o.add(List.of(C), List.of("http://a"), 5);
    WebhookOutbox restarted = new WebhookOutbox(stored);
    assertThat(restarted.due(5)).containsExactlyElementsOf(stored);
  }
}
