package io.anteroom.gateway.admin;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.anteroom.door.RoomRuntime;
import io.anteroom.room.report.EventReport;
import io.anteroom.room.report.ReportCounts;
import io.anteroom.room.report.ReportLine;
import io.anteroom.room.report.RoomReport;
import io.vertx.ext.web.RoutingContext;
import java.time.Clock;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * {@code GET /api/rooms/:id/report} (JSON) and {@code GET /api/rooms/:id/report.csv}: the room's
 * report per UTC day and per event ({@link EventReport}), asked of the room's global object through
 * the coordination. {@code from} and {@code to} are UTC dates ({@code 2026-11-29}), both included;
 * {@code to} defaults to today and {@code from} to 29 days before {@code to}; at most {@value
 * EventReport#RETENTION_DAYS} days. The events are every event the room's report still holds,
 * whatever the dates. With {@code event=NAME} the answer holds that event's line only (no days; 404
 * when the report holds no such event): the dashboard's download of one event.
 *
 * <p>Every line has the same columns ({@link #columns}), in the JSON as keys and in the CSV as
 * columns, so the two never disagree. Handlers run on the request's event loop; the coordinator's
 * answer comes back on it.
 */
final class ReportApi {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The CSV's columns, in order. */
  static final List<String> CSV_COLUMNS =
      List.of(
          "kind",
          "key",
          "from",
          "to",
          "minutes",
          "arrivals",
          "admissions",
          "abandoned",
          "revoked",
          "passesUsed",
          "noShows",
          "estimatedWaitP50Seconds",
          "estimatedWaitP95Seconds",
          "realWaitP50Seconds",
          "realWaitP95Seconds");

  private final Clock clock;

  ReportApi(Clock clock) {
    this.clock = clock;
  }

  /** The UTC days asked: {@code [fromDay, toDay)} in days since the epoch. */
  record Days(long fromDay, long toDay) {

    static Days parse(List<String> from, List<String> to, LocalDate today) {
      LocalDate end = date("to", to, today);
      LocalDate start = date("from", from, end.minusDays(29));
      if (start.isAfter(end)) {
        throw new IllegalArgumentException("from (" + start + ") is after to (" + end + ")");
      }
      long days = end.toEpochDay() - start.toEpochDay() + 1;
      if (days > EventReport.RETENTION_DAYS) {
        throw new IllegalArgumentException(
            "from..to spans "
                + days
                + " days; at most "
                + EventReport.RETENTION_DAYS
                + " days are kept and asked at once");
      }
      return new Days(start.toEpochDay(), end.toEpochDay() + 1);
    }

    private static LocalDate date(String name, List<String> values, LocalDate fallback) {
      if (values == null || values.isEmpty()) {
        return fallback;
      }
      if (values.size() > 1) {
        throw new IllegalArgumentException(
            name + ": given " + values.size() + " times; give it once");
      }
      String v = values.getFirst().trim();
      try {
        return LocalDate.parse(v);
      } catch (DateTimeParseException e) {
        throw new IllegalArgumentException(
            name
                + ": expected a UTC date such as 2026-11-29, found \""
                + (v.length() > 40 ? v.substring(0, 40) + "..." : v)
                + "\"");
      }
    }
  }

  /** A line's values by column (after {@code kind} and {@code key}); null: unknown. */
  static Map<String, Object> columns(ReportLine l) {
    ReportCounts c = l.counts();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("from", l.from().toString());
    m.put("to", l.to().toString());
    m.put("minutes", c.minutes());
    m.put("arrivals", c.arrivals());
    m.put("admissions", c.admissions());
    m.put("abandoned", c.abandoned());
    m.put("revoked", c.revoked());
    m.put("passesUsed", c.passesUsed());
    m.put("noShows", c.noShows());
    m.put("estimatedWaitP50Seconds", known(c.estimatedWaitSeconds(0.5)));
    m.put("estimatedWaitP95Seconds", known(c.estimatedWaitSeconds(0.95)));
    m.put("realWaitP50Seconds", known(c.realWaitSeconds(0.5)));
    m.put("realWaitP95Seconds", known(c.realWaitSeconds(0.95)));
    return m;
  }

  private static Long known(OptionalLong v) {
    return v.isPresent() ? v.getAsLong() : null;
  }

  void json(RoutingContext c, RoomRuntime r) {
    ask(
        c,
        r,
        (days, report) -> {
          ObjectNode o = JSON.createObjectNode();
          o.put("id", r.settings().id());
          o.put("from", LocalDate.ofEpochDay(days.fromDay()).toString());
          o.put("to", LocalDate.ofEpochDay(days.toDay() - 1).toString());
          o.put("retentionDays", EventReport.RETENTION_DAYS);
          lines(o.putArray("days"), "day", report.days());
          lines(o.putArray("events"), "event", report.events());
          c.response()
              .putHeader("Content-Type", "application/json")
              .putHeader("Cache-Control", "no-store")
              .end(o.toString());
        });
  }

  void csv(RoutingContext c, RoomRuntime r) {
    ask(
        c,
        r,
        (days, report) -> {
          StringBuilder out = new StringBuilder(String.join(",", CSV_COLUMNS)).append("\r\n");
          report.days().forEach(l -> row(out, "day", l));
          report.events().forEach(l -> row(out, "event", l));
          var event = c.queryParam("event");
          String file =
              "anteroom-report-"
                  + r.settings().id().replaceAll("[^A-Za-z0-9._-]", "_")
                  + "-"
                  + (event.isEmpty()
                      ? LocalDate.ofEpochDay(days.fromDay())
                          + "-"
                          + LocalDate.ofEpochDay(days.toDay() - 1)
                      : "event-" + event.getFirst().replaceAll("[^A-Za-z0-9._-]", "_"))
                  + ".csv";
          c.response()
              .putHeader("Content-Type", "text/csv; charset=utf-8")
              .putHeader("Content-Disposition", "attachment; filename=\"" + file + "\"")
              .putHeader("Cache-Control", "no-store")
              .end(out.toString());
        });
  }

  private static void lines(ArrayNode array, String kind, List<ReportLine> lines) {
    for (ReportLine l : lines) {
      ObjectNode o = array.addObject();
      o.put(kind, l.key());
      columns(l)
          .forEach(
              (k, v) -> {
                if (v instanceof Long n) {
                  o.put(k, n);
                } else if (v != null) {
                  o.put(k, v.toString());
                } else {
                  o.putNull(k);
                }
              });
    }
  }

  private static void row(StringBuilder out, String kind, ReportLine l) {
    out.append(kind).append(',').append(cell(l.key()));
    for (Object v : columns(l).values()) {
      out.append(',').append(v == null ? "" : cell(v.toString()));
    }
    out.append("\r\n");
  }

  /**
   * A CSV cell (RFC 4180): quoted when it holds a comma, quote or line break; a text that a
   * spreadsheet would run as a formula (starting with {@code = + - @}) gets a leading {@code '}.
   */
  static String cell(String v) {
    String s = !v.isEmpty() && "=+-@".indexOf(v.charAt(0)) >= 0 ? "'" + v : v;
    if (s.contains(",") || s.contains("\"") || s.contains("\n") || s.contains("\r")) {
      return "\"" + s.replace("\"", "\"\"") + "\"";
    }
    return s;
  }

  private interface Answer {
    void with(Days days, RoomReport report);
  }

  private void ask(RoutingContext c, RoomRuntime r, Answer answer) {
    Days days;
    try {
      days =
          Days.parse(
              c.queryParam("from"),
              c.queryParam("to"),
              LocalDate.ofInstant(clock.instant(), java.time.ZoneOffset.UTC));
    } catch (IllegalArgumentException e) {
      error(c, 400, e.getMessage());
      return;
    }
    String id = r.settings().id();
    io.vertx.core.Context loop = c.vertx().getOrCreateContext();
    r.control()
        .report(days.fromDay(), days.toDay())
        .whenComplete(
            (report, failure) ->
                loop.runOnContext(
                    v -> {
                      if (failure != null) {
                        error(
                            c,
                            503,
                            "the report of room \""
                                + id
                                + "\" is unavailable: its coordinator did not answer ("
                                + failure
                                + ")");
                        return;
                      }
                      var event = c.queryParam("event");
                      if (event.isEmpty()) {
                        answer.with(days, report);
                        return;
                      }
                      var only =
                          report.events().stream()
                              .filter(l -> l.key().equals(event.getFirst()))
                              .toList();
                      if (only.isEmpty()) {
                        error(
                            c,
                            404,
                            "the report of room \""
                                + id
                                + "\" holds no event \""
                                + event.getFirst()
                                + "\"");
                        return;
                      }
                      answer.with(days, new RoomReport(List.of(), only));
                    }));
  }

  private static void error(RoutingContext c, int status, String message) {
    c.response()
        .setStatusCode(status)
        .putHeader("Content-Type", "application/json")
        .end(JSON.createObjectNode().put("error", message).toString());
  }
}
