package io.anteroom.room.report;

import java.time.Instant;

/**
 * One line of a room's report: a UTC day or a scheduled event, and its totals.
 *
 * @param kind a day or an event
 * @param key the day ({@code 2026-11-29}) or the event's name
 * @param from the first instant covered (an event: its pre-queue's opening, or else its start)
 * @param to the first instant after it
 * @param counts the totals
 */
public record ReportLine(Kind kind, String key, Instant from, Instant to, ReportCounts counts) {

  /** What a line covers. */
  public enum Kind {
    DAY,
    EVENT
  }
}
