package io.anteroom.room;

/**
 * Where admissions that no counter granted are charged once the counters answer again ({@link
 * RoomWorker#charge}). A gateway that cannot reach its coordinator admits new users without counter
 * grants ({@code failMode} degrade or open). The minute's pool leaves the minute's own admissions
 * out of the active count because the counters already spend them against {@code G}, so those
 * admissions would count nowhere for the rest of their minute, and the counters would hand their
 * slots out again. Charging them closes that gap: the data center's counter of the current minute
 * absorbs them up to the data center's share of {@code G(t)} ({@link MinuteCounter#charge}), the
 * room's Anywhere counter the rest.
 *
 * @param admissions how many admissions to charge
 * @param dataCenter the data center's counter of the current minute
 * @param dataCenterLimit the data center's share of the minute's pool now
 * @param anywhere the room's Anywhere counter of the same minute, which takes what is left
 */
public record Charge(
    long admissions, CounterKey dataCenter, long dataCenterLimit, CounterKey anywhere) {

  /**
   * Whether {@code decision}, made without a counter's grant (by a degraded fallback, or with a
   * grant that {@code failMode} open made up), is an admission to charge: a new user let in under
   * the counters strategy (a running session is counted already; the other strategies draw no
   * counter to charge).
   */
  public static boolean owedFor(Decision decision, RoomConfig config) {
    return decision instanceof Decision.Admit a
        && a.reason() != Decision.AdmitReason.SESSION
        && config.strategy() == io.anteroom.room.slots.StrategyKind.COUNTERS;
  }
}
