package io.anteroom.room;

/**
 * How one worker spends its data center's split of the minute's pool {@code G'(t)} on new users and users of the
 * partial bucket. One algorithm per implementation; pick one with {@link #of(RoomConfig)}.
 *
 * <pre>{@code
 * SlotStrategy s = SlotStrategy.of(config);
 * Allowance a = s.allowance(new SlotSplit(15, 113), 3, 10, 0.25);   // even split: PerWorker(16)
 * }</pre>
 */
public interface SlotStrategy {

    /**
     * @param split         this data center's slots and the Anywhere slots of the minute so far
     * @param dcWorkers     workers of this data center active within 30 s (0 is read as 1)
     * @param globalWorkers workers of all data centers active within 30 s (0 is read as 1)
     * @param utilization   {@code activeUsers(t) / T}
     */
    Allowance allowance(SlotSplit split, int dcWorkers, int globalWorkers, double utilization);

    /** The strategy the config names. */
    static SlotStrategy of(RoomConfig config) {
        return switch (config.strategy()) {
            case EVEN_SPLIT -> new EvenSplit();
            case UTILIZATION_SCALED -> new UtilizationScaled(config.curveFactor());
            case COUNTERS -> new Counters();
        };
    }

    /** What a worker may admit this minute. */
    sealed interface Allowance {
        /** Even split and utilization-scaled: the worker counts its own admissions of the minute against this. */
        record PerWorker(long limit) implements Allowance {
        }

        /** Counters: take a number from the data center's counter below {@code dataCenterLimit}, else from Anywhere. */
        record ViaCounters(long dataCenterLimit, long anywhereLimit) implements Allowance {
        }
    }
}

