package io.anteroom.room.slots;

/**
 * 2021 even split: {@code perWorker = floor(slots_dc / dcWorkers) + floor(slots_anywhere /
 * globalWorkers)}.
 */
final class EvenSplit implements SlotStrategy {
  @Override
  public Allowance allowance(
      SlotSplit split, int dcWorkers, int globalWorkers, double utilization) {
    return perWorker(split, Math.max(1, dcWorkers), Math.max(1, globalWorkers));
  }

  /**
   * The one place where a split is divided between workers (also used, with adapted counts, by
   * utilization-scaled).
   */
  static Allowance perWorker(SlotSplit split, double dcWorkers, double globalWorkers) {
    return new Allowance.PerWorker(
        (long) Math.floor(split.dataCenterSlots() / dcWorkers)
            + (long) Math.floor(split.anywhereSlots() / globalWorkers));
  }
}
