package io.anteroom.room.slots;

/**
 * How one worker spends its data center's split of the minute's pool {@code G'(t)} on new users and
 * users of the partial bucket. One algorithm per implementation; pick one with {@link
 * #of(StrategyKind, double)}.
 *
 * <pre>{@code
 * SlotStrategy s = SlotStrategy.of(config.strategy(), config.curveFactor());
 * Allowance a = s.allowance(new SlotSplit(15, 113), 3, 10, 0.25);   // even split: PerWorker(16)
 * }</pre>
 */
public interface SlotStrategy {

  /**
   * @param split this data center's slots and the Anywhere slots of the minute so far
   * @param dcWorkers workers of this data center active within 30 s (0 is read as 1)
   * @param globalWorkers workers of all data centers active within 30 s (0 is read as 1)
   * @param utilization {@code activeUsers(t) / T}
   */
  Allowance allowance(SlotSplit split, int dcWorkers, int globalWorkers, double utilization);

  /**
   * The strategy of that kind.
   *
   * @param curveFactor the exponent of the utilization multiplier (used by {@link
   *     StrategyKind#UTILIZATION_SCALED})
   */
  static SlotStrategy of(StrategyKind kind, double curveFactor) {
    return switch (kind) {
      case EVEN_SPLIT -> new EvenSplit();
      case UTILIZATION_SCALED -> new UtilizationScaled(curveFactor);
      case COUNTERS -> new CountersStrategy();
    };
  }

  /** What a worker may admit this minute. */
  sealed interface Allowance {
    /**
     * Even split and utilization-scaled: the worker counts its own admissions of the minute against
     * this.
     */
    record PerWorker(long limit) implements Allowance {}

    /**
     * Counters: take a number from the data center's counter below {@code dataCenterLimit}, else
     * from Anywhere.
     */
    record ViaCounters(long dataCenterLimit, long anywhereLimit) implements Allowance {}
  }
}
