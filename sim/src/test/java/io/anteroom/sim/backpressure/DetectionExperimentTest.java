package io.anteroom.sim.backpressure;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.backpressure.ThroughputSignal;
import org.junit.jupiter.api.Test;

class DetectionExperimentTest {

  @Test
  void theTenSecondWindowRaisesTheThrottleWithinTenSecondsOfAStepToTwiceTheThreshold() {
    assertThat(
            DetectionExperiment.detectionSeconds(ThroughputSignal.TEN_SECOND_WINDOW, 100, 0.9, 2.0))
        .isBetween(0.0, 10.0);
  }

  @Test
  void theFiveMinuteRateNeedsAbout208SecondsForAStepFrom0_9To1_1() {
    assertThat(
            DetectionExperiment.detectionSeconds(ThroughputSignal.FIVE_MINUTE_RATE, 100, 0.9, 1.1))
        .isBetween(205.0, 215.0);
  }

  @Test
  void aStepThatStaysUnderTheThresholdIsNeverDetected() {
    assertThat(
            DetectionExperiment.detectionSeconds(ThroughputSignal.TEN_SECOND_WINDOW, 100, 0.5, 0.9))
        .isEqualTo(-1);
  }
}
