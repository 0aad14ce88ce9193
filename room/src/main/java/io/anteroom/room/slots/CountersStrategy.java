package io.anteroom.room.slots;

/**
 * 2023 counters: no division by workers; the split's two parts are the limits of the two counters.
 */
final class CountersStrategy implements SlotStrategy {
  @Override
  public Allowance allowance(
      SlotSplit split, int dcWorkers, int globalWorkers, double utilization) {
    return new Allowance.ViaCounters(split.dataCenterSlots(), split.anywhereSlots());
  }
}
