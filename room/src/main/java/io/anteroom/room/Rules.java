package io.anteroom.room;

/**
 * Switches between the rules of {@code waiting-room.md} ({@link #spec()}, the default) and the
 * rules of the published write-ups taken literally ({@link #published()}), so the simulator can
 * compare both with the same code: every formula exists once and these flags only select its
 * variant.
 *
 * @param proRataRelease active users of the current expiry minute are released gradually ({@code
 *     H[m] × (1 - f)}); off: only {@code e > m} counts
 * @param refreshSlotWaiting a waiting user counts until about three missed refreshes; off: until
 *     {@code queueTimeout}
 * @param poolRefill the minute's pool grows with the sessions expiring during it ({@code floor(E ×
 *     f)})
 * @param inFlightMargin the pool holds back admissions too recent to be in any state
 * @param abandonmentInWait the wait estimate accounts for users giving up
 * @param consumeOnlyWhenGranted a counter consumes a number only when it grants; off: on every call
 * @param admissionForecastWait the wait estimate follows what the room will admit (free slots, N,
 *     sessions ending: {@link AdmissionForecast}); off: the users ahead over the mean admissions of
 *     the last 3 minutes
 */
public record Rules(
    boolean proRataRelease,
    boolean refreshSlotWaiting,
    boolean poolRefill,
    boolean inFlightMargin,
    boolean abandonmentInWait,
    boolean consumeOnlyWhenGranted,
    boolean admissionForecastWait) {

  /** The rules of {@code waiting-room.md}. */
  public static Rules spec() {
    return new Rules(true, true, true, true, true, true, true);
  }

  /**
   * The 2021/2023 write-ups taken literally: budget fixed at the minute start without refill or
   * in-flight margin, active users counted only by {@code e > m}, waiting users counted until
   * {@code queueTimeout}, wait estimate from past admissions without abandonment, a counter number
   * consumed on every call.
   */
  public static Rules published() {
    return new Rules(false, false, false, false, false, false, false);
  }
}
