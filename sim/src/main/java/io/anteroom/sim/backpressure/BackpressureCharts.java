package io.anteroom.sim.backpressure;

import io.anteroom.sim.report.Charts;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.knowm.xchart.XYChart;

/** The PNG charts of {@code docs/backpressure.md}, drawn with {@link Charts}. */
final class BackpressureCharts {
  private static final int WIDTH = 900;
  private static final int HEIGHT = 450;

  private BackpressureCharts() {}

  static List<Path> write(BackpressureExperiments.Results r, Path dir) throws IOException {
    List<Path> written = new ArrayList<>();
    written.add(save(synchronousFairness(r), dir.resolve("backpressure-sync-fairness.png")));
    written.add(save(eventFairness(r), dir.resolve("backpressure-event-fairness.png")));
    written.add(
        save(eventLoad(r.event(), "10 s window"), dir.resolve("backpressure-event-load.png")));
    written.add(
        save(
            eventLoad(List.of(r.eventWithFiveMinuteRate()), "five-minute rate"),
            dir.resolve("backpressure-event-load-five-minute-rate.png")));
    written.add(save(reference(r), dir.resolve("backpressure-reference.png")));
    return written;
  }

  private static XYChart chart(String title, String x, String y) {
    XYChart chart = Charts.xy(WIDTH, HEIGHT, title, x, y);
    chart.getStyler().setMarkerSize(0);
    chart.getStyler().setXAxisDecimalPattern("#0");
    chart.getStyler().setXAxisTickMarkSpacingHint(100);
    chart.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.InsideSE);
    return chart;
  }

  private static void line(XYChart chart, String name, double[] x, double[] y) {
    Charts.line(chart, name, x, y);
  }

  private static double[] constant(int n, double value) {
    double[] v = new double[n];
    Arrays.fill(v, value);
    return v;
  }

  private static XYChart synchronousFairness(BackpressureExperiments.Results r) {
    XYChart c =
        chart(
            "Synchronous Chiu-Jain model: Jain's index per round (1,000 clients, start CV 1)",
            "round",
            "J");
    double[] rounds = null;
    for (SynchronousModel.Result s : r.synchronous()) {
      rounds = new double[s.fairness().length];
      Arrays.setAll(rounds, i -> i);
      line(c, s.kind().label(), rounds, s.fairness());
    }
    line(c, "target 0.99", rounds, constant(rounds.length, SynchronousModel.FAIR));
    return c;
  }

  private static XYChart eventFairness(BackpressureExperiments.Results r) {
    XYChart c =
        chart(
            "Event model: Jain's index over time (1,000 clients; 1,000 more from 35 to 45 min)",
            "minutes",
            "J");
    for (EventModel.Result e : r.event()) {
      line(c, e.kind().label() + ": current rates", e.minutes(), e.fairness());
      line(c, e.kind().label() + ": served in 5 min", e.minutes(), e.servedFairness());
    }
    c.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.InsideS);
    return c;
  }

  private static XYChart eventLoad(List<EventModel.Result> rows, String signal) {
    XYChart c =
        chart(
            "Event model, "
                + signal
                + ": load vs threshold (10 s buckets; 2x clients from 35 to 45 min)",
            "minutes",
            "requests per second");
    for (EventModel.Result e : rows) {
      line(
          c,
          e.kind().label() + ", " + BackpressureExperiments.signalName(e.signal()),
          e.minutes(),
          e.load());
    }
    EventModel.Result first = rows.get(0);
    line(c, "threshold", first.minutes(), constant(first.minutes().length, first.maxQps()));
    c.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.InsideNW);
    return c;
  }

  private static XYChart reference(BackpressureExperiments.Results r) {
    XYChart c =
        chart(
            "Reference experiment: 3 instances, threshold 6 req/s from 15 to 45 min (30 s buckets)",
            "minutes",
            "saves per second");
    for (ReferenceExperiment.Result x : r.reference()) {
      line(
          c,
          x.kind().label() + ", " + BackpressureExperiments.signalName(x.signal()),
          x.minutes(),
          x.load());
    }
    ReferenceExperiment.Result first = r.reference().get(0);
    line(c, "threshold", first.minutes(), first.threshold());
    c.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.InsideNE);
    return c;
  }

  private static Path save(XYChart chart, Path file) throws IOException {
    return Charts.save(chart, file);
  }
}
