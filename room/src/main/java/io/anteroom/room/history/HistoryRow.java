package io.anteroom.room.history;

import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One minute of a room's history as the room's global object stores it: every data center's
 * activity totals for the minute (each replaced by that data center's newer totals, so a repeated
 * or reordered report changes nothing), the gauges the global view showed in the minute, and the
 * waiting users whose place stopped counting in it. Immutable.
 *
 * @param minute minutes since the epoch (UTC)
 * @param byDataCenter each data center's activity totals for the minute
 * @param gauges the room's counts at the last global report of the minute; null when none came
 * @param abandoned waiting users whose place stopped counting during the minute without being
 *     admitted or refreshing; null until the global view of a later minute counted it
 */
public record HistoryRow(
    long minute, SortedMap<String, MinuteActivity> byDataCenter, Gauges gauges, Long abandoned) {

  public HistoryRow {
    byDataCenter =
        Collections.unmodifiableSortedMap(
            byDataCenter == null ? new TreeMap<>() : new TreeMap<>(byDataCenter));
  }

  /** A row without anything yet. */
  public static HistoryRow empty(long minute) {
    return new HistoryRow(minute, null, null, null);
  }

  /**
   * The room's counts, as the global view showed them.
   *
   * @param activeUsers admitted users with a running session
   * @param waitingUsers users counted as waiting
   * @param totalActiveUsers the room's limit T then
   * @param newUsersPerMinute the room's limit N then
   */
  public record Gauges(
      long activeUsers, long waitingUsers, long totalActiveUsers, long newUsersPerMinute) {}

  /** This row with {@code dataCenter}'s totals replaced by {@code totals}. */
  public HistoryRow withDataCenter(String dataCenter, MinuteActivity totals) {
    TreeMap<String, MinuteActivity> m = new TreeMap<>(byDataCenter);
    m.put(dataCenter, totals);
    return new HistoryRow(minute, m, gauges, abandoned);
  }

  public HistoryRow withGauges(Gauges newer) {
    return new HistoryRow(minute, byDataCenter, newer, abandoned);
  }

  public HistoryRow withAbandoned(long newer) {
    return new HistoryRow(minute, byDataCenter, gauges, newer);
  }

  /** The sum over data centers. */
  public MinuteActivity activity() {
    MinuteActivity sum = MinuteActivity.EMPTY;
    for (MinuteActivity a : byDataCenter.values()) {
      sum = sum.plus(a);
    }
    return sum;
  }

  /** The minute as the API shows it. */
  public HistoryPoint point() {
    MinuteActivity a = activity();
    return new HistoryPoint(
        minute,
        java.time.Instant.ofEpochSecond(minute * 60),
        gauges == null ? null : gauges.activeUsers(),
        gauges == null ? null : gauges.waitingUsers(),
        gauges == null ? null : gauges.totalActiveUsers(),
        gauges == null ? null : gauges.newUsersPerMinute(),
        a.arrivals(),
        a.admissions(),
        abandoned,
        a.revoked(),
        a.estimatesShown() == 0 ? null : a.estimatedWaitMinutesSum() / a.estimatesShown(),
        a.realWaits().total(),
        a.realWaits().percentileSeconds(0.5).stream().boxed().findFirst().orElse(null),
        a.realWaits().percentileSeconds(0.95).stream().boxed().findFirst().orElse(null),
        java.util.List.copyOf(byDataCenter.keySet()));
  }
}
