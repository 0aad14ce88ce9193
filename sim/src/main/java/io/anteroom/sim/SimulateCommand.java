package io.anteroom.sim;

import io.anteroom.cli.AnteroomSubcommand;
import io.anteroom.door.config.ConfigLoader;
import io.anteroom.door.config.GatewayConfig;
import io.anteroom.door.config.GatewayConfig.RoomSettings;
import io.anteroom.door.config.QueueingMethod;
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
 * {@code anteroom simulate}: replays the built-in scenarios, or the operator's own room from its
 * configuration file under an arrival profile, against the slot strategies and writes a report
 * (Markdown, CSV, PNG charts).
 *
 * <pre>
 * ./anteroom simulate --scenario steady --strategy counters --seed 7 --out target/sim
 * ./anteroom simulate --scenario all --out docs      # every scenario, every strategy; docs/img/sim-*.png
 * ./anteroom simulate --config anteroom.yaml --room sale --arrivals "0-10m:50/min,10-12m:5000/min"
 * ./anteroom simulate --list
 * </pre>
 */
@Command(
    name = "simulate",
    mixinStandardHelpOptions = true,
    version = "anteroom 0.1.0",
    description = {
      "Replays traffic against the waiting room's real decision code in virtual time and writes a"
          + " report with charts: the built-in scenarios (--scenario), or a room of your"
          + " configuration under your own arrivals (--config FILE --arrivals PROFILE).",
      "PROFILE: comma-separated FROM-TOm:USERS/min segments (or FROM-TOm:A..B/min for a ramp),"
          + " e.g. 0-10m:50/min,10-12m:5000/min,12-60m:300/min; or a FILE.csv of minute,users"
          + " lines, one per minute from 0."
    })
public final class SimulateCommand implements Callable<Integer>, AnteroomSubcommand {

  @Option(
      names = "--scenario",
      paramLabel = "NAME",
      description = "a built-in scenario, or 'all' (default: all); see --list")
  String scenario;

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description =
          "simulate a room of this configuration (read as run reads it): its T, N, S, R, queue"
              + " timeout, strategy and curve factor; needs --arrivals")
  Path config;

  @Option(
      names = "--room",
      paramLabel = "ID",
      description = "the room of --config to simulate (default: its only room)")
  String room;

  @Option(
      names = "--arrivals",
      paramLabel = "PROFILE",
      description =
          "new users per minute over the run, with --config: e.g. 0-10m:50/min,10-12m:5000/min"
              + " or arrivals.csv (see above); the run lasts until the profile ends")
  String arrivals;

  @Option(
      names = "--topology",
      paramLabel = "NAME",
      defaultValue = "single-node",
      description =
          "with --config: single-node (anteroom run: one process, 2 workers reporting every"
              + " second) or three-datacenters (gateways in 3 data centers, 4 workers each,"
              + " reports every 5 s, 100 ms apart) (default: ${DEFAULT-VALUE})")
  String topology;

  @Option(
      names = "--pages",
      paramLabel = "N",
      description =
          "with --config: mean pages an admitted user views (default: 5); with the think time"
              + " this sets how long a user holds a slot")
  Double pages;

  @Option(
      names = "--think-seconds",
      paramLabel = "S",
      description = "with --config: mean seconds between two pages (default: 30)")
  Double thinkSeconds;

  @Option(
      names = "--patience-minutes",
      paramLabel = "M",
      description =
          "with --config: mean minutes a queued user waits before giving up (default: 10)")
  Double patienceMinutes;

  @Option(
      names = "--strategy",
      paramLabel = "NAME",
      split = ",",
      description =
          "strategies, comma-separated, or 'all' (default: all; with --config the room's own)"
              + " as in the configuration: counters, evenSplit, utilizationScaled, each also"
              + " NAME-published; see --list")
  List<String> strategies;

  @Option(
      names = "--seed",
      defaultValue = "1",
      description = "seed of the random traffic (default: ${DEFAULT-VALUE})")
  long seed;

  @Option(
      names = "--minutes",
      description =
          "simulated minutes (default: each scenario's own length; with --config, the end of"
              + " --arrivals; beyond it the last rate continues)")
  Integer minutes;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description =
          "directory for report.md, results.csv, per-minute series-*.csv and the charts"
              + " img/sim-*.png that report.md shows (default: a new directory"
              + " anteroom-simulation-* in the system's temporary directory, named on stderr)")
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
      if (config != null || arrivals != null) {
        Scenario own = ownRoom();
        scenarios = List.of(own);
        chosen =
            strategies == null
                ? List.of(
                    StrategyVariant.spec(
                        requireRoom(ConfigLoader.load(config)).limits().strategy()))
                : strategies(strategies);
      } else {
        for (String withConfig :
            new String[] {"--room", "--pages", "--think-seconds", "--patience-minutes"}) {
          if (spec.commandLine().getParseResult().hasMatchedOption(withConfig)) {
            throw new IllegalArgumentException(
                withConfig + " only applies to a room of --config FILE with --arrivals PROFILE");
          }
        }
        String name = scenario == null ? "all" : scenario;
        scenarios = name.equals("all") ? Scenarios.all() : List.of(Scenarios.require(name));
        chosen = strategies(strategies == null ? List.of("all") : strategies);
      }
    } catch (IllegalArgumentException e) {
      // a bad value or configuration: the message names it; the whole usage would bury it
      spec.commandLine().getErr().println("anteroom simulate: " + e.getMessage());
      spec.commandLine().getErr().println("see: anteroom simulate --help");
      spec.commandLine().getErr().flush();
      return 2;
    }
    long started = System.nanoTime();
    Path out = this.out != null ? this.out : defaultOut();
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
        Path chart = out.resolve(chartLink(s));
        Files.createDirectories(chart.getParent());
        ScenarioCharts.write(runs, chart);
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

  /**
   * The chart of a scenario, relative to {@code --out}: where it is written and what report.md
   * links (so {@code --out docs} puts them where docs/simulation.md shows them, docs/img).
   */
  static String chartLink(Scenario s) {
    return "img/sim-" + s.name() + ".png";
  }

  /**
   * Without {@code --out}: a new directory {@code anteroom-simulation-*} in {@code java.io.tmpdir}
   * (read at each run), never the working directory, and never one an earlier run wrote.
   */
  private static Path defaultOut() throws IOException {
    return Files.createTempDirectory(
        Path.of(System.getProperty("java.io.tmpdir")), "anteroom-simulation-");
  }

  private static List<StrategyVariant> strategies(List<String> names) {
    return names.contains("all")
        ? StrategyVariant.all()
        : names.stream().map(StrategyVariant::parse).toList();
  }

  /** The scenario of {@code --config --room --arrivals}: the operator's room under its traffic. */
  private Scenario ownRoom() {
    if (scenario != null) {
      throw new IllegalArgumentException(
          "--scenario NAME runs a built-in scenario; --config FILE --arrivals PROFILE runs your"
              + " room: give one or the other");
    }
    if (config == null) {
      throw new IllegalArgumentException(
          "--arrivals needs --config FILE: the room to simulate comes from the configuration");
    }
    if (arrivals == null) {
      throw new IllegalArgumentException(
          "--config needs --arrivals PROFILE, e.g. --arrivals \"0-10m:50/min,10-12m:5000/min\"");
    }
    GatewayConfig loaded = ConfigLoader.load(config);
    RoomSettings r = requireRoom(loaded);
    ArrivalProfile profile = ArrivalProfile.parse(arrivals);
    if (r.limits().queueingMethod() != QueueingMethod.FIFO
        || r.switches().suspended()
        || r.switches().queueAll()) {
      spec.commandLine()
          .getErr()
          .println(
              "note: room "
                  + r.id()
                  + " is "
                  + (r.switches().suspended()
                      ? "suspended"
                      : r.switches().queueAll()
                          ? "set to queueAll"
                          : "queueingMethod " + r.limits().queueingMethod())
                  + " in "
                  + config
                  + "; the simulation shows it as an active fifo room");
    }
    Scenario.Behaviour d = Scenario.Behaviour.DEFAULT;
    Scenario.Behaviour behaviour =
        new Scenario.Behaviour(
            pages == null ? d.meanPages() : pages,
            thinkSeconds == null ? d.meanThinkSeconds() : thinkSeconds,
            patienceMinutes == null ? d.meanPatienceMinutes() : patienceMinutes,
            d.refreshJitterMillis());
    Scenario.Limits limits =
        new Scenario.Limits(
            r.limits().totalActiveUsers(),
            r.limits().newUsersPerMinute(),
            r.limits().sessionDurationMinutes(),
            r.limits().queueRefreshSeconds(),
            r.limits().queueTimeoutMinutes(),
            r.limits().curveFactor());
    String name = "room-" + r.id().toLowerCase(Locale.ROOT).replace('_', '-');
    String description =
        String.format(
            Locale.ROOT,
            "room %s of %s (T=%d, N=%d/min, S=%d min, R=%d s, strategy %s, %s), arrivals %s"
                + " (about %.0f users)",
            r.id(),
            config.getFileName(),
            r.limits().totalActiveUsers(),
            r.limits().newUsersPerMinute(),
            r.limits().sessionDurationMinutes(),
            r.limits().queueRefreshSeconds(),
            r.limits().strategy().configName(),
            topology,
            arrivals,
            profile.expectedUsers());
    return new Scenario(
        name,
        description,
        limits,
        topology(topology),
        profile.profile(),
        behaviour,
        minutes != null ? minutes : profile.minutes(),
        false);
  }

  private RoomSettings requireRoom(GatewayConfig loaded) {
    List<RoomSettings> rooms = loaded.rooms();
    if (rooms.isEmpty()) {
      throw new IllegalArgumentException(config + " has no rooms: nothing to simulate");
    }
    List<String> ids = rooms.stream().map(RoomSettings::id).toList();
    if (room == null) {
      if (rooms.size() > 1) {
        throw new IllegalArgumentException(
            config + " has " + rooms.size() + " rooms; choose one with --room ID: " + ids);
      }
      return rooms.get(0);
    }
    return rooms.stream()
        .filter(x -> x.id().equals(room))
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "--room: " + config + " has no room \"" + room + "\"; its rooms: " + ids));
  }

  static Scenario.Topology topology(String name) {
    return switch (name) {
      case "single-node" -> Scenario.Topology.singleNode();
      case "three-datacenters" -> Scenario.Topology.threeDataCenters();
      default ->
          throw new IllegalArgumentException(
              "--topology: \""
                  + name
                  + "\" is not a topology; allowed: single-node, three-datacenters");
    };
  }

  private String markdownReport(List<List<SimulationResult>> all) {
    StringBuilder md = new StringBuilder();
    md.append("### Wait-estimate error per scenario\n\n")
        .append(
            "Median absolute error of the wait shown on a user's first queue page (users measured); "
                + "target ≤ 20 % in every scenario.\n\n")
        .append(Report.waitErrorMarkdown(all))
        .append('\n')
        .append("### Place-in-line error per scenario\n\n")
        .append(
            "Error |shown − true| / true of the place in line shown as one number (\"about N people"
                + " ahead\") on a user's first queue page: median / 90th percentile; the share of"
                + " measured users shown one number (the others see a range), and how many of the"
                + " ranges held the true place. Target: median ≤ 20 %.\n\n")
        .append(Report.placeErrorMarkdown(all))
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
        md.append("\n![").append(s.name()).append("](").append(chartLink(s)).append(")\n");
      }
      md.append('\n');
    }
    return md.toString();
  }
}
