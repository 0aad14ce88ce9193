package io.anteroom.gateway;

import com.codahale.metrics.MetricRegistry;
import io.anteroom.cli.AnteroomSubcommand;
import io.anteroom.cli.UntilShutdown;
import io.anteroom.door.admission.Coordination;
import io.anteroom.door.config.ConfigLoader;
import io.anteroom.door.config.GatewayConfig;
import io.anteroom.door.config.GatewayConfig.RoomSettings;
import io.anteroom.door.config.HostPorts;
import io.anteroom.door.queue.MonitoredQueuePacing;
import io.anteroom.door.ticket.TicketKeys;
import io.anteroom.gateway.admin.AdminToken;
import io.anteroom.gateway.demo.DemoCrowd;
import io.anteroom.gateway.demo.DemoOrigin;
import io.anteroom.host.CoordinatorLink;
import io.anteroom.host.RoomHost;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The {@code anteroom} command line.
 *
 * <pre>
 * anteroom run [--config anteroom.yaml] [--origin URL]     gateway + coordination in one process
 * anteroom demo                                            run + demo origin + low limits
 * anteroom coordinator [--listen 127.0.0.1:7070]           the coordinating objects, over HTTP (*)
 * anteroom coordinator --cluster FILE --id ID             one peer of a replicated coordinator (*)
 * anteroom coordinator --cluster FILE --id ID --join      a new peer, waiting to be added (*)
 * anteroom gateway --coordinator URL[,URL...] --datacenter NAME   a stateless edge node
 * anteroom cluster members|add|remove|replace --cluster FILE   a cluster's membership (*)
 * anteroom check [--config anteroom.yaml]                 validate the configuration and exit
 * anteroom pass-keys create|list|rotate|retire KID [--data-dir DIR]   the pass keys
 * anteroom invite --config FILE --room ID --count N       signed invitations, as CSV
 * anteroom verify-draw --secret HEX --commitment HEX --receipts FILE   audit a room's draw
 * anteroom simulate ...                                    the traffic simulator (*)
 * anteroom help COMMAND                                    a command's options
 * </pre>
 *
 * <p>(*) Commands of other modules (module coordinator-server's {@code coordinator} and {@code
 * cluster}, the simulator's {@code simulate}) are found with {@link java.util.ServiceLoader} as
 * {@link AnteroomSubcommand}s, so the help lists every command the class path holds ({@link
 * #HELP_ORDER}).
 */
@Command(
    name = "anteroom",
    mixinStandardHelpOptions = true,
    version = "anteroom 0.1.0",
    description = "Anteroom: a self-hosted virtual waiting room in front of your site.",
    footer = {"", "Configuration keys, defaults and the admin API: docs/gateway.md"})
public final class Main implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    CommandLine cl = commandLine(args);
    StartupCache.report(); // set by bin/anteroom for the long-running commands only
    System.exit(cl.execute(args));
  }

  /** Netty's switch for its buffer allocator's JFR events (read once, when Netty starts). */
  static final String NETTY_JFR = "io.netty.jfr.enabled";

  /**
   * System properties the commands default, unless the operator set them (for example in {@code
   * ANTEROOM_JAVA_OPTS}); {@link #commandLine} calls it before any command loads Netty. {@value
   * #NETTY_JFR} is false: with it on, the first buffer Netty allocates registers its JFR event
   * classes, whose annotations cost 16 generated proxy classes the AOT cache cannot hold, about 60
   * ms before a started process answers its first request (a bare Vert.x server: 54-98 ms from
   * connect to answer, 16-38 ms without; docs/benchmarks.md, restart). Those events are off in
   * JFR's own settings unless enabled by name; {@code -Dio.netty.jfr.enabled=true} brings them
   * back.
   */
  static void defaultSystemProperties(java.util.Properties properties) {
    properties.putIfAbsent(NETTY_JFR, "false");
  }

  /** The built-in commands by name (as their {@code @Command} says), in the help's order. */
  static final Map<String, Supplier<Object>> COMMANDS = new LinkedHashMap<>();

  static {
    COMMANDS.put("run", Run::new);
    COMMANDS.put("demo", Demo::new);
    COMMANDS.put("gateway", Edge::new);
    COMMANDS.put("check", Check::new);
    COMMANDS.put("pass-keys", PassKeysCommand::new);
    COMMANDS.put("invite", InviteCommand::new);
    COMMANDS.put("verify-draw", VerifyDrawCommand::new);
    COMMANDS.put("rooms", RoomsCommand::new);
  }

  /**
   * The command line that runs {@code args}. picocli builds the model of every command it is given
   * (from the annotations, by reflection) before it parses anything, which is a large part of a
   * restarted coordinator's start-up (docs/benchmarks.md): when {@code args} name a built-in
   * command, only that command's model is built, since no other can run. Anything else (no command,
   * {@code --help}, {@code help}, a command of another module, a mistyped name) gets every command,
   * so the help and picocli's suggestions stay complete.
   */
  static CommandLine commandLine(String... args) {
    defaultSystemProperties(System.getProperties()); // first: before any command loads Netty
    var cl = new CommandLine(new Main());
    Supplier<Object> invoked = args.length > 0 ? COMMANDS.get(args[0]) : null;
    if (invoked == null && args.length > 0) {
      invoked = contributed().get(args[0]);
    }
    if (invoked != null) {
      cl.addSubcommand(invoked.get());
    } else {
      var all = new LinkedHashMap<String, Supplier<Object>>();
      var contributed = contributed();
      for (String name : HELP_ORDER) {
        Supplier<Object> command =
            COMMANDS.containsKey(name) ? COMMANDS.get(name) : contributed.remove(name);
        if (command != null) all.put(name, command);
      }
      all.putAll(contributed);
      all.values().forEach(command -> cl.addSubcommand(command.get()));
      cl.addSubcommand(new CommandLine.HelpCommand());
    }
    cl.setExecutionExceptionHandler(
        (e, commandLine, parsed) -> {
          commandLine.getErr().println("anteroom: " + e.getMessage());
          return 2;
        });
    return cl;
  }

  /**
   * The order of the help's commands: the built-in ones and, where they belong among them, those of
   * other modules ({@code coordinator} and {@code cluster}: module coordinator-server); any other
   * contributed command ({@code simulate}) follows, then {@code help}.
   */
  static final List<String> HELP_ORDER =
      List.of(
          "run",
          "demo",
          "coordinator",
          "cluster",
          "gateway",
          "check",
          "pass-keys",
          "invite",
          "verify-draw",
          "rooms");

  /**
   * The commands other modules contribute ({@link AnteroomSubcommand}s on the class path) by name,
   * in the order they are found; a command's class is loaded to read its name, but not made until
   * it is added.
   */
  static Map<String, Supplier<Object>> contributed() {
    var found = new LinkedHashMap<String, Supplier<Object>>();
    java.util.ServiceLoader.load(AnteroomSubcommand.class).stream()
        .forEach(
            provider -> {
              Command command = provider.type().getAnnotation(Command.class);
              if (command == null) {
                throw new IllegalStateException(
                    provider.type().getName() + " is an AnteroomSubcommand without @Command");
              }
              found.putIfAbsent(command.name(), provider::get);
            });
    return found;
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** Options shared by the commands that run a gateway. */
  static class GatewayOptions {
    @Option(
        names = "--config",
        paramLabel = "FILE",
        description = "YAML configuration (default: ./anteroom.yaml when it exists)")
    Path config;

    @Option(
        names = "--origin",
        paramLabel = "URL",
        description = "the site to protect; without --config, one room protects all of it")
    URI origin;

    @Option(names = "--listen", paramLabel = "HOST:PORT", description = "overrides 'listen'")
    String listen;

    @Option(
        names = "--admin-listen",
        paramLabel = "HOST:PORT",
        description = "overrides 'admin.listen'")
    String adminListen;

    @Option(names = "--data-dir", paramLabel = "DIR", description = "overrides 'dataDir'")
    Path dataDir;

    GatewayConfig load() {
      GatewayConfig c;
      Path file = config != null ? config : Path.of("anteroom.yaml");
      if (config != null || Files.exists(file)) {
        c = ConfigLoader.load(file);
        if (origin != null) {
          // the file's rooms stay; only the default origin changes
          c = c.withOrigin(origin);
        }
      } else if (origin != null) {
        c = ConfigLoader.forOrigin(origin);
      } else {
        throw new IllegalArgumentException(
            "give --origin URL (protect a site with the default"
                + " room) or --config FILE; see anteroom run --help");
      }
      return overrides(c);
    }

    GatewayConfig overrides(GatewayConfig c) {
      if (listen != null || adminListen != null) {
        c =
            c.withListen(
                listen != null ? HostPorts.parse("--listen", listen) : c.listen(),
                adminListen != null
                    ? HostPorts.parse("--admin-listen", adminListen)
                    : c.admin().listen());
      }
      return dataDir != null ? c.withDataDir(dataDir) : c;
    }
  }

  @Command(
      name = "run",
      mixinStandardHelpOptions = true,
      description = "Run the gateway and the coordination of its rooms in one process.")
  static class Run implements Callable<Integer> {
    @CommandLine.Mixin GatewayOptionsMixin options;

    @Override
    public Integer call() {
      GatewayConfig config = options.load();
      return serve(config, embedded(config), "local", List.of(), null);
    }
  }

  @Command(
      name = "check",
      mixinStandardHelpOptions = true,
      description =
          "Validate the configuration (as run and gateway would read it) and exit: 0 and a"
              + " summary when it is good, 2 and every problem when not. Starts nothing.")
  static class Check implements Callable<Integer> {
    @CommandLine.Mixin GatewayOptionsMixin options;

    @Option(
        names = "--as",
        paramLabel = "COMMAND",
        defaultValue = "run",
        description =
            "the command that will read the configuration: run (the default; it creates"
                + " dataDir/ticket-keys at its first start) or gateway (which needs the"
                + " deployment's ticket keys already there, and refuses to start without them)")
    String as;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      if (!as.equals("run") && !as.equals("gateway")) {
        throw new IllegalArgumentException(
            "--as " + as + ": check for run or gateway (the commands that read a config file)");
      }
      GatewayConfig config = options.load();
      // a transport the machine cannot give is refused here as at the start (exit code 2)
      var transport = Gateway.resolvedTransport(config.publicListener().transport());
      String keys = ticketKeys(config, as.equals("gateway"));
      var out = spec.commandLine().getOut();
      out.println(
          "configuration OK: listen "
              + config.listen().host()
              + ":"
              + config.listen().port()
              + ", admin "
              + config.admin().listen().host()
              + ":"
              + config.admin().listen().port()
              + ", "
              + config.rooms().size()
              + (config.rooms().size() == 1 ? " room" : " rooms")
              + (config.rooms().isEmpty()
                  ? ""
                  : " ("
                      + String.join(", ", config.rooms().stream().map(RoomSettings::id).toList())
                      + ")")
              + "; ticket keys: "
              + keys
              + "; event loops on "
              + transport.configName());
      out.flush();
      return 0;
    }

    /**
     * Where the command's ticket keys would come from, as the summary says it; a problem (exit 2)
     * when the command would refuse to start for them: a key file that cannot be read, or, for a
     * gateway, none at all (it never generates keys: {@link TicketKeys#requireShared}).
     */
    static String ticketKeys(GatewayConfig config, boolean gateway) {
      if (!config.ticketKeys().isEmpty()) {
        return config.ticketKeys().size() + " configured";
      }
      Path file = config.dataDir().resolve(TicketKeys.FILE);
      if (Files.exists(file)) {
        int n = TicketKeys.check(file).size(); // a bad file stops the start: the same message here
        return n + " in " + file;
      }
      if (gateway) {
        TicketKeys.requireShared(config.ticketKeys(), config.dataDir());
      }
      return file + " does not exist yet; run creates it at its first start";
    }
  }

  /** picocli mixin wrapper of {@link GatewayOptions}. */
  static class GatewayOptionsMixin extends GatewayOptions {}

  @Command(
      name = "demo",
      mixinStandardHelpOptions = true,
      description =
          "Run a gateway in front of a built-in demo site with low limits, plus a few"
              + " synthetic visitors, so you see the queue in your browser at once.")
  static class Demo implements Callable<Integer> {
    @Option(
        names = "--listen",
        defaultValue = "127.0.0.1:8080",
        paramLabel = "HOST:PORT",
        description = "public listener of the demo room (default: ${DEFAULT-VALUE})")
    String listen;

    @Option(
        names = "--data-dir",
        defaultValue = "./data",
        paramLabel = "DIR",
        description =
            "objects database, ticket keys and admin token of the demo (default: ${DEFAULT-VALUE})")
    Path dataDir;

    @Override
    public Integer call() {
      var demoOrigin = new DemoOrigin("127.0.0.1", 8081);
      GatewayConfig config =
          ConfigLoader.parse(
              """
          listen: %s
          origin: http://127.0.0.1:%d
          dataDir: %s
          rooms:
            - id: demo
              totalActiveUsers: 3
              newUsersPerMinute: 3
              sessionDurationMinutes: 1
              queueRefreshSeconds: 5
          """
                  .formatted(listen, demoOrigin.port(), dataDir),
              "demo settings");
      String url = "http://" + listen;
      var closeables = new ArrayList<AutoCloseable>();
      closeables.add(demoOrigin);
      return serve(
          config,
          embedded(config),
          "local",
          closeables,
          gw -> {
            closeables.add(
                new DemoCrowd(
                    "http://127.0.0.1:" + gw.port(),
                    3,
                    Duration.ofSeconds(40),
                    Duration.ofSeconds(10)));
            System.out.printf(
                """

            Anteroom demo is running.
              Open %s in your browser: 3 synthetic visitors have just filled the room
              (3 users at most, 3 new per minute, 1-minute sessions), so you get the queue
              page. They leave after 40 s; you are let in a minute or two later.
              The site itself (without the waiting room): http://127.0.0.1:%d
              Status page: http://%s/  (admin token in %s)
              JSON:  curl -H 'Accept: application/json' %s/
            Ctrl-C stops it.
            """,
                url,
                demoOrigin.port(),
                config.admin().listen(),
                config.dataDir().resolve(AdminToken.FILE),
                url);
          });
    }
  }

  @Command(
      name = "gateway",
      mixinStandardHelpOptions = true,
      description = "Run a stateless gateway that shares its rooms' counts through a coordinator.")
  static class Edge implements Callable<Integer> {
    @CommandLine.Mixin GatewayOptionsMixin options;

    @Option(
        names = "--coordinator",
        required = true,
        split = ",",
        paramLabel = "URL",
        description =
            "the coordinator, e.g. http://10.0.0.2:7070; for a replicated coordinator every"
                + " peer's URL (comma-separated or the option repeated): calls then follow the"
                + " shard's leader")
    List<URI> coordinators;

    @Option(
        names = "--datacenter",
        required = true,
        paramLabel = "NAME",
        description = "this gateway's data center (gateways of one data center share counters)")
    String dataCenter;

    @Option(
        names = "--coordinator-secret-file",
        paramLabel = "FILE",
        description =
            "the deployment's shared secret (keyId:base64; the first line signs);"
                + " default: $"
                + SECRET_ENV
                + ". Required unless the coordinator is on this host")
    Path secretFile;

    @Option(
        names = "--coordinator-trust",
        paramLabel = "PEM",
        description =
            "trust an https:// coordinator whose certificate chains to this PEM"
                + " certificate (its own, or a private CA); default: the JVM's trust store")
    List<Path> trust = new ArrayList<>();

    @Override
    public Integer call() {
      GatewayConfig config = options.load();
      var link =
          new CoordinatorLink(
              coordinators, dataCenter, secretFile, trust, CoordinatorLink.Names.CLI);
      Coordination coordination = link.connect(config, System.getenv(SECRET_ENV));
      String unreachable;
      try {
        unreachable = link.probe(coordination, config);
      } catch (IllegalArgumentException e) {
        coordination.close();
        throw e;
      }
      if (unreachable != null) {
        System.err.println("anteroom gateway: " + unreachable);
      }
      return serve(config, coordination, dataCenter, List.of(), null);
    }
  }

  /** The environment variable holding the shared secret when no file is given. */
  static final String SECRET_ENV = CoordinatorLink.SECRET_ENV;

  /** Gateway and room objects in one process: SQLite in {@code dataDir} ({@link RoomHost}). */
  static Coordination embedded(GatewayConfig config) {
    return RoomHost.embedded(config);
  }

  /**
   * A started gateway of {@code config}'s rooms on {@code coordination}: what {@link #serve} runs.
   */
  static Gateway startGateway(GatewayConfig config, Coordination coordination, String dataCenter) {
    Clock clock = Clock.systemUTC();
    var metrics = new MetricRegistry();
    coordination.objectMetrics().ifPresent(metrics::registerAll); // the embedded objects runtime's
    return Gateway.start(
        config,
        RoomHost.gates(config, coordination, dataCenter, clock),
        clock,
        s -> new MonitoredQueuePacing(s, clock),
        metrics);
  }

  /**
   * Runs a gateway until the process is asked to stop ({@link UntilShutdown}), then drains it and
   * closes its coordination and {@code extras}.
   */
  static int serve(
      GatewayConfig config,
      Coordination coordination,
      String dataCenter,
      List<AutoCloseable> extras,
      java.util.function.Consumer<Gateway> started) {
    Gateway gw = startGateway(config, coordination, dataCenter);
    var out = new PrintWriter(System.out, true);
    out.printf(
        "anteroom gateway on http://%s:%d (admin http://%s:%d), %d room(s), origin %s%n",
        config.listen().host(),
        gw.port(),
        config.admin().listen().host(),
        gw.adminPort(),
        config.rooms().size(),
        config.origin());
    if (started != null) {
      started.accept(gw);
    }
    var toClose = new ArrayList<AutoCloseable>();
    toClose.add(gw); // first: it drains while its coordination still answers
    toClose.add(coordination);
    toClose.addAll(extras);
    return new UntilShutdown().run(toClose);
  }
}
