package io.anteroom.sim.backpressure;

import java.time.Duration;

/**
 * Controller parameters of one simulated population: the clamps and jitter both controllers share,
 * AIMD's {@code beta} and additive increase {@code a} (req/s per s), the interval rule's step.
 */
public record ControllerSettings(
    Duration minInterval,
    Duration maxInterval,
    double jitter,
    double beta,
    double increasePerSecond,
    Duration step) {}
