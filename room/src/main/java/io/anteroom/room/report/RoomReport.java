package io.anteroom.room.report;

import java.util.List;

/**
 * A room's report as the admin API renders it.
 *
 * @param days one line per UTC day with data, oldest first
 * @param events one line per known event, by start
 */
public record RoomReport(List<ReportLine> days, List<ReportLine> events) {}
