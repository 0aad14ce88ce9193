package io.anteroom.gateway.admin;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.anteroom.room.history.HistoryPoint;
import io.anteroom.room.history.RoomHistory;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;

/**
 * The minutes an analytics query asks for: {@code from} and {@code to} are ISO-8601 instants
 * ({@code 2026-11-22T10:00:00Z}) or epoch seconds; {@code to} defaults to now and {@code from} to
 * one hour before {@code to}; {@code from} must be before {@code to} and the range at most {@link
 * #MAX_RANGE}. The range covers the minutes {@code [minute(from), ceil(to))}: the minute holding
 * {@code to} is included unless {@code to} is a minute's start.
 *
 * @param fromMinute the first minute (minutes since the epoch)
 * @param toMinute the first minute after the range
 */
record AnalyticsRange(long fromMinute, long toMinute) {
  static final Duration DEFAULT_RANGE = Duration.ofHours(1);
  static final Duration MAX_RANGE = Duration.ofDays(7);

  /**
   * Parses the query parameters (each list is what the query string gave for the name).
   *
   * @throws IllegalArgumentException naming the parameter and what is allowed
   */
  static AnalyticsRange parse(List<String> from, List<String> to, Instant now) {
    Instant end = instant("to", to, now);
    Instant start = instant("from", from, end.minus(DEFAULT_RANGE));
    if (!start.isBefore(end)) {
      throw new IllegalArgumentException("from (" + start + ") must be before to (" + end + ")");
    }
    if (Duration.between(start, end).compareTo(MAX_RANGE) > 0) {
      throw new IllegalArgumentException(
          "from..to spans "
              + Duration.between(start, end)
              + "; at most 7 days (PT168H) of history are kept and asked at once");
    }
    long fromMinute = RoomHistory.minuteOf(start);
    long toMinute = Math.ceilDiv(end.getEpochSecond() + (end.getNano() > 0 ? 1 : 0), 60);
    return new AnalyticsRange(fromMinute, Math.max(toMinute, fromMinute + 1));
  }

  private static Instant instant(String name, List<String> values, Instant fallback) {
    if (values == null || values.isEmpty()) {
      return fallback;
    }
    if (values.size() > 1) {
      throw new IllegalArgumentException(
          name + ": given " + values.size() + " times; give it once");
    }
    String v = values.getFirst().trim();
    try {
      if (v.matches("-?\\d{1,12}")) {
        return Instant.ofEpochSecond(Long.parseLong(v));
      }
      return Instant.parse(v);
    } catch (DateTimeParseException | NumberFormatException e) {
      throw new IllegalArgumentException(
          name
              + ": expected an ISO-8601 instant such as 2026-11-22T10:00:00Z or epoch seconds,"
              + " found \""
              + (v.length() > 40 ? v.substring(0, 40) + "..." : v)
              + "\"");
    }
  }

  /** One minute as the API shows it; unknown values are left out. */
  static ObjectNode toJson(HistoryPoint p) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("minute", p.start().toString());
    putIfKnown(o, "activeUsers", p.activeUsers());
    putIfKnown(o, "waitingUsers", p.waitingUsers());
    putIfKnown(o, "totalActiveUsers", p.totalActiveUsers());
    putIfKnown(o, "newUsersPerMinute", p.newUsersPerMinute());
    o.put("arrivals", p.arrivals());
    o.put("admissions", p.admissions());
    putIfKnown(o, "abandoned", p.abandoned());
    o.put("revoked", p.revoked());
    if (p.estimatedWaitMinutes() != null) {
      o.put("estimatedWaitMinutes", Math.round(p.estimatedWaitMinutes() * 100) / 100.0);
    }
    o.put("admittedMeasured", p.admittedMeasured());
    putIfKnown(o, "realWaitP50Seconds", p.realWaitP50Seconds());
    putIfKnown(o, "realWaitP95Seconds", p.realWaitP95Seconds());
    var dcs = o.putArray("dataCenters");
    p.dataCenters().forEach(dcs::add);
    return o;
  }

  private static void putIfKnown(ObjectNode o, String name, Long value) {
    if (value != null) {
      o.put(name, value);
    }
  }
}
