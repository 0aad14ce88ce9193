package io.anteroom.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;

/**
 * The charts of the simulator's report as an operator reads them: minute axes with a few round
 * labels, lines named as the tables name the strategies. Runs are made up (any numbers will do for
 * the layout), so every run length is cheap to try.
 */
class ScenarioChartsTest {

  /** Every variant of every strategy over {@code minutes}, with a growing queue. */
  private static List<SimulationResult> runs(int minutes) {
    Scenario scenario = Scenarios.require("steady").withMinutes(minutes);
    Metrics none =
        new Metrics(
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            Double.NaN,
            0,
            0,
            0,
            0,
            1,
            0,
            1,
            0,
            Double.NaN,
            Double.NaN,
            Double.NaN,
            0,
            Double.NaN,
            Double.NaN,
            Double.NaN,
            Metrics.PlaceErrors.NONE);
    List<SimulationResult> runs = new ArrayList<>();
    for (StrategyVariant strategy : StrategyVariant.all()) {
      int[] active = new int[minutes * 60];
      int[] waiting = new int[minutes * 60];
      for (int s = 0; s < active.length; s++) {
        active[s] = Math.min(1000, 4 * s);
        waiting[s] = s / 3;
      }
      int[] admissions = new int[minutes];
      java.util.Arrays.fill(admissions, 150);
      runs.add(
          new SimulationResult(
              scenario,
              strategy,
              1,
              minutes,
              none,
              new SimulationResult.Series(active, waiting, admissions, new int[minutes]),
              List.of(),
              new TreeMap<>(),
              0));
    }
    return runs;
  }

  /**
   * The x values XChart labels on the axis of a run of {@code minutes} when it draws {@code chart},
   * read through the chart's own label function (the one the PNG uses). XChart also formats values
   * it does not draw (the axis' end, a step beyond either end) while it measures labels: values
   * outside {@code [0, minutes)} are left out.
   */
  private static TreeSet<Double> xTicks(XYChart chart, int minutes) {
    Function<Double, String> label = chart.getStyler().getxAxisTickLabelsFormattingFunction();
    assertThat(label).as("the chart labels its minute axis itself").isNotNull();
    TreeSet<Double> ticks = new TreeSet<>();
    chart
        .getStyler()
        .setxAxisTickLabelsFormattingFunction(
            v -> {
              if (v >= 0 && v < minutes) {
                ticks.add(v);
              }
              return label.apply(v);
            });
    BitmapEncoder.getBufferedImage(chart);
    return ticks;
  }

  @ParameterizedTest(name = "{0} minutes")
  @ValueSource(ints = {17, 60, 90, 240})
  void everyChartLabelsItsMinuteAxisInAFewRoundMinutesThatDoNotRunTogether(int minutes) {
    System.setProperty("java.awt.headless", "true");
    for (XYChart chart : ScenarioCharts.charts(runs(minutes))) {
      TreeSet<Double> ticks = xTicks(chart, minutes);

      assertThat(ticks).as("%s: ticks", chart.getTitle()).hasSizeBetween(3, 13);
      assertThat(ticks)
          .as("%s: labels are whole minutes (a 2.5 labelled \"2\" is wrong)", chart.getTitle())
          .allMatch(v -> v == Math.rint(v));
      List<Double> list = new ArrayList<>(ticks);
      double step = list.get(1) - list.get(0);
      for (int i = 1; i < list.size(); i++) {
        assertThat(list.get(i) - list.get(i - 1))
            .as("%s: evenly spaced %s", chart.getTitle(), ticks)
            .isEqualTo(step);
      }
      assertThat(ticks.first()).as("%s: starts at the run's start", chart.getTitle()).isZero();
      assertThat(ticks.last() + step)
          .as("%s: reaches the run's end %s", chart.getTitle(), ticks)
          .isGreaterThanOrEqualTo(minutes);
    }
  }

  @Test
  void everyLineIsNamedAsTheTablesNameItsStrategyAndTheLimitsAsLimits() {
    List<SimulationResult> runs = runs(60);
    List<XYChart> charts = ScenarioCharts.charts(runs);
    Map<String, List<String>> names = new TreeMap<>();
    for (XYChart chart : charts) {
      names.put(chart.getTitle(), new ArrayList<>(chart.getSeriesMap().keySet()));
    }

    assertThat(names)
        .containsEntry(
            "counters: active users", List.of("limit T", "counters", "counters-published"))
        .containsEntry("counters: users waiting", List.of("counters", "counters-published"))
        .containsEntry(
            "evenSplit: admissions per minute",
            List.of("limit N", "evenSplit", "evenSplit-published"));
    assertThat(names.values().stream().flatMap(List::stream)).doesNotContain("spec", "published");
  }
}
