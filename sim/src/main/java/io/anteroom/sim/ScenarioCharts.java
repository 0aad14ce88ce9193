package io.anteroom.sim;

import io.anteroom.sim.report.Charts;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.style.Styler;

/**
 * PNG charts of one scenario, drawn with {@link Charts}: one column per strategy, side by side,
 * with rows for the true active users against T, the queued users, and the admissions of every
 * minute against N. The published variant of a strategy is drawn in the same panel as its spec
 * variant.
 */
final class ScenarioCharts {
  private static final int WIDTH = 520;
  private static final int HEIGHT = 320;
  private static final int STEP_SECONDS = 10;
  private static final Color SPEC = new Color(0x1f77b4);
  private static final Color PUBLISHED = new Color(0xff7f0e);
  private static final Color LIMIT = new Color(0xd62728);

  private ScenarioCharts() {}

  /** Writes {@code sim-<scenario>.png} into {@code dir} and returns its path. */
  static Path write(List<SimulationResult> runsOfOneScenario, Path dir) throws IOException {
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
    return Charts.saveGrid(
        charts, 3, columns.size(), dir.resolve("sim-" + scenario.name() + ".png"));
  }

  private static XYChart activeChart(Scenario scenario, List<SimulationResult> column) {
    XYChart chart =
        chart(column.get(0).strategy().base().cliName() + ": active users", "active users");
    int minutes = column.get(0).minutes();
    line(
        chart,
        "T",
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
        chart(column.get(0).strategy().base().cliName() + ": users waiting", "waiting users");
    for (SimulationResult r : column) {
      everyStep(chart, r, r.series().waitingBySecond());
    }
    return chart;
  }

  private static XYChart admissionsChart(Scenario scenario, List<SimulationResult> column) {
    XYChart chart =
        chart(column.get(0).strategy().base().cliName() + ": admissions per minute", "admissions");
    int minutes = column.get(0).minutes();
    line(
        chart,
        "N",
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

  private static void everyStep(XYChart chart, SimulationResult r, int[] bySecond) {
    int n = (bySecond.length + STEP_SECONDS - 1) / STEP_SECONDS;
    double[] x = new double[n];
    double[] y = new double[n];
    for (int i = 0; i < n; i++) {
      int s = Math.min(bySecond.length - 1, i * STEP_SECONDS);
      x[i] = s / 60.0;
      y[i] = bySecond[s];
    }
    line(chart, label(r), x, y, color(r));
  }

  private static String label(SimulationResult r) {
    return r.strategy().published() ? "published" : "spec";
  }

  private static Color color(SimulationResult r) {
    return r.strategy().published() ? PUBLISHED : SPEC;
  }

  private static XYChart chart(String title, String yTitle) {
    XYChart chart = Charts.xy(WIDTH, HEIGHT, title, "minute", yTitle);
    chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
    chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
    chart.getStyler().setXAxisDecimalPattern("0");
    chart.getStyler().setChartTitleFont(chart.getStyler().getChartTitleFont().deriveFont(13f));
    chart.getStyler().setYAxisMin(0.0);
    chart.getStyler().setAntiAlias(true);
    return chart;
  }

  private static void line(XYChart chart, String name, double[] x, double[] y, Color color) {
    Charts.line(chart, name, x, y, color);
  }
}
