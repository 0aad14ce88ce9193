package io.anteroom.sim;

import io.anteroom.sim.report.Charts;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.style.Styler;

/**
 * PNG charts of one scenario, drawn with {@link Charts}: one column per strategy, side by side,
 * with rows for the true active users against T, the queued users, and the admissions of every
 * minute against N. The published variant of a strategy is drawn in the same panel as the strategy
 * itself; every line is labelled as the tables name it ({@link StrategyVariant#cliName()}, e.g.
 * {@code counters} and {@code counters-published}), the limits as {@code limit T} and {@code limit
 * N}. The x axis spans the whole run, in minutes.
 */
final class ScenarioCharts {
  private static final int WIDTH = 520;
  private static final int HEIGHT = 320;
  private static final int STEP_SECONDS = 10;
  private static final Color SPEC = new Color(0x1f77b4);
  private static final Color PUBLISHED = new Color(0xff7f0e);
  private static final Color LIMIT = new Color(0xd62728);

  private ScenarioCharts() {}

  /** Writes the charts of one scenario as one PNG grid to {@code file} and returns it. */
  static Path write(List<SimulationResult> runsOfOneScenario, Path file) throws IOException {
    int columns = (int) runsOfOneScenario.stream().map(r -> r.strategy().base()).distinct().count();
    return Charts.saveGrid(charts(runsOfOneScenario), 3, columns, file);
  }

  /**
   * The charts of one scenario, row by row: active users, users waiting, admissions per minute,
   * each with one column per strategy.
   */
  static List<XYChart> charts(List<SimulationResult> runsOfOneScenario) {
    Scenario scenario = runsOfOneScenario.get(0).scenario();
    Map<StrategyVariant, List<SimulationResult>> columns = new LinkedHashMap<>();
    for (SimulationResult r : runsOfOneScenario) {
      columns.computeIfAbsent(r.strategy().base(), k -> new ArrayList<>()).add(r);
    }
    List<XYChart> charts = new ArrayList<>();
    for (List<SimulationResult> column : columns.values()) {
      charts.add(activeChart(scenario, column));
    }
    for (List<SimulationResult> column : columns.values()) {
      charts.add(queuedChart(column));
    }
    for (List<SimulationResult> column : columns.values()) {
      charts.add(admissionsChart(scenario, column));
    }
    return charts;
  }

  private static XYChart activeChart(Scenario scenario, List<SimulationResult> column) {
    XYChart chart =
        chart(
            column.get(0).strategy().base().cliName() + ": active users",
            "active users",
            column.get(0).minutes());
    int minutes = column.get(0).minutes();
    line(
        chart,
        "limit T",
        new double[] {0, minutes},
        new double[] {scenario.limits().totalActiveUsers(), scenario.limits().totalActiveUsers()},
        LIMIT);
    for (SimulationResult r : column) {
      everyStep(chart, r, r.series().activeBySecond());
    }
    return chart;
  }

  private static XYChart queuedChart(List<SimulationResult> column) {
    XYChart chart =
        chart(
            column.get(0).strategy().base().cliName() + ": users waiting",
            "waiting users",
            column.get(0).minutes());
    for (SimulationResult r : column) {
      everyStep(chart, r, r.series().waitingBySecond());
    }
    return chart;
  }

  private static XYChart admissionsChart(Scenario scenario, List<SimulationResult> column) {
    XYChart chart =
        chart(
            column.get(0).strategy().base().cliName() + ": admissions per minute",
            "admissions",
            column.get(0).minutes());
    int minutes = column.get(0).minutes();
    line(
        chart,
        "limit N",
        new double[] {0, minutes},
        new double[] {scenario.limits().newUsersPerMinute(), scenario.limits().newUsersPerMinute()},
        LIMIT);
    for (SimulationResult r : column) {
      int[] perMinute = r.series().admissionsByMinute();
      double[] x = new double[perMinute.length];
      double[] y = new double[perMinute.length];
      for (int i = 0; i < perMinute.length; i++) {
        x[i] = i + 0.5;
        y[i] = perMinute[i];
      }
      line(chart, label(r), x, y, color(r));
    }
    return chart;
  }

  /** A line of a per-second series: every {@link #STEP_SECONDS}th second, and the last one. */
  private static void everyStep(XYChart chart, SimulationResult r, int[] bySecond) {
    int last = bySecond.length - 1;
    int steps = last / STEP_SECONDS + 1;
    int n = last % STEP_SECONDS == 0 ? steps : steps + 1;
    double[] x = new double[n];
    double[] y = new double[n];
    for (int i = 0; i < n; i++) {
      int s = Math.min(last, i * STEP_SECONDS);
      x[i] = s / 60.0;
      y[i] = bySecond[s];
    }
    line(chart, label(r), x, y, color(r));
  }

  private static String label(SimulationResult r) {
    return r.strategy().cliName();
  }

  private static Color color(SimulationResult r) {
    return r.strategy().published() ? PUBLISHED : SPEC;
  }

  private static XYChart chart(String title, String yTitle, int minutes) {
    XYChart chart = Charts.xy(WIDTH, HEIGHT, title, "minute", yTitle);
    chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
    chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
    minuteAxis(chart, minutes);
    chart.getStyler().setChartTitleFont(chart.getStyler().getChartTitleFont().deriveFont(13f));
    chart.getStyler().setYAxisMin(0.0);
    chart.getStyler().setAntiAlias(true);
    return chart;
  }

  /**
   * The x axis from minute 0 to the run's end, labelled by {@link #minuteLabel(double)}. XChart
   * puts ticks at round values unless every x value of the chart is equally spaced: then it labels
   * data points, e.g. every 2.5 minutes of a 60-minute run, which a pattern of whole minutes
   * printed as "2", "5", "8" and which ran together; {@link #everyStep} ends each line at the run's
   * last second so that never happens.
   */
  private static void minuteAxis(XYChart chart, int minutes) {
    chart.getStyler().setXAxisMin(0.0);
    chart.getStyler().setXAxisMax((double) minutes);
    chart.getStyler().setxAxisTickLabelsFormattingFunction(ScenarioCharts::minuteLabel);
  }

  /** A tick label of the minute axis: whole minutes as such, others with their fraction. */
  static String minuteLabel(double minute) {
    return new DecimalFormat("0.#", DecimalFormatSymbols.getInstance(Locale.ROOT)).format(minute);
  }

  private static void line(XYChart chart, String name, double[] x, double[] y, Color color) {
    Charts.line(chart, name, x, y, color);
  }
}
