package io.anteroom.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A private network for partition tests, on this machine only: each host is a Linux network
 * namespace with one interface on a bridge (itself in a namespace of its own), addresses {@code
 * 10.231.0.1}, {@code .2}, ... in the order the hosts were added. A host's link can be cut and
 * restored ({@link #cut}, {@link #restore}: its port on the bridge goes down, so its packets and
 * the packets sent to it are dropped, as with a pulled cable; connections see no reset). Processes
 * start in a host with {@link #launcher} ({@link ChildProcess.Builder#launcher}). The machine's own
 * namespace gets no interface and no address: a test reaches a server inside a host through {@link
 * #expose}, and a host reaches a server of the test through {@link #reach} (relays over Unix-domain
 * sockets, {@link Relay}).
 *
 * <p>Needs root (or {@code CAP_SYS_ADMIN} and {@code CAP_NET_ADMIN}) and the {@code ip} command
 * ({@link #unavailable} says why not). The namespaces are named {@code anteroom-lab-<pid>-<n>-...}
 * after the test JVM; {@link #close} removes them and stops every process left in them, a shutdown
 * hook does so if the JVM exits first, and {@link #create} removes those of JVMs that are gone (a
 * run that was killed).
 *
 * <pre>{@code
 * try (NetworkLab lab = NetworkLab.create(logs)) {
 *   NetworkLab.Host a = lab.host("a");
 *   ChildProcess server = ChildProcess.java(Main.class.getName())
 *       .launcher(lab.launcher(a)).args("--listen", a.address() + ":7070").start();
 *   InetSocketAddress here = lab.expose(a, new InetSocketAddress(a.address(), 7070));
 *   lab.cut(a); // ... lab.restore(a);
 * }
 * }</pre>
 */
public final class NetworkLab implements AutoCloseable {
  private static final String PREFIX = "anteroom-lab-";
  private static final String SUBNET = "10.231.0.";
  private static final AtomicInteger LABS = new AtomicInteger();
  private static final Duration PATIENCE = Duration.ofSeconds(90);

  /** One host: its name in the lab, its namespace, its address on the bridge. */
  public record Host(String name, String namespace, String address) {}

  private final String id;
  private final String bridge;
  private final Path logs;
  private final Path sockets;
  private final Map<String, Host> hosts = new LinkedHashMap<>();
  private final Map<String, ChildProcess> relayProcesses = new LinkedHashMap<>();
  private final List<Relay> relays = new ArrayList<>();
  private final AtomicInteger socketFiles = new AtomicInteger();
  private final Thread shutdownHook;
  private boolean closed;

  private NetworkLab(Path logs) throws IOException {
    this.id = PREFIX + ProcessHandle.current().pid() + "-" + LABS.incrementAndGet();
    this.bridge = id + "-bridge";
    this.logs = logs;
    this.sockets = Files.createTempDirectory("anteroom-lab");
    this.shutdownHook = new Thread(this::removeNamespaces, id + "-cleanup");
  }

  /**
   * Why this machine cannot run a lab (not Linux, no {@code ip}, no right to create a namespace),
   * or empty when it can.
   */
  public static Optional<String> unavailable() {
    if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) {
      return Optional.of("network namespaces need Linux, this is " + System.getProperty("os.name"));
    }
    String probe = PREFIX + ProcessHandle.current().pid() + "-probe";
    try {
      run("ip", "netns", "add", probe);
      run("ip", "netns", "delete", probe);
      return Optional.empty();
    } catch (RuntimeException e) {
      return Optional.of("cannot create a network namespace (needs root and iproute2): " + e);
    }
  }

  /**
   * A new lab with only its bridge; the relays' output goes to {@code logs} (null: nowhere). First
   * removes the namespaces of labs whose JVM is gone.
   */
  public static NetworkLab create(Path logs) throws IOException {
    removeLeftovers();
    NetworkLab lab = new NetworkLab(logs);
    Runtime.getRuntime().addShutdownHook(lab.shutdownHook);
    try {
      run("ip", "netns", "add", lab.bridge);
      run("ip", "-n", lab.bridge, "link", "add", "br0", "type", "bridge");
      run("ip", "-n", lab.bridge, "link", "set", "br0", "up");
    } catch (RuntimeException e) {
      lab.close();
      throw e;
    }
    return lab;
  }

  /** Adds a host (a name of at most 12 letters or digits) with the next address. */
  public synchronized Host host(String name) {
    if (!name.matches("[a-z0-9]{1,12}")) {
      throw new IllegalArgumentException(
          "a host name of 1-12 lower-case letters or digits: " + name);
    }
    if (hosts.containsKey(name)) throw new IllegalArgumentException("host " + name + " exists");
    Host h = new Host(name, id + "-" + name, SUBNET + (hosts.size() + 1));
    run("ip", "netns", "add", h.namespace());
    hosts.put(name, h);
    run("ip", "-n", h.namespace(), "link", "set", "lo", "up");
    run(
        "ip",
        "link",
        "add",
        "eth0",
        "netns",
        h.namespace(),
        "type",
        "veth",
        "peer",
        "name",
        port(h),
        "netns",
        bridge);
    run("ip", "-n", h.namespace(), "addr", "add", h.address() + "/24", "dev", "eth0");
    run("ip", "-n", h.namespace(), "link", "set", "eth0", "up");
    run("ip", "-n", bridge, "link", "set", port(h), "master", "br0");
    run("ip", "-n", bridge, "link", "set", port(h), "up");
    return h;
  }

  /** The hosts added so far, in order. */
  public synchronized Collection<Host> hosts() {
    return List.copyOf(hosts.values());
  }

  /** {@code h}'s port on the bridge. */
  private static String port(Host h) {
    return "b-" + h.name();
  }

  /** Cuts {@code h}'s link: nothing reaches it or leaves it until {@link #restore}. */
  public void cut(Host h) {
    run("ip", "-n", bridge, "link", "set", port(h), "down");
  }

  /** Restores {@code h}'s link. */
  public void restore(Host h) {
    run("ip", "-n", bridge, "link", "set", port(h), "up");
  }

  /**
   * A MAC address no interface has: a host told that a peer is there sends its packets to nobody.
   */
  private static final String NOWHERE = "02:00:00:de:ad:00";

  /** The pairs of hosts {@link #partition} separated, for {@link #heal}. */
  private final java.util.Set<List<Host>> separated = new java.util.LinkedHashSet<>();

  /**
   * Partitions the network between two groups of hosts: no packet passes between a host of {@code
   * side} and a host of {@code other}, in either direction, silently (as with a firewall that
   * drops; connections see no reset), while each group keeps its own links and its links to the
   * hosts in neither group. Each host of a pair is told, by a permanent neighbour entry, that the
   * other's address is at a MAC address no interface has. Undone by {@link #heal}.
   */
  public void partition(Collection<Host> side, Collection<Host> other) {
    Map<Host, List<String>> commands = new LinkedHashMap<>();
    for (Host a : side) {
      for (Host b : other) {
        if (a.equals(b)) throw new IllegalArgumentException(a.name() + " is on both sides");
        commands.computeIfAbsent(a, h -> new ArrayList<>()).add(nowhere(b));
        commands.computeIfAbsent(b, h -> new ArrayList<>()).add(nowhere(a));
        synchronized (this) {
          separated.add(List.of(a, b));
        }
      }
    }
    batch(commands);
  }

  /** The neighbour entry that sends {@code to}'s packets nowhere. */
  private static String nowhere(Host to) {
    return "neigh replace " + to.address() + " lladdr " + NOWHERE + " nud permanent dev eth0";
  }

  /**
   * Runs each host's {@code ip} commands in one {@code ip -batch} process of its own, all hosts at
   * once: a partition takes effect within milliseconds, not one command after the other.
   */
  private static void batch(Map<Host, List<String>> commands) {
    List<Thread> threads = new ArrayList<>();
    List<RuntimeException> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    for (var e : commands.entrySet()) {
      threads.add(
          Thread.ofVirtual()
              .start(
                  () -> {
                    try {
                      runWithInput(
                          String.join("\n", e.getValue()) + "\n",
                          "ip",
                          "-n",
                          e.getKey().namespace(),
                          "-batch",
                          "-");
                    } catch (RuntimeException failure) {
                      failures.add(failure);
                    }
                  }));
    }
    for (Thread t : threads) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    if (!failures.isEmpty()) throw failures.get(0);
  }

  /** Undoes every {@link #partition}: the hosts learn each other's addresses again. */
  public void heal() {
    List<List<Host>> pairs;
    synchronized (this) {
      pairs = List.copyOf(separated);
      separated.clear();
    }
    Map<Host, List<String>> commands = new LinkedHashMap<>();
    for (List<Host> pair : pairs) {
      for (int i = 0; i < 2; i++) {
        commands
            .computeIfAbsent(pair.get(i), h -> new ArrayList<>())
            .add("neigh del " + pair.get(1 - i).address() + " dev eth0");
      }
    }
    batch(commands);
  }

  /**
   * Why {@code tc netem} (delay, loss) cannot be used here, with the probe's output, or empty when
   * it can: probes a veth pair in a namespace of its own. Kernels built without {@code
   * CONFIG_NET_SCH_NETEM} say so.
   */
  public static Optional<String> netemUnavailable() {
    String probe = PREFIX + ProcessHandle.current().pid() + "-netem";
    try {
      run("ip", "netns", "add", probe);
    } catch (RuntimeException e) {
      return Optional.of("cannot create a network namespace: " + e.getMessage());
    }
    try {
      run("ip", "-n", probe, "link", "add", "p0", "type", "veth", "peer", "name", "p1");
      run(
          "ip", "netns", "exec", probe, "tc", "qdisc", "add", "dev", "p0", "root", "netem", "delay",
          "10ms");
      return Optional.empty();
    } catch (RuntimeException e) {
      return Optional.of("tc netem is not available on this kernel: " + e.getMessage());
    } finally {
      remove(probe);
    }
  }

  /**
   * Adds {@code delay} (with 25 % jitter) and {@code lossPercent} packet loss to everything {@code
   * h} sends ({@code tc netem}; see {@link #netemUnavailable}); {@code null} removes it.
   */
  public void netem(Host h, Duration delay, double lossPercent) {
    String ns = h.namespace();
    if (delay == null) {
      run("ip", "netns", "exec", ns, "tc", "qdisc", "del", "dev", "eth0", "root");
      return;
    }
    long ms = delay.toMillis();
    run(
        "ip",
        "netns",
        "exec",
        ns,
        "tc",
        "qdisc",
        "replace",
        "dev",
        "eth0",
        "root",
        "netem",
        "delay",
        ms + "ms",
        Math.max(1, ms / 4) + "ms",
        "loss",
        lossPercent + "%");
  }

  /**
   * {@code h}'s TCP connections as {@code ss -tnoi} lists them (state, queues, retransmission
   * timers and back-off): what a cut did to them.
   */
  public String sockets(Host h) {
    return run("ip", "netns", "exec", h.namespace(), "ss", "-tnoi");
  }

  /** The command that starts a process in {@code h}'s namespace (it replaces itself: same pid). */
  public String[] launcher(Host h) {
    return new String[] {"ip", "netns", "exec", h.namespace()};
  }

  /**
   * An address on this machine's 127.0.0.1 whose connections are carried to {@code target} as seen
   * from inside {@code h} (e.g. a server on {@code h}'s loopback, or another host's address that
   * {@code h} reaches; cut links apply).
   */
  public InetSocketAddress expose(Host h, InetSocketAddress target) {
    Path socket = socketFile();
    String listen = Relay.describe(Relay.unix(socket));
    relayIn(h, listen, Relay.describe(target));
    Relay here = Relay.start(new InetSocketAddress("127.0.0.1", 0), Relay.unix(socket));
    synchronized (this) {
      relays.add(here);
    }
    return new InetSocketAddress("127.0.0.1", here.port());
  }

  /**
   * Makes {@code 127.0.0.1:portInHost} inside {@code h} carry its connections to {@code target} in
   * this JVM's namespace (e.g. an origin server of the test).
   */
  public void reach(Host h, int portInHost, InetSocketAddress target) {
    Path socket = socketFile();
    Relay here = Relay.start(Relay.unix(socket), target);
    synchronized (this) {
      relays.add(here);
    }
    relayIn(h, "tcp:127.0.0.1:" + portInHost, Relay.describe(Relay.unix(socket)));
  }

  private Path socketFile() {
    return sockets.resolve(socketFiles.incrementAndGet() + ".sock");
  }

  /** Asks the relay process in {@code h} (started on first use) to forward; waits for it. */
  private void relayIn(Host h, String listen, String target) {
    ChildProcess relay;
    synchronized (this) {
      relay =
          relayProcesses.computeIfAbsent(
              h.name(),
              n -> {
                ChildProcess.Builder b =
                    ChildProcess.java(Relay.class.getName())
                        .name("relay-" + n)
                        .launcher(launcher(h))
                        .jvmArgs("-XX:+UseSerialGC", "-Xmx64m", "-XX:TieredStopAtLevel=1");
                if (logs != null) b.log(logs.resolve("relay-" + n + ".log"));
                ChildProcess p = b.start();
                p.awaitLine(l -> l.equals("relay ready"), PATIENCE);
                return p;
              });
    }
    relay.sendLine("forward " + listen + " " + target);
    String answer =
        relay.awaitLine(
            l ->
                l.equals("forwarding " + listen + " " + target) || l.startsWith("relay: " + listen),
            PATIENCE);
    if (answer.startsWith("relay: ")) throw new IllegalStateException(answer);
  }

  /** Stops the relays and every process left in the lab's namespaces, and removes them. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) return;
      closed = true;
    }
    relays.forEach(Relay::close);
    relayProcesses.values().forEach(ChildProcess::close);
    removeNamespaces();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException e) {
      // the JVM is shutting down: the hook runs (and finds nothing left)
    }
    try (Stream<Path> files = Files.walk(sockets)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
    } catch (IOException e) {
      // a temporary directory, left behind
    }
  }

  private void removeNamespaces() {
    List<String> names = new ArrayList<>();
    synchronized (this) {
      hosts.values().forEach(h -> names.add(h.namespace()));
    }
    names.add(bridge);
    for (String ns : names) remove(ns);
  }

  /**
   * Removes the namespaces of labs whose JVM has exited (a killed run), after stopping the
   * processes that run in them.
   */
  public static void removeLeftovers() {
    for (String ns : namespaces()) {
      if (!ns.startsWith(PREFIX)) continue;
      String rest = ns.substring(PREFIX.length());
      int dash = rest.indexOf('-');
      long pid;
      try {
        pid = Long.parseLong(dash < 0 ? rest : rest.substring(0, dash));
      } catch (NumberFormatException e) {
        continue;
      }
      if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) continue;
      System.out.println("NetworkLab: removing " + ns + ", left by process " + pid);
      remove(ns);
    }
  }

  private static List<String> namespaces() {
    List<String> out = new ArrayList<>();
    for (String line : run("ip", "netns", "list").split("\n")) {
      if (!line.isBlank()) out.add(line.trim().split("\\s+")[0]);
    }
    return out;
  }

  /** Stops the processes in {@code ns} (by their pids) and deletes it; ignores a missing one. */
  private static void remove(String ns) {
    if (!namespaces().contains(ns)) return;
    try {
      for (String pid : run("ip", "netns", "pids", ns).split("\\s+")) {
        if (pid.isBlank()) continue;
        ProcessHandle.of(Long.parseLong(pid))
            .ifPresent(
                p -> {
                  p.destroyForcibly();
                  p.onExit().orTimeout(30, TimeUnit.SECONDS).exceptionally(e -> p).join();
                });
      }
    } catch (RuntimeException e) {
      System.out.println("NetworkLab: listing the processes of " + ns + ": " + e.getMessage());
    }
    try {
      run("ip", "netns", "delete", ns);
    } catch (RuntimeException e) {
      System.out.println("NetworkLab: " + e.getMessage());
    }
  }

  /** Runs a command to its end; its output, or an exception naming it and its output. */
  static String run(String... command) {
    return runWithInput(null, command);
  }

  /** {@link #run} with {@code input} (null: none) on the command's standard input. */
  static String runWithInput(String input, String... command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      try (var in = p.getOutputStream()) {
        if (input != null) in.write(input.getBytes(StandardCharsets.UTF_8));
      }
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException(String.join(" ", command) + ": no end after 60 s");
      }
      if (p.exitValue() != 0) {
        throw new IllegalStateException(
            String.join(" ", command) + " failed (" + p.exitValue() + "): " + out.strip());
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + String.join(" ", command) + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running " + String.join(" ", command), e);
    }
  }
}
