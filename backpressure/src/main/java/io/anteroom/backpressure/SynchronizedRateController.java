package io.anteroom.backpressure;

import java.time.Duration;
import java.util.Objects;

/**
 * Invariants: every call to the wrapped controller happens under this object's monitor, so its
 * state changes one reply at a time and a reader never sees a half-applied update. Nothing else may
 * call the wrapped controller directly.
 */
final class SynchronizedRateController implements RateController {
  private final RateController controller;

  SynchronizedRateController(RateController controller) {
    this.controller = Objects.requireNonNull(controller, "controller");
  }

  @Override
  public synchronized void onResponse(boolean throttle) {
    controller.onResponse(throttle);
  }

  @Override
  public synchronized Duration nextDelay() {
    return controller.nextDelay();
  }

  @Override
  public synchronized Duration interval() {
    return controller.interval();
  }

  @Override
  public String toString() {
    return "synchronized " + controller;
  }
}
