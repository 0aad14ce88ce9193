package io.anteroom.gateway.edge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class HeadDeadlineTest {

  @Test
  void aConnectionWithoutAHeadExpiresAfterTheDeadline() {
    var d = new HeadDeadline(300, 1_000);
    assertThat(d.timerDelay(1_000)).isEqualTo(300);
    assertThat(d.timerDelay(1_000)).as("one timer at a time").isEqualTo(HeadDeadline.NO_TIMER);
    assertThat(d.expired(1_300)).isTrue();
  }

  @Test
  void aRequestInProgressStopsTheDeadline() {
    var d = new HeadDeadline(300, 0);
    assertThat(d.timerDelay(0)).isEqualTo(300);
    d.requestStarted();
    assertThat(d.expired(300)).isFalse();
    assertThat(d.timerDelay(300))
        .as("no timer while a request runs")
        .isEqualTo(HeadDeadline.NO_TIMER);
    assertThat(d.expired(10_000)).isFalse();
  }

  @Test
  void afterAResponseTheNextHeadHasTheWholeDeadlineAgain() {
    var d = new HeadDeadline(300, 0);
    assertThat(d.timerDelay(0)).isEqualTo(300);
    d.requestStarted();
    d.requestEnded(250); // the timer armed at 0 is still pending
    assertThat(d.timerDelay(250)).isEqualTo(HeadDeadline.NO_TIMER);
    assertThat(d.expired(300)).as("only 50 ms idle").isFalse();
    assertThat(d.timerDelay(300)).isEqualTo(250);
    assertThat(d.expired(550)).isTrue();
  }

  @Test
  void concurrentStreamsKeepTheDeadlineStoppedUntilTheLastEnds() {
    var d = new HeadDeadline(300, 0);
    d.requestStarted();
    d.requestStarted();
    d.requestEnded(100);
    assertThat(d.inProgress()).isEqualTo(1);
    assertThat(d.timerDelay(100)).isEqualTo(HeadDeadline.NO_TIMER);
    d.requestEnded(200);
    assertThat(d.timerDelay(200)).isEqualTo(300);
    assertThat(d.expired(499)).isFalse();
    assertThat(d.timerDelay(499)).isEqualTo(1);
    assertThat(d.expired(500)).isTrue();
  }

  @Test
  void misuseIsRefused() {
    assertThatThrownBy(() -> new HeadDeadline(0, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new HeadDeadline(10, 0).requestEnded(1))
        .isInstanceOf(IllegalStateException.class);
  }
}
