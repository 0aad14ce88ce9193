package io.anteroom.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Text of the results: fixed-width tables for the terminal ({@link TextTable}), a Markdown table
 * for {@code docs/simulation.md}, and CSV. Numbers are formatted with {@link Locale#ROOT} so the
 * output is the same byte for byte on every machine.
 */
final class Report {
  private Report() {}

  static final String[] COLUMNS = {
    "strategy",
    "peak/T",
    "p99/T",
    "min>N",
    "min>1.05N",
    "max adm/N",
    "util@1st queue",
    "queued<90%",
    "queued<95%",
    "<95% for R+2s",
    "in order",
    "not overtaken",
    "whole-bucket adm",
    "wait err mean",
    "wait err median",
    "wait bias",
    "wait p50",
    "wait p95",
    "wait max",
    "queued",
    "gave up",
    "targets"
  };

  static String[] row(SimulationResult r) {
    Metrics m = r.metrics();
    return new String[] {
      r.strategy().cliName(),
      f3(m.peakActiveRatio()),
      f3(m.p99ActiveRatio()),
      Integer.toString(m.minutesOverN()),
      Integer.toString(m.minutesOver105N()),
      f2(m.maxAdmissionsRatio()),
      Double.isNaN(m.utilizationAtFirstQueue()) ? "-" : pct(m.utilizationAtFirstQueue()),
      pct(m.shareQueuedBelow90()),
      pct(m.shareQueuedBelow95()),
      pct(m.shareQueuedBelow95ForARefresh()),
      String.format(Locale.ROOT, "%.2f%%", 100 * m.inOrderShare()),
      String.format(Locale.ROOT, "%.2f%%", 100 * m.notOvertakenShare()),
      pct(r.wholeBucketShare()),
      Double.isNaN(m.meanWaitError()) ? "-" : pct(m.meanWaitError()),
      Double.isNaN(m.medianWaitError()) ? "-" : pct(m.medianWaitError()),
      Double.isNaN(m.medianWaitBias())
          ? "-"
          : String.format(Locale.ROOT, "%+.1f%%", 100 * m.medianWaitBias()),
      minutes(m.waitP50Minutes()),
      minutes(m.waitP95Minutes()),
      minutes(m.waitMaxMinutes()),
      Long.toString(m.queuedUsers()),
      Long.toString(m.abandoned()),
      r.misses().isEmpty() ? "met" : "missed " + r.misses().size()
    };
  }

  /**
   * The columns of the terminal's tables, in groups that each fit in {@value TextTable#WIDTH}
   * characters next to the longest strategy name: the group's title heads the strategies' column.
   */
  static final List<List<String>> TEXT_GROUPS =
      List.of(
          List.of("limits", "peak/T", "p99/T", "min>N", "min>1.05N", "max adm/N", "targets"),
          List.of("fairness", "util@1st queue", "queued<90%", "queued<95%", "<95% for R+2s"),
          List.of("queue", "in order", "not overtaken", "whole-bucket adm", "queued", "gave up"),
          List.of(
              "waits",
              "wait err mean",
              "wait err median",
              "wait bias",
              "wait p50",
              "wait p95",
              "wait max"));

  /**
   * The runs of one scenario for a terminal, no line wider than {@value TextTable#WIDTH}: the
   * scenario, a table of each group of {@link #TEXT_GROUPS} (one line per strategy), then the
   * missed targets.
   */
  static String text(List<SimulationResult> runs) {
    Scenario s = runs.get(0).scenario();
    StringBuilder out = new StringBuilder();
    out.append(
            TextTable.wrap(
                String.format(
                    Locale.ROOT,
                    "scenario %s (%d min, seed %d): %s",
                    s.name(),
                    runs.get(0).minutes(),
                    runs.get(0).seed(),
                    s.description()),
                "  "))
        .append('\n');
    List<String> columns = List.of(COLUMNS);
    List<String> strategies = runs.stream().map(r -> r.strategy().cliName()).toList();
    List<String[]> rows = runs.stream().map(Report::row).toList();
    for (List<String> group : TEXT_GROUPS) {
      List<String> headers = group.subList(1, group.size());
      List<List<String>> cells =
          rows.stream()
              .map(row -> headers.stream().map(h -> row[columns.indexOf(h)]).toList())
              .toList();
      TextTable.append(out, group.get(0), strategies, headers, cells);
    }
    for (SimulationResult r : runs) {
      for (String miss : r.misses()) {
        out.append(TextTable.wrap("  " + r.strategy().cliName() + " missed: " + miss, "    "))
            .append('\n');
      }
    }
    return out.toString();
  }

  /** A Markdown table of the runs of one scenario. */
  static String markdown(List<SimulationResult> runs) {
    StringBuilder out = new StringBuilder();
    out.append('|').append(String.join("|", COLUMNS)).append("|\n|");
    out.append("---|".repeat(COLUMNS.length)).append('\n');
    for (SimulationResult r : runs) {
      out.append('|').append(String.join("|", row(r))).append("|\n");
    }
    return out.toString();
  }

  /**
   * The median absolute wait-estimate error of every run, one row per scenario and one column per
   * strategy (with the number of users measured): the figure the wait-estimate target is held to.
   */
  static String waitErrorMarkdown(List<List<SimulationResult>> all) {
    StringBuilder out = new StringBuilder("|scenario|");
    List<SimulationResult> first = all.get(0);
    for (SimulationResult r : first) {
      out.append(r.strategy().cliName()).append('|');
    }
    out.append("\n|---|").append("---|".repeat(first.size())).append('\n');
    for (List<SimulationResult> runs : all) {
      out.append('|').append(runs.get(0).scenario().name()).append('|');
      for (SimulationResult r : runs) {
        out.append(waitErrorCell(r.metrics())).append('|');
      }
      out.append('\n');
    }
    return out.toString();
  }

  /**
   * The same for a terminal, no line wider than {@value TextTable#WIDTH}: one table of the spec
   * strategies, then one of the published variants (each split further if it is still too wide).
   */
  static String waitErrorText(List<List<SimulationResult>> all) {
    StringBuilder out = new StringBuilder();
    List<SimulationResult> first = all.get(0);
    for (boolean published : new boolean[] {false, true}) {
      List<Integer> chosen = new ArrayList<>();
      for (int i = 0; i < first.size(); i++) {
        if (first.get(i).strategy().published() == published) {
          chosen.add(i);
        }
      }
      if (chosen.isEmpty()) {
        continue;
      }
      TextTable.append(
          out,
          "median wait error",
          all.stream().map(runs -> runs.get(0).scenario().name()).toList(),
          chosen.stream().map(i -> first.get(i).strategy().cliName()).toList(),
          all.stream()
              .map(runs -> chosen.stream().map(i -> waitErrorCell(runs.get(i).metrics())).toList())
              .toList());
    }
    return out.toString();
  }

  /**
   * The place-in-line error of every run, one row per scenario and one column per strategy: median
   * and 90th percentile of the error of the places shown as one number, the share of measured users
   * shown one number, and the share of the ranges shown that held the true place.
   */
  static String placeErrorMarkdown(List<List<SimulationResult>> all) {
    StringBuilder out = new StringBuilder("|scenario|");
    List<SimulationResult> first = all.get(0);
    for (SimulationResult r : first) {
      out.append(r.strategy().cliName()).append('|');
    }
    out.append("\n|---|").append("---|".repeat(first.size())).append('\n');
    for (List<SimulationResult> runs : all) {
      out.append('|').append(runs.get(0).scenario().name()).append('|');
      for (SimulationResult r : runs) {
        out.append(placeErrorCell(r.metrics().place())).append('|');
      }
      out.append('\n');
    }
    return out.toString();
  }

  static String placeErrorCell(Metrics.PlaceErrors p) {
    if (p.measured() == 0) {
      return "-";
    }
    String number =
        p.approximate() == 0
            ? "-"
            : String.format(
                Locale.ROOT, "%.1f%% / %.1f%%", 100 * p.medianError(), 100 * p.p90Error());
    String ranges =
        p.ranges() == 0
            ? ""
            : String.format(Locale.ROOT, ", ranges hold %.0f%%", 100 * p.rangeCoverage());
    return String.format(
        Locale.ROOT,
        "%s (%.0f%% of %d as one number%s)",
        number,
        100.0 * p.approximate() / p.measured(),
        p.measured(),
        ranges);
  }

  private static String waitErrorCell(Metrics m) {
    return Double.isNaN(m.medianWaitError())
        ? "-"
        : String.format(Locale.ROOT, "%.1f%% (%d)", 100 * m.medianWaitError(), m.waitSamples());
  }

  static String csvHeader() {
    return "scenario,minutes,seed,strategy,peak_active_ratio,p99_active_ratio,admissions,minutes_over_n,"
        + "minutes_over_105n,max_admissions_ratio,queued_users,utilization_at_first_queue,share_queued_below_90,"
        + "share_queued_below_95,share_queued_below_95_for_a_refresh,fifo_inversions,in_order_share,overtakes,not_overtaken_share,whole_bucket_share,wait_samples,mean_wait_error,median_wait_error,median_wait_bias,"
        + "abandoned,wait_p50_minutes,wait_p95_minutes,wait_max_minutes,"
        + "place_measured,place_approximate,median_place_error,p90_place_error,place_bias,place_ranges,"
        + "place_range_coverage,targets_missed\n";
  }

  static String csvLine(SimulationResult r) {
    Metrics m = r.metrics();
    return String.format(
        Locale.ROOT,
        "%s,%d,%d,%s,%.4f,%.4f,%d,%d,%d,%.4f,%d,%.4f,%.4f,%.4f,%.4f,%d,%.5f,%d,%.5f,%.4f,%d,%.4f,%.4f,%.4f,%d,%.3f,%.3f,%.3f,%d,%d,%.4f,%.4f,%.4f,%d,%.4f,%d%n",
        r.scenario().name(),
        r.minutes(),
        r.seed(),
        r.strategy().cliName(),
        m.peakActiveRatio(),
        m.p99ActiveRatio(),
        m.admissions(),
        m.minutesOverN(),
        m.minutesOver105N(),
        m.maxAdmissionsRatio(),
        m.queuedUsers(),
        m.utilizationAtFirstQueue(),
        m.shareQueuedBelow90(),
        m.shareQueuedBelow95(),
        m.shareQueuedBelow95ForARefresh(),
        m.fifoInversions(),
        m.inOrderShare(),
        m.overtakes(),
        m.notOvertakenShare(),
        r.wholeBucketShare(),
        m.waitSamples(),
        m.meanWaitError(),
        m.medianWaitError(),
        m.medianWaitBias(),
        m.abandoned(),
        m.waitP50Minutes(),
        m.waitP95Minutes(),
        m.waitMaxMinutes(),
        m.place().measured(),
        m.place().approximate(),
        m.place().medianError(),
        m.place().p90Error(),
        m.place().bias(),
        m.place().ranges(),
        m.place().rangeCoverage(),
        r.misses().size());
  }

  /**
   * Per-minute series of the runs of one scenario, one column group per strategy: admissions in the
   * minute (and of those, whole-bucket users), and active and waiting users at its end.
   */
  static String seriesCsv(List<SimulationResult> runs) {
    StringBuilder out = new StringBuilder("minute");
    for (SimulationResult r : runs) {
      String n = r.strategy().cliName();
      out.append(',')
          .append(n)
          .append("_admissions,")
          .append(n)
          .append("_whole_bucket,")
          .append(n)
          .append("_active,")
          .append(n)
          .append("_waiting");
    }
    out.append('\n');
    int minutes = runs.get(0).minutes();
    for (int m = 0; m < minutes; m++) {
      out.append(m);
      for (SimulationResult r : runs) {
        SimulationResult.Series s = r.series();
        out.append(',')
            .append(s.admissionsByMinute()[m])
            .append(',')
            .append(s.wholeBucketAdmissionsByMinute()[m])
            .append(',')
            .append(s.activeBySecond()[m * 60 + 59])
            .append(',')
            .append(s.waitingBySecond()[m * 60 + 59]);
      }
      out.append('\n');
    }
    return out.toString();
  }

  private static String f2(double v) {
    return String.format(Locale.ROOT, "%.2f", v);
  }

  private static String f3(double v) {
    return String.format(Locale.ROOT, "%.3f", v);
  }

  private static String minutes(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.1fm", v);
  }

  private static String pct(double v) {
    return String.format(Locale.ROOT, "%.1f%%", 100 * v);
  }
}
