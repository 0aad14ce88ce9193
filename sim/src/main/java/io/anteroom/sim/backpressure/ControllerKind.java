package io.anteroom.sim.backpressure;

import io.anteroom.backpressure.AimdRateController;
import io.anteroom.backpressure.IntervalRuleController;
import io.anteroom.backpressure.RateController;
import java.time.Clock;
import java.time.Duration;
import java.util.Random;

/** The two controllers of the library, built from one set of simulation settings. */
public enum ControllerKind {
  /** {@link AimdRateController}: rate-space AIMD, the default. */
  AIMD("rate-space AIMD"),
  /** {@link IntervalRuleController}: the reference text's rule. */
  INTERVAL_RULE("interval rule");

  private final String label;

  ControllerKind(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }

  RateController create(ControllerSettings s, double initialRate, Clock clock, Random random) {
    Duration initial = Duration.ofNanos(Math.round(1e9 / initialRate));
    return switch (this) {
      case AIMD ->
          AimdRateController.builder()
              .minInterval(s.minInterval())
              .maxInterval(s.maxInterval())
              .initialInterval(initial)
              .increasePerSecond(s.increasePerSecond())
              .beta(s.beta())
              .jitter(s.jitter())
              .random(random)
              .clock(clock)
              .build();
      case INTERVAL_RULE ->
          IntervalRuleController.builder()
              .minInterval(s.minInterval())
              .maxInterval(s.maxInterval())
              .initialInterval(initial)
              .step(s.step())
              .jitter(s.jitter())
              .random(random)
              .build();
    };
  }
}
