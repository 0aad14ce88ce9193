package io.anteroom.sim.report;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The simulator's one chart helper (XChart): line charts and PNG files. The room simulations'
 * figures ({@code ScenarioCharts}) and the back-pressure models' ({@code BackpressureCharts}) say
 * what to draw; this class draws it, headless.
 *
 * <pre>{@code
 * XYChart c = Charts.xy(900, 450, "load", "minutes", "requests per second");
 * Charts.line(c, "aimd", minutes, load);
 * Charts.save(c, dir.resolve("load.png"));
 * }</pre>
 */
public final class Charts {
  private Charts() {}

  /** An empty line chart of that size and titles. */
  public static XYChart xy(int width, int height, String title, String xTitle, String yTitle) {
    return new XYChartBuilder()
        .width(width)
        .height(height)
        .title(title)
        .xAxisTitle(xTitle)
        .yAxisTitle(yTitle)
        .build();
  }

  /**
   * Adds a line without markers; points whose {@code y} is NaN are left out (XChart refuses
   * NaN-only gaps at the ends).
   */
  public static XYSeries line(XYChart chart, String name, double[] x, double[] y) {
    int n = 0;
    double[] xs = new double[x.length];
    double[] ys = new double[y.length];
    for (int i = 0; i < x.length; i++) {
      if (!Double.isNaN(y[i])) {
        xs[n] = x[i];
        ys[n++] = y[i];
      }
    }
    XYSeries s = chart.addSeries(name, Arrays.copyOf(xs, n), Arrays.copyOf(ys, n));
    s.setMarker(SeriesMarkers.NONE);
    return s;
  }

  /** The same, in {@code color}. */
  public static XYSeries line(XYChart chart, String name, double[] x, double[] y, Color color) {
    XYSeries s = line(chart, name, x, y);
    s.setLineColor(color);
    return s;
  }

  /** Writes {@code chart} as a PNG to {@code file} and returns it. */
  public static Path save(XYChart chart, Path file) throws IOException {
    System.setProperty("java.awt.headless", "true");
    BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    return file;
  }

  /**
   * Writes {@code charts} as one PNG grid of {@code rows} × {@code columns} (row by row) and
   * returns it.
   */
  public static Path saveGrid(List<XYChart> charts, int rows, int columns, Path file)
      throws IOException {
    System.setProperty("java.awt.headless", "true");
    BitmapEncoder.saveBitmap(
        charts, rows, columns, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    return file;
  }
}
