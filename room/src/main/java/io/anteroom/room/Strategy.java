package io.anteroom.room;

/**
 * How a worker spends its data center's share of the minute's slots (see {@link SlotStrategy}).
 */
public enum Strategy {
    /** 2023 data-center counters: no division by workers; each attempt takes a number. The default. */
    COUNTERS,
    /** 2021 even split: each worker gets {@code floor(slots_dc / dcWorkers) + floor(slots_anywhere / globalWorkers)}. */
    EVEN_SPLIT,
    /** 2023 utilization-scaled split: worker counts multiplied by {@code utilization ^ curveFactor}. */
    UTILIZATION_SCALED
}
