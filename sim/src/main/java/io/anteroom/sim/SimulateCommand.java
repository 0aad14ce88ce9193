package io.anteroom.sim;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code anteroom simulate}: replays the built-in scenarios against the slot strategies and writes
 * a report (Markdown, CSV, PNG charts).
 *
 * <pre>
 * ./anteroom simulate --scenario steady --strategy counters --seed 7 --out target/sim
 * ./anteroom simulate --scenario all --out docs      # every scenario, every strategy
 * ./anteroom simulate --list
 * </pre>
 */
@Command(
    name = "simulate",
    mixinStandardHelpOptions = true,
    description =
        "Replays traffic scenarios against the waiting-room strategies in virtual time and writes "
            + "a report with charts.")
public final class SimulateCommand implements Callable<Integer> {

  @Option(
      names = "--scenario",
      paramLabel = "NAME",
      defaultValue = "all",
      description = "a built-in scenario, or 'all' (default: ${DEFAULT-VALUE}); see --list")
  String scenario;

  @Option(
      names = "--strategy",
      paramLabel = "NAME",
      defaultValue = "all",
      split = ",",
      description = "strategies, comma-separated, or 'all' (default: ${DEFAULT-VALUE}); see --list")
  List<String> strategies;

  @Option(
      names = "--seed",
      defaultValue = "1",
      description = "seed of the random traffic (default: ${DEFAULT-VALUE})")
  long seed;

  @Option(
      names = "--minutes",
      description = "simulated minutes (default: each scenario's own length)")
  Integer minutes;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      defaultValue = "simulation",
      description =
          "directory for report.md, results.csv, per-minute series-*.csv and the sim-*.png charts "
              + "(default: ${DEFAULT-VALUE})")
  Path out;

  @Option(names = "--no-charts", description = "skip the PNG charts")
  boolean noCharts;

  @Option(
      names = "--explain-queued",
      description =
          "diagnostic: write queued-below-95-SCENARIO-STRATEGY.csv, one row "
              + "per user first queued below 95 %% utilization (ground truth, and the deciding worker's state age, pool, counters)")
  boolean explainQueued;

  @Option(names = "--list", description = "list the scenarios and strategies, then exit")
  boolean list;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** Entry point; a leading {@code simulate} (as the root launcher passes it) is skipped. */
  public static void main(String[] args) {
    System.exit(execute(args));
  }

  /**
   * Runs the command and returns its exit code (0 done, 2 bad arguments); a leading {@code
   * simulate} is skipped.
   */
  static int execute(String... args) {
    String[] rest =
        args.length > 0 && args[0].equals("simulate")
            ? Arrays.copyOfRange(args, 1, args.length)
            : args;
    return new CommandLine(new SimulateCommand()).execute(rest);
  }

  @Override
  public Integer call() throws IOException {
    PrintWriter stdout = spec.commandLine().getOut();
    if (list) {
      stdout.println("scenarios:");
      for (Scenario s : Scenarios.all()) {
        stdout.printf(Locale.ROOT, "  %-18s %3d min  %s%n", s.name(), s.minutes(), s.description());
      }
      stdout.println("strategies:");
      for (StrategyVariant s : StrategyVariant.all()) {
        stdout.println("  " + s.cliName());
      }
      stdout.flush();
      return 0;
    }
    List<Scenario> scenarios;
    List<StrategyVariant> chosen;
    try {
      scenarios = scenario.equals("all") ? Scenarios.all() : List.of(Scenarios.require(scenario));
      chosen =
          strategies.contains("all")
              ? StrategyVariant.all()
              : strategies.stream().map(StrategyVariant::parse).toList();
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    long started = System.nanoTime();
    Files.createDirectories(out);
    List<List<SimulationResult>> all = new ArrayList<>();
    for (Scenario s : scenarios) {
      List<SimulationResult> runs = new ArrayList<>();
      for (StrategyVariant strategy : chosen) {
        Simulation.Builder b = Simulation.builder().scenario(s).strategy(strategy).seed(seed);
        if (minutes != null) {
          b.minutes(minutes);
        }
        StringBuilder explained = new StringBuilder();
        if (explainQueued) {
          b.explainQueued(row -> explained.append(row).append('\n'));
        }
        runs.add(b.run());
        if (explainQueued) {
          Files.writeString(
              out.resolve("queued-below-95-" + s.name() + "-" + strategy.cliName() + ".csv"),
              explained.toString(),
              StandardCharsets.UTF_8);
        }
      }
      stdout.println(Report.text(runs));
      stdout.flush();
      if (!noCharts) {
        ScenarioCharts.write(runs, out);
      }
      Files.writeString(
          out.resolve("series-" + s.name() + ".csv"),
          Report.seriesCsv(runs),
          StandardCharsets.UTF_8);
      all.add(runs);
    }
    stdout.println(Report.waitErrorText(all));
    stdout.flush();
    Files.writeString(out.resolve("report.md"), markdownReport(all), StandardCharsets.UTF_8);
    StringBuilder csv = new StringBuilder(Report.csvHeader());
    all.forEach(runs -> runs.forEach(r -> csv.append(Report.csvLine(r))));
    Files.writeString(out.resolve("results.csv"), csv.toString(), StandardCharsets.UTF_8);
    // wall-clock time goes to stderr: stdout and the files stay identical from run to run
    spec.commandLine()
        .getErr()
        .printf(
            Locale.ROOT,
            "simulated %d run(s) in %.1f s; report in %s%n",
            all.stream().mapToInt(List::size).sum(),
            (System.nanoTime() - started) / 1e9,
            out.toAbsolutePath());
    spec.commandLine().getErr().flush();
    return 0;
  }

  private String markdownReport(List<List<SimulationResult>> all) {
    StringBuilder md = new StringBuilder();
    md.append("### Wait-estimate error per scenario\n\n")
        .append(
            "Median absolute error of the wait shown on a user's first queue page (users measured); "
                + "target ≤ 20 % in every scenario.\n\n")
        .append(Report.waitErrorMarkdown(all))
        .append('\n');
    for (List<SimulationResult> runs : all) {
      Scenario s = runs.get(0).scenario();
      md.append("### ")
          .append(s.name())
          .append("\n\n")
          .append(s.description())
          .append(String.format(Locale.ROOT, " (%d min, seed %d)%n%n", runs.get(0).minutes(), seed))
          .append(Report.markdown(runs))
          .append('\n');
      for (SimulationResult r : runs) {
        for (String miss : r.misses()) {
          md.append("- ")
              .append(r.strategy().cliName())
              .append(" missed: ")
              .append(miss)
              .append('\n');
        }
      }
      if (!noCharts) {
        md.append("\n![").append(s.name()).append("](img/sim-").append(s.name()).append(".png)\n");
      }
      md.append('\n');
    }
    return md.toString();
  }
}
