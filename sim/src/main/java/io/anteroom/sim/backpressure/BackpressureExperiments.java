package io.anteroom.sim.backpressure;

import io.anteroom.backpressure.ThroughputSignal;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Runs every back-pressure measurement of {@code docs/backpressure.md}, prints the table and writes
 * the charts.
 *
 * <pre>
 * ./mvnw -q -o -pl sim -am package -DskipTests
 * java -cp "sim/target/classes:$(cat sim/target/classpath.txt)" io.anteroom.sim.backpressure.BackpressureExperiments docs/img
 * </pre>
 */
public final class BackpressureExperiments {

  /** Everything measured, for the table, the charts and the tests. */
  public record Results(
      List<SynchronousModel.Result> synchronous,
      List<EventModel.Result> event,
      EventModel.Result eventWithFiveMinuteRate,
      List<Detection> detection,
      List<ReferenceExperiment.Result> reference) {
    public SynchronousModel.Result synchronous(ControllerKind kind) {
      return synchronous.stream().filter(r -> r.kind() == kind).findFirst().orElseThrow();
    }

    public EventModel.Result event(ControllerKind kind) {
      return event.stream().filter(r -> r.kind() == kind).findFirst().orElseThrow();
    }
  }

  /** Open-loop detection delays of one signal, in seconds. */
  public record Detection(ThroughputSignal signal, double stepTo2x, double stepTo1_1x) {}

  private BackpressureExperiments() {}

  /** Runs every experiment with its default, seeded configuration. Deterministic. */
  public static Results run() {
    List<SynchronousModel.Result> synchronous = new ArrayList<>();
    List<EventModel.Result> event = new ArrayList<>();
    for (ControllerKind kind : ControllerKind.values()) {
      synchronous.add(SynchronousModel.defaults().run(kind));
      event.add(EventModel.defaults().run(kind));
    }
    EventModel.Result slowSignal =
        new EventModel(EventModel.Config.defaults().withSignal(ThroughputSignal.FIVE_MINUTE_RATE))
            .run(ControllerKind.AIMD);
    List<Detection> detection = new ArrayList<>();
    for (ThroughputSignal signal : ThroughputSignal.values()) {
      detection.add(
          new Detection(
              signal,
              DetectionExperiment.detectionSeconds(signal, 100, 0.9, 2.0),
              DetectionExperiment.detectionSeconds(signal, 100, 0.9, 1.1)));
    }
    List<ReferenceExperiment.Result> reference = new ArrayList<>();
    for (ThroughputSignal signal :
        List.of(ThroughputSignal.FIVE_MINUTE_RATE, ThroughputSignal.TEN_SECOND_WINDOW)) {
      for (ControllerKind kind : ControllerKind.values()) {
        reference.add(ReferenceExperiment.defaults().run(kind, signal));
      }
    }
    return new Results(synchronous, event, slowSignal, detection, reference);
  }

  /** Usage: {@code BackpressureExperiments [output directory, default docs/img]}. */
  public static void main(String[] args) throws IOException {
    if (args.length > 1) {
      System.err.println(
          "usage: BackpressureExperiments [output directory for the PNG charts, default docs/img]");
      System.exit(2);
    }
    Path out = Path.of(args.length == 1 ? args[0] : "docs/img");
    Files.createDirectories(out);
    Results results = run();
    printTable(results, System.out);
    List<Path> written = BackpressureCharts.write(results, out);
    written.forEach(p -> System.out.println("wrote " + p));
  }

  /** The Markdown tables of {@code docs/backpressure.md}. */
  public static void printTable(Results r, PrintStream out) {
    out.println(
        "Synchronous Chiu-Jain model (1,000 clients, capacity 100 req/s, start CV "
            + fmt(r.synchronous().get(0).startingCoefficientOfVariation(), 2)
            + ", beta 0.5)");
    out.println();
    out.println(
        "| controller | decrease epochs to J >= 0.99 (target <= 4) | J after 400 rounds | verdict |");
    out.println("|---|---|---|---|");
    for (SynchronousModel.Result s : r.synchronous()) {
      int e = s.decreaseEpochsToFairness();
      out.println(
          "| "
              + s.kind().label()
              + " | "
              + (e < 0 ? "never in 400 rounds" : e)
              + " | "
              + fmt(s.finalFairness(), 3)
              + " | "
              + verdict(e >= 0 && e <= 4)
              + " |");
    }
    out.println();
    out.println("Event model (1,000 clients, threshold 100 req/s, 1 h; steady phase 5-35 min)");
    out.println();
    out.println(
        "| controller, signal | mean J of rates (>= 0.95) | mean J served, 5 min (>= 0.95) | load p95 (<= 1.10x) "
            + "| peak (<= 1.3x) | utilisation (>= 0.8) | detection after step to 2x (<= 10 s) | recovery after throttle clears |");
    out.println("|---|---|---|---|---|---|---|---|");
    List<EventModel.Result> rows = new ArrayList<>(r.event());
    rows.add(r.eventWithFiveMinuteRate());
    for (EventModel.Result e : rows) {
      out.println(
          "| "
              + e.kind().label()
              + ", "
              + signalName(e.signal())
              + " | "
              + fmt(e.meanFairness(), 3)
              + " "
              + verdict(e.meanFairness() >= 0.95)
              + " | "
              + fmt(e.meanServedFairness(), 3)
              + " "
              + verdict(e.meanServedFairness() >= 0.95)
              + " | "
              + fmt(e.loadP95(), 2)
              + "x "
              + verdict(e.loadP95() <= 1.10)
              + " | "
              + fmt(e.loadPeak(), 2)
              + "x "
              + verdict(e.loadPeak() <= 1.3)
              + " | "
              + fmt(e.utilisation(), 2)
              + " "
              + verdict(e.utilisation() >= 0.8)
              + " | "
              + seconds(e.detectionSeconds())
              + " "
              + verdict(e.detectionSeconds() >= 0 && e.detectionSeconds() <= 10)
              + " | "
              + seconds(e.recoverySeconds())
              + " |");
    }
    out.println();
    out.println("Open-loop detection delay (steady 0.9x threshold, then a step)");
    out.println();
    out.println("| signal | step to 2x | step to 1.1x |");
    out.println("|---|---|---|");
    for (Detection d : r.detection()) {
      out.println(
          "| "
              + signalName(d.signal())
              + " | "
              + seconds(d.stepTo2x())
              + " | "
              + seconds(d.stepTo1_1x())
              + " |");
    }
    out.println();
    out.println(
        "Reference experiment (3 instances, ~14 req/s, threshold 6 req/s from 15 to 45 min)");
    out.println();
    out.println(
        "| controller, signal | before | settled (2nd half) | settled peak | last 10 min after removal | back to 90% after removal |");
    out.println("|---|---|---|---|---|---|");
    for (ReferenceExperiment.Result x : r.reference()) {
      out.println(
          "| "
              + x.kind().label()
              + ", "
              + signalName(x.signal())
              + " | "
              + fmt(x.before(), 1)
              + " | "
              + fmt(x.settled(), 1)
              + " | "
              + fmt(x.settledPeak(), 1)
              + " | "
              + fmt(x.after(), 1)
              + " | "
              + seconds(x.returnSeconds())
              + " |");
    }
  }

  static String signalName(ThroughputSignal s) {
    return switch (s) {
      case FIVE_MINUTE_RATE -> "5-min rate";
      case ONE_MINUTE_RATE -> "1-min rate";
      case TEN_SECOND_WINDOW -> "10 s window";
    };
  }

  private static String verdict(boolean met) {
    return met ? "(met)" : "(**missed**)";
  }

  private static String seconds(double s) {
    return s < 0 ? "not within the run" : fmt(s, 1) + " s";
  }

  private static String fmt(double x, int decimals) {
    return String.format(Locale.ROOT, "%." + decimals + "f", x);
  }
}
