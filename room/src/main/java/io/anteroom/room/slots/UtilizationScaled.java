package io.anteroom.room.slots;

/**
 * 2023 utilization-scaled split: {@code multiplier = u ^ curveFactor}, {@code adaptedWorkers =
 * max(1, workers × multiplier)} for both the data center's and the global division. Fewer early
 * queues at low utilization; may overshoot when a spike follows low utilization.
 */
record UtilizationScaled(double curveFactor) implements SlotStrategy {
  @Override
  public Allowance allowance(
      SlotSplit split, int dcWorkers, int globalWorkers, double utilization) {
    double multiplier = Math.pow(Math.max(0, utilization), curveFactor);
    return EvenSplit.perWorker(
        split, Math.max(1, dcWorkers * multiplier), Math.max(1, globalWorkers * multiplier));
  }
}
