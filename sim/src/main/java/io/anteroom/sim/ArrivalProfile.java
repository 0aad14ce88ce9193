package io.anteroom.sim;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code --arrivals} value of {@code anteroom simulate --config}: new users per minute over the
 * run, as inline segments or a CSV file.
 *
 * <p>Inline: comma-separated segments {@code FROM-TOm:USERS/min} (constant) or {@code
 * FROM-TOm:A..B/min} (a straight line from A to B), whole minutes, the first starting at 0 and each
 * starting where the previous one ended:
 *
 * <pre>
 * 0-10m:50/min,10-12m:5000/min,12-60m:300/min
 * 0-30m:0..400/min,30-45m:400/min
 * </pre>
 *
 * <p>A value ending in {@code .csv} is a file of one line per minute, {@code minute,users}, minutes
 * 0, 1, 2, ... in order; an optional header line, blank lines and {@code #} comments are skipped.
 *
 * @param profile the arrival rate over time
 * @param minutes the run's length: the end of the last segment, or the number of CSV rows
 */
public record ArrivalProfile(Scenario.Profile profile, int minutes) {
  /** Longest run: a day. */
  public static final int MAX_MINUTES = 24 * 60;

  /** Highest rate accepted (users per minute). */
  public static final double MAX_RATE = 1_000_000;

  private static final String SEGMENT_FORM =
      "FROM-TOm:USERS/min or FROM-TOm:A..B/min, e.g. 0-10m:50/min,10-12m:5000/min";

  private static final Pattern SEGMENT =
      Pattern.compile("(\\d+)-(\\d+)m:(\\d+(?:\\.\\d+)?)(?:\\.\\.(\\d+(?:\\.\\d+)?))?/min");

  /** Parses an inline profile, or reads the CSV file when {@code value} ends in {@code .csv}. */
  public static ArrivalProfile parse(String value) {
    String v = value.strip();
    if (v.isEmpty()) {
      throw new IllegalArgumentException("--arrivals: empty; expected " + SEGMENT_FORM);
    }
    if (v.toLowerCase(Locale.ROOT).endsWith(".csv")) {
      return readCsv(Path.of(v));
    }
    return parseInline(v);
  }

  static ArrivalProfile parseInline(String v) {
    List<double[]> points = new ArrayList<>();
    String[] segments = v.split(",", -1);
    int end = 0;
    for (int i = 0; i < segments.length; i++) {
      String seg = segments[i].strip().replace(" ", "");
      String where = "--arrivals: segment " + (i + 1) + " \"" + segments[i].strip() + "\"";
      Matcher m = SEGMENT.matcher(seg);
      if (!m.matches()) {
        throw new IllegalArgumentException(where + ": expected " + SEGMENT_FORM);
      }
      int from = minute(where, m.group(1));
      int to = minute(where, m.group(2));
      if (from != end) {
        throw new IllegalArgumentException(
            where
                + ": starts at minute "
                + from
                + " but "
                + (i == 0 ? "the first segment must start at 0" : "the previous one ends at " + end)
                + " (segments follow each other without gaps or overlaps)");
      }
      if (to <= from) {
        throw new IllegalArgumentException(
            where + ": ends at minute " + to + ", not after " + from);
      }
      double a = rate(where, m.group(3));
      double b = m.group(4) == null ? a : rate(where, m.group(4));
      points.add(new double[] {from, a});
      points.add(new double[] {to, b});
      end = to;
    }
    return of(points, end, "--arrivals");
  }

  static ArrivalProfile readCsv(Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalArgumentException("--arrivals: cannot read " + file + ": " + e, e);
    }
    List<double[]> points = new ArrayList<>();
    int expected = 0;
    boolean first = true;
    for (int n = 0; n < lines.size(); n++) {
      String line = lines.get(n).strip();
      String where = "--arrivals: " + file + " line " + (n + 1);
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String[] cells = line.split("\\s*[,;]\\s*");
      boolean header = first && !cells[0].isEmpty() && Character.isLetter(cells[0].charAt(0));
      first = false;
      if (header) {
        continue;
      }
      if (cells.length != 2) {
        throw new IllegalArgumentException(
            where + ": \"" + line + "\" is not minute,users (e.g. 0,50)");
      }
      int minute = minute(where, cells[0]);
      if (minute != expected) {
        throw new IllegalArgumentException(
            where + ": minute " + minute + " where minute " + expected + " was expected");
      }
      double rate = rate(where, cells[1]);
      points.add(new double[] {minute, rate});
      points.add(new double[] {minute + 1, rate});
      expected++;
    }
    if (points.isEmpty()) {
      throw new IllegalArgumentException(
          "--arrivals: " + file + " has no rows; expected one line per minute: minute,users");
    }
    return of(points, expected, "--arrivals: " + file);
  }

  private static ArrivalProfile of(List<double[]> points, int minutes, String where) {
    if (minutes > MAX_MINUTES) {
      throw new IllegalArgumentException(
          where
              + ": "
              + minutes
              + " minutes; at most "
              + MAX_MINUTES
              + " (a day) can be simulated");
    }
    return new ArrivalProfile(new Scenario.Profile(points), minutes);
  }

  private static int minute(String where, String text) {
    try {
      int m = Integer.parseInt(text.strip());
      if (m < 0 || m > MAX_MINUTES) {
        throw new NumberFormatException();
      }
      return m;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          where + ": minute \"" + text + "\" is not a whole number in 0.." + MAX_MINUTES, e);
    }
  }

  private static double rate(String where, String text) {
    double r;
    try {
      r = Double.parseDouble(text.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          where + ": \"" + text + "\" is not a number of users per minute", e);
    }
    if (!(r >= 0 && r <= MAX_RATE)) {
      throw new IllegalArgumentException(
          where
              + ": "
              + text
              + " users/min is out of range 0.."
              + String.format(Locale.ROOT, "%.0f", MAX_RATE));
    }
    return r;
  }

  /** Users expected over the whole run (the integral of the profile), for the report's header. */
  public double expectedUsers() {
    double total = 0;
    for (int s = 0; s < minutes * 60; s++) {
      total += profile.rateAt((s + 0.5) / 60.0) / 60.0;
    }
    return total;
  }
}
