package io.anteroom.sim.backpressure;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.backpressure.ThroughputSignal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ReferenceExperimentTest {

  @ParameterizedTest
  @EnumSource(
      value = ThroughputSignal.class,
      names = {"FIVE_MINUTE_RATE", "TEN_SECOND_WINDOW"})
  void withAimdTheLoadSettlesUnderTheThresholdAndReturnsWhenItIsRemoved(ThroughputSignal signal) {
    ReferenceExperiment.Result r = ReferenceExperiment.defaults().run(ControllerKind.AIMD, signal);
    assertThat(r.before()).as("about 14 req/s before").isBetween(13.0, 15.0);
    assertThat(r.settled()).as("settled under the 6 req/s threshold").isBetween(4.0, 6.0);
    assertThat(r.after()).as("back to the preferred rate").isGreaterThan(0.95 * r.before());
    assertThat(r.returnSeconds()).isBetween(0.0, 300.0);
  }

  @ParameterizedTest
  @EnumSource(
      value = ThroughputSignal.class,
      names = {"FIVE_MINUTE_RATE", "TEN_SECOND_WINDOW"})
  void withTheIntervalRuleTheLoadFallsUnderTheThresholdButDoesNotReturnWithinHalfAnHour(
      ThroughputSignal signal) {
    ReferenceExperiment.Result r =
        ReferenceExperiment.defaults().run(ControllerKind.INTERVAL_RULE, signal);
    assertThat(r.settled()).isLessThan(6.0);
    assertThat(r.returnSeconds()).isEqualTo(-1);
    assertThat(r.after()).isLessThan(0.5 * r.before());
  }

  @Test
  void theFastSignalHoldsTheLoadCloserToTheThresholdThanTheFiveMinuteRate() {
    ReferenceExperiment.Result slow =
        ReferenceExperiment.defaults().run(ControllerKind.AIMD, ThroughputSignal.FIVE_MINUTE_RATE);
    ReferenceExperiment.Result fast =
        ReferenceExperiment.defaults().run(ControllerKind.AIMD, ThroughputSignal.TEN_SECOND_WINDOW);
    assertThat(fast.settledPeak()).isLessThan(slow.settledPeak());
    assertThat(fast.settledPeak()).isLessThanOrEqualTo(6.0 * 1.1);
  }
}
