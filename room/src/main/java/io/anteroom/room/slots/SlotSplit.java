package io.anteroom.room.slots;

/**
 * A pool of slots split between one data center and the shared <em>Anywhere</em> part by traffic
 * history.
 *
 * @param dataCenterSlots {@code slots_dc = floor(P × U_dc / max(T, U))}
 * @param anywhereSlots {@code slots_anywhere = P - Σ slots_dc} over all data centers of the history
 */
public record SlotSplit(long dataCenterSlots, long anywhereSlots) {}
