package io.anteroom.backpressure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ThrottleSignalTest {

  @Test
  void theHeaderCarriesOneOrZero() {
    assertThat(ThrottleSignal.HEADER).isEqualTo("Anteroom-Throttle");
    assertThat(ThrottleSignal.headerValue(true)).isEqualTo("1");
    assertThat(ThrottleSignal.headerValue(false)).isEqualTo("0");
    assertThat(ThrottleSignal.fromHeader("1")).isTrue();
    assertThat(ThrottleSignal.fromHeader(" 0 ")).isFalse();
    assertThat(ThrottleSignal.fromHeader("TRUE")).isTrue();
  }

  @Test
  void anAbsentHeaderOrFieldMeansNoThrottle() {
    assertThat(ThrottleSignal.fromHeader(null)).isFalse();
    assertThat(ThrottleSignal.fromJson(Map.of())).isFalse();
  }

  @Test
  void aMalformedSignalIsRefusedWithWhatWasExpected() {
    assertThatThrownBy(() -> ThrottleSignal.fromHeader("yes"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Anteroom-Throttle header: expected 1 or 0, got 'yes'");
    assertThatThrownBy(() -> ThrottleSignal.fromJson(Map.of("throttle", "1")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("expected true or false");
  }

  @Test
  void theJsonFieldIsThrottle() {
    Map<String, Object> body = ThrottleSignal.putInto(new HashMap<>(), true);
    assertThat(body).containsEntry("throttle", true);
    assertThat(ThrottleSignal.fromJson(body)).isTrue();
  }

  @Test
  void retryAfterIsWholeSecondsRoundedUp() {
    assertThat(ThrottleSignal.retryAfterValue(Duration.ofMillis(1500))).isEqualTo("2");
    assertThat(ThrottleSignal.retryAfterValue(Duration.ofSeconds(30))).isEqualTo("30");
    assertThat(ThrottleSignal.retryAfterValue(Duration.ZERO)).isEqualTo("1");
  }
}
