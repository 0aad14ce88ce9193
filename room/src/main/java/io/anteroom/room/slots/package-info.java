/**
 * Slot strategies: how one worker spends its data center's split of the minute's pool. {@link
 * io.anteroom.room.slots.SlotStrategy} is the seam, one algorithm per class ({@code EvenSplit},
 * {@code UtilizationScaled}, {@code CountersStrategy}), chosen by {@link
 * io.anteroom.room.slots.StrategyKind}.
 */
package io.anteroom.room.slots;
