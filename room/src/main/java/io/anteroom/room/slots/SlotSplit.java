package io.anteroom.room.slots;

/**
 * A pool of slots {@code P} split between one data center and the shared <em>Anywhere</em> part by
 * traffic history ({@code U = Σ U_dc}, {@code D = max(T, U)}, {@code H = floor(P × U / D)}); each
 * part never falls as {@code P} grows.
 *
 * @param dataCenterSlots {@code slots_dc}: the data center's seats when {@code H} seats go to the
 *     data centers by D'Hondt on {@code U_dc} (ties to the name that sorts first); at least {@code
 *     floor(P × U_dc / D)}
 * @param anywhereSlots {@code slots_anywhere = P - H = ceil(P × (D - U) / D)}
 */
public record SlotSplit(long dataCenterSlots, long anywhereSlots) {}
