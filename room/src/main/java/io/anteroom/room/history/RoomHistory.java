package io.anteroom.room.history;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The global object's memory of a room's recent history: the rows of the last {@link #LIVE_MINUTES}
 * minutes, which reports can still change, and which of them changed since they were last handed
 * out for storage. Older rows live only in storage, one key per minute, for {@link
 * #RETENTION_MINUTES}. Pure: the global object feeds it each data center's activity totals and the
 * gauges of its view, stores what {@link #takeChanged} returns, and answers queries with {@link
 * #merge}.
 *
 * <p>Invariants: not thread-safe (the object runs one event at a time); applying a data center's
 * totals replaces that data center's entry per minute, so repeated or reordered aggregates change
 * nothing; minutes outside {@code [now - LIVE_MINUTES + 1, now + 1]} are ignored (a row older than
 * that is already stored for good, a later one would be a skewed clock).
 *
 * <pre>{@code
 * RoomHistory history = new RoomHistory(rowsLoadedFromStorage);
 * history.applyActivity("dublin", aggregate.activity(), nowMinute);
 * history.recordGauges(nowMinute, gauges);
 * storage.put(keysOf(history.takeChanged()));   // on the backup alarm
 * history.evict(nowMinute);
 * }</pre>
 */
public final class RoomHistory {
  /** Seven days of minutes. */
  public static final int RETENTION_MINUTES = 7 * 1440;

  /**
   * Minutes a row stays in memory and can still change: covers a data center's activity window
   * ({@link #ACTIVITY_WINDOW_MINUTES}) with a margin.
   */
  public static final int LIVE_MINUTES = 15;

  /** Minutes of activity totals a data center keeps and sends with every aggregate. */
  public static final int ACTIVITY_WINDOW_MINUTES = 10;

  private final TreeMap<Long, HistoryRow> live = new TreeMap<>();
  private final TreeSet<Long> changed = new TreeSet<>();

  /** A history holding {@code restored} rows (from storage), none of them changed. */
  public RoomHistory(Collection<HistoryRow> restored) {
    restored.forEach(r -> live.put(r.minute(), r));
  }

  /** The UTC minute (minutes since the epoch) of {@code t}, the key of its row. */
  public static long minuteOf(java.time.Instant t) {
    return Math.floorDiv(t.getEpochSecond(), 60);
  }

  /** The first minute kept at {@code nowMinute}: older rows are pruned. */
  public static long firstKept(long nowMinute) {
    return nowMinute - RETENTION_MINUTES + 1;
  }

  /** Replaces {@code dataCenter}'s entry in every live minute of {@code totals}. */
  public void applyActivity(
      String dataCenter, SortedMap<Long, MinuteActivity> totals, long nowMinute) {
    if (totals == null) {
      return;
    }
    totals.forEach(
        (minute, activity) -> {
          if (accepts(minute, nowMinute)) {
            HistoryRow row = row(minute);
            if (!activity.equals(row.byDataCenter().get(dataCenter))) {
              put(row.withDataCenter(dataCenter, activity));
            }
          }
        });
  }

  /** The room's counts at {@code minute} (the latest of the minute wins). */
  public void recordGauges(long minute, HistoryRow.Gauges gauges, long nowMinute) {
    if (accepts(minute, nowMinute) && !gauges.equals(row(minute).gauges())) {
      put(row(minute).withGauges(gauges));
    }
  }

  /** The waiting users whose place stopped counting during {@code minute}. */
  public void recordAbandoned(long minute, long abandoned, long nowMinute) {
    if (abandoned == 0 && !live.containsKey(minute)) {
      return; // a minute without any report does not become one with data
    }
    HistoryRow row = row(minute);
    if (accepts(minute, nowMinute) && (row.abandoned() == null || row.abandoned() != abandoned)) {
      put(row.withAbandoned(abandoned));
    }
  }

  /** The rows changed since the last call, oldest first; they count as stored afterwards. */
  public List<HistoryRow> takeChanged() {
    List<HistoryRow> rows = new ArrayList<>();
    for (long m : changed) {
      rows.add(live.get(m));
    }
    changed.clear();
    return rows;
  }

  public boolean hasChanges() {
    return !changed.isEmpty();
  }

  /** Forgets rows that can no longer change (they are stored), unless not yet handed out. */
  public void evict(long nowMinute) {
    live.headMap(nowMinute - LIVE_MINUTES + 1, false).keySet().removeIf(m -> !changed.contains(m));
  }

  /** The rows in memory, oldest first. */
  public List<HistoryRow> live() {
    return List.copyOf(live.values());
  }

  /**
   * The rows of minutes {@code [from, to)}: stored rows overlaid by live ones (which are newer),
   * minutes without a row left out, oldest first.
   */
  public static List<HistoryRow> merge(
      Collection<HistoryRow> stored, Collection<HistoryRow> live, long from, long to) {
    TreeMap<Long, HistoryRow> rows = new TreeMap<>();
    for (HistoryRow r : stored) {
      rows.put(r.minute(), r);
    }
    for (HistoryRow r : live) {
      rows.put(r.minute(), r);
    }
    return from >= to ? List.of() : List.copyOf(rows.subMap(from, to).values());
  }

  /** The API's series of {@code rows}. */
  public static List<HistoryPoint> series(Collection<HistoryRow> rows) {
    List<HistoryPoint> points = new ArrayList<>();
    for (HistoryRow r : rows) {
      points.add(r.point());
    }
    return points;
  }

  private boolean accepts(long minute, long nowMinute) {
    return minute > nowMinute - LIVE_MINUTES && minute <= nowMinute + 1;
  }

  private HistoryRow row(long minute) {
    return live.getOrDefault(minute, HistoryRow.empty(minute));
  }

  private void put(HistoryRow row) {
    live.put(row.minute(), row);
    changed.add(row.minute());
  }
}
