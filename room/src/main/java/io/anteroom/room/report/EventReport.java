package io.anteroom.room.report;

import io.anteroom.room.EventWindow;
import io.anteroom.room.history.HistoryRow;
import io.anteroom.room.history.RoomHistory;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A room's report totals per UTC day and per scheduled event, kept for {@value #RETENTION_DAYS}
 * days: the room's global object folds each minute of its history into them once the minute can no
 * longer change ({@link #finalThrough}), and answers a report with these totals plus the minutes
 * not folded yet. Only counts and histograms are kept, never per-user data, so a day costs a few
 * hundred bytes however large the crowd.
 *
 * <p>Invariants: not thread-safe (the owner runs one event at a time); a minute is folded at most
 * once ({@link #foldedThrough} only grows, and rows at or before it are ignored), so folding the
 * same rows again, or a prefix of them, changes nothing; a minute belongs to its UTC day and to
 * every known event whose window ({@link EventWindow#appliesFrom()} to {@link
 * EventWindow#closesAt()}) holds the minute's start.
 *
 * <pre>{@code
 * EventReport report = EventReport.restore(saved);             // or new EventReport()
 * report.noteEvent(config.event());                             // on every report that carries one
 * report.fold(finalRows, EventReport.finalThrough(nowMinute));  // on the backup alarm; save save()
 * List<ReportLine> days = report.days(fromDay, toDay, rowsAfter(report.foldedThrough()));
 * }</pre>
 */
public final class EventReport {

  /** Days kept (the issue asks for at least 30). */
  public static final int RETENTION_DAYS = 35;

  /** Events remembered at most (the oldest are forgotten first). */
  public static final int MAX_EVENTS = 100;

  /**
   * What is stored: small enough for one storage value ({@value #RETENTION_DAYS} days and {@value
   * #MAX_EVENTS} events of a few hundred bytes each).
   *
   * @param foldedThrough the last minute folded in (minutes since the epoch); -1 before any
   * @param days totals per UTC day (days since the epoch)
   * @param events totals per event, by name
   */
  public record Saved(
      long foldedThrough, SortedMap<Long, ReportCounts> days, Map<String, EventTotals> events) {}

  /**
   * An event's window (as last announced) and its totals.
   *
   * @param name the event's name
   * @param prequeueFrom when its pre-queue opens; null for none
   * @param opensAt its start
   * @param closesAt its end
   * @param counts its totals over the minutes folded so far
   */
  public record EventTotals(
      String name, Instant prequeueFrom, Instant opensAt, Instant closesAt, ReportCounts counts) {

    Instant from() {
      return prequeueFrom != null ? prequeueFrom : opensAt;
    }

    boolean holds(long minute) {
      Instant start = Instant.ofEpochSecond(minute * 60);
      return !start.isBefore(from()) && start.isBefore(closesAt);
    }
  }

  private long foldedThrough = -1;
  private final TreeMap<Long, ReportCounts> days = new TreeMap<>();
  private final LinkedHashMap<String, EventTotals> events = new LinkedHashMap<>();

  public EventReport() {}

  /** A report holding {@code saved} (null: empty). */
  public static EventReport restore(Saved saved) {
    EventReport r = new EventReport();
    if (saved != null) {
      r.foldedThrough = saved.foldedThrough();
      if (saved.days() != null) {
        r.days.putAll(saved.days());
      }
      if (saved.events() != null) {
        saved.events().values().stream()
            .sorted(java.util.Comparator.comparing(EventTotals::from))
            .forEach(e -> r.events.put(e.name(), e));
      }
    }
    return r;
  }

  /** What to store. */
  public Saved save() {
    return new Saved(foldedThrough, new TreeMap<>(days), new LinkedHashMap<>(events));
  }

  /** The UTC day (days since the epoch) of a minute. */
  public static long dayOf(long minute) {
    return Math.floorDiv(minute, 1440);
  }

  /** The last minute that can no longer change at {@code nowMinute} (see {@link RoomHistory}). */
  public static long finalThrough(long nowMinute) {
    return nowMinute - RoomHistory.LIVE_MINUTES;
  }

  public long foldedThrough() {
    return foldedThrough;
  }

  /**
   * Remembers {@code e}'s window (null: nothing). A known event keeps its totals; its times follow
   * the newest announcement. Returns whether anything changed (then save).
   */
  public boolean noteEvent(EventWindow e) {
    if (e == null) {
      return false;
    }
    EventTotals known = events.get(e.name());
    ReportCounts counts = known == null ? ReportCounts.EMPTY : known.counts();
    EventTotals now =
        new EventTotals(e.name(), e.prequeueFrom(), e.opensAt(), e.closesAt(), counts);
    if (now.equals(known)) {
      return false;
    }
    events.put(e.name(), now);
    while (events.size() > MAX_EVENTS) {
      events.remove(events.keySet().iterator().next());
    }
    return true;
  }

  /** The events known, oldest first. */
  public List<EventTotals> events() {
    return List.copyOf(events.values());
  }

  /**
   * Folds the rows of minutes in {@code (foldedThrough, through]} into the totals (others are
   * ignored), then forgets days and events older than the retention at {@code through}.
   */
  public void fold(Collection<HistoryRow> rows, long through) {
    if (through <= foldedThrough) {
      return;
    }
    for (HistoryRow row : rows) {
      if (row.minute() > foldedThrough && row.minute() <= through) {
        ReportCounts c = ReportCounts.of(row);
        days.merge(dayOf(row.minute()), c, ReportCounts::plus);
        events.replaceAll(
            (name, e) ->
                e.holds(row.minute())
                    ? new EventTotals(
                        e.name(), e.prequeueFrom(), e.opensAt(), e.closesAt(), e.counts().plus(c))
                    : e);
      }
    }
    foldedThrough = through;
    long firstDay = dayOf(through) - RETENTION_DAYS + 1;
    days.headMap(firstDay, false).clear();
    Instant oldest = Instant.ofEpochSecond(firstDay * 86_400);
    events.values().removeIf(e -> e.closesAt().isBefore(oldest));
  }

  /**
   * The report lines of days {@code [fromDay, toDay)}, oldest first, each day's totals plus its
   * minutes in {@code unfolded} after {@link #foldedThrough} (a day without any data is left out).
   */
  public List<ReportLine> days(long fromDay, long toDay, Collection<HistoryRow> unfolded) {
    TreeMap<Long, ReportCounts> sums =
        new TreeMap<>(days.subMap(fromDay, Math.max(fromDay, toDay)));
    for (HistoryRow row : unfolded) {
      long day = dayOf(row.minute());
      if (row.minute() > foldedThrough && day >= fromDay && day < toDay) {
        sums.merge(day, ReportCounts.of(row), ReportCounts::plus);
      }
    }
    List<ReportLine> lines = new ArrayList<>();
    sums.forEach(
        (day, c) ->
            lines.add(
                new ReportLine(
                    ReportLine.Kind.DAY,
                    java.time.LocalDate.ofEpochDay(day).toString(),
                    Instant.ofEpochSecond(day * 86_400),
                    Instant.ofEpochSecond((day + 1) * 86_400),
                    c)));
    return lines;
  }

  /**
   * The report lines of the known events, by start, each with its minutes in {@code unfolded} after
   * {@link #foldedThrough} added.
   */
  public List<ReportLine> eventLines(Collection<HistoryRow> unfolded) {
    List<ReportLine> lines = new ArrayList<>();
    events.values().stream()
        .sorted(java.util.Comparator.comparing(EventTotals::from))
        .forEach(
            e -> {
              ReportCounts c = e.counts();
              for (HistoryRow row : unfolded) {
                if (row.minute() > foldedThrough && e.holds(row.minute())) {
                  c = c.plus(ReportCounts.of(row));
                }
              }
              lines.add(new ReportLine(ReportLine.Kind.EVENT, e.name(), e.from(), e.closesAt(), c));
            });
    return lines;
  }
}
