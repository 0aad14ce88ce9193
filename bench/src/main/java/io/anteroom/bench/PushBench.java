package io.anteroom.bench;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The queue page's push against its refresh, on a running gateway ({@code bench/push/run.sh} starts
 * one). JDK only; runs as a single source file.
 *
 * <pre>
 * java PushBench.java origin PORT                      # the origin: "origin:PATH"; /logout revokes
 * java PushBench.java latency GATEWAY_URL SAMPLES push|refresh
 * java PushBench.java hold GATEWAY_HOST:PORT CONNECTIONS GATEWAY_PID
 * </pre>
 *
 * <p>{@code latency}: the room is filled with admitted users and one waiting user, whose page is
 * imitated: it refreshes (a JSON poll) every {@code refreshIntervalSeconds} the gateway announces
 * and, with {@code push}, also holds push polls and reloads when told. At a random phase of its
 * refresh, one admitted user logs out (the origin answers {@code Anteroom-Command: revoke}): the
 * slot is free when that answer arrives. A sample is the time from there to the waiting user's
 * first request that reaches the origin. The user who logged out comes back as the next waiting
 * user. Prints every sample, then the median and the 95th percentile.
 *
 * <p>{@code hold}: makes one waiting user, then opens {@code CONNECTIONS} connections that each
 * send its push poll (with a state newer than any, so none is woken) from 127.0.0.2, .3, ...
 * (25,000 per source address: the ephemeral ports of one address run out near 28,000), and measures
 * the gateway's heap after a full GC ({@code jcmd GC.run}, {@code GC.heap_info}) and its resident
 * memory ({@code /proc/PID/status}) before and while they are held.
 */
public final class PushBench {
  private PushBench() {}

  private static final HttpClient CLIENT =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(10))
          .build();

  public static void main(String[] args) throws Exception {
    switch (args[0]) {
      case "origin" -> origin(Integer.parseInt(args[1]));
      case "latency" -> latency(args[1], Integer.parseInt(args[2]), args[3].equals("push"));
      case "hold" -> hold(args[1], Integer.parseInt(args[2]), Long.parseLong(args[3]));
      default -> throw new IllegalArgumentException("origin | latency | hold");
    }
  }

  static void origin(int port) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 512);
    server.createContext(
        "/",
        exchange -> {
          String path = exchange.getRequestURI().getPath();
          if (path.equals("/logout")) {
            exchange.getResponseHeaders().add("Anteroom-Command", "revoke");
          }
          byte[] body = ("origin:" + path).getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.setExecutor(java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
    server.start();
    System.out.println("origin on " + port);
  }

  /** One user: a cookie jar of one cookie per name. */
  static final class User {
    final String base;
    final java.util.Map<String, String> cookies = new java.util.concurrent.ConcurrentHashMap<>();

    User(String base) {
      this.base = base;
    }

    HttpResponse<String> get(String path, String... headers) throws Exception {
      var b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(180));
      if (headers.length > 0) {
        b.headers(headers);
      }
      if (!cookies.isEmpty()) {
        var sb = new StringBuilder();
        cookies.forEach(
            (k, v) -> sb.append(sb.isEmpty() ? "" : "; ").append(k).append('=').append(v));
        b.header("Cookie", sb.toString());
      }
      HttpResponse<String> r = CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
      for (String set : r.headers().allValues("set-cookie")) {
        String pair = set.split(";", 2)[0];
        int eq = pair.indexOf('=');
        String value = pair.substring(eq + 1).trim();
        if (value.isEmpty() || set.toLowerCase().contains("max-age=0")) {
          cookies.remove(pair.substring(0, eq).trim());
        } else {
          cookies.put(pair.substring(0, eq).trim(), value);
        }
      }
      return r;
    }

    boolean enters(HttpResponse<String> r) {
      return r.body().startsWith("origin:");
    }
  }

  private static final Pattern LAST_UPDATED = Pattern.compile("\"lastUpdated\":\"([^\"]+)\"");
  private static final Pattern REFRESH = Pattern.compile("\"refreshIntervalSeconds\":(\\d+)");

  private static long field(Pattern p, String body, java.util.function.ToLongFunction<String> f) {
    Matcher m = p.matcher(body);
    return m.find() ? f.applyAsLong(m.group(1)) : -1;
  }

  static void latency(String base, int samples, boolean push) throws Exception {
    var admitted = new ArrayList<User>();
    User waiting = null;
    while (waiting == null) {
      User u = new User(base);
      if (u.enters(u.get("/"))) {
        admitted.add(u);
      } else {
        waiting = u;
      }
    }
    System.out.printf("room filled: %d admitted, one waiting%n", admitted.size());
    var results = new ArrayList<Double>();
    for (int i = 0; i < samples; i++) {
      User w = waiting;
      HttpResponse<String> first = w.get("/", "Accept", "application/json");
      if (w.enters(first)) { // let in meanwhile (a slot freed by a session's end): start over
        admitted.add(w);
        waiting = nextWaiting(base, admitted);
        i--;
        continue;
      }
      long refreshMillis = field(REFRESH, first.body(), Long::parseLong) * 1000;
      var entered = new CompletableFuture<Long>();
      Thread.ofVirtual().start(() -> refreshLoop(w, refreshMillis, entered));
      if (push) {
        long seen =
            field(LAST_UPDATED, first.body(), s -> java.time.Instant.parse(s).toEpochMilli());
        Thread.ofVirtual().start(() -> pushLoop(w, seen, entered));
      }
      Thread.sleep(
          ThreadLocalRandom.current().nextLong(1000, refreshMillis + 1000)); // a random phase
      User leaving = admitted.remove(ThreadLocalRandom.current().nextInt(admitted.size()));
      leaving.get("/logout");
      long freed = System.nanoTime();
      long in = entered.get();
      double seconds = (in - freed) / 1e9;
      if (seconds < 0) { // let in before the slot was freed (another slot freed): not a sample
        System.out.printf("discarded: entered %.2f s before the logout%n", -seconds);
        i--;
      } else {
        results.add(seconds);
        System.out.printf("sample %d: %.2f s%n", i + 1, seconds);
      }
      admitted.add(w);
      waiting = leaving;
      if (leaving.enters(leaving.get("/"))) { // the room had room for it too
        admitted.add(leaving);
        waiting = nextWaiting(base, admitted);
      }
    }
    double[] sorted = results.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    System.out.printf(
        "%s: %d samples, median %.2f s, p95 %.2f s, min %.2f s, max %.2f s%n",
        push ? "push" : "refresh",
        sorted.length,
        percentile(sorted, 0.5),
        percentile(sorted, 0.95),
        sorted[0],
        sorted[sorted.length - 1]);
    System.exit(0);
  }

  private static User nextWaiting(String base, List<User> admitted) throws Exception {
    while (true) {
      User u = new User(base);
      if (u.enters(u.get("/"))) {
        admitted.add(u);
      } else {
        return u;
      }
    }
  }

  /** The page's refresh: a JSON poll every announced interval until one reaches the origin. */
  private static void refreshLoop(User w, long refreshMillis, CompletableFuture<Long> entered) {
    try {
      long delay = refreshMillis;
      while (!entered.isDone()) {
        Thread.sleep(delay);
        if (entered.isDone()) {
          return;
        }
        HttpResponse<String> r = w.get("/", "Accept", "application/json");
        if (w.enters(r)) {
          entered.complete(System.nanoTime());
          return;
        }
        long next = field(REFRESH, r.body(), Long::parseLong);
        delay = next > 0 ? next * 1000 : refreshMillis;
      }
    } catch (Exception e) {
      entered.completeExceptionally(e);
    }
  }

  /** The page's push: held polls; told to enter, it reloads (a normal request). */
  private static void pushLoop(User w, long seen, CompletableFuture<Long> entered) {
    try {
      while (!entered.isDone()) {
        HttpResponse<String> r =
            w.get("/", "Accept", "application/json", "Anteroom-Watch", Long.toString(seen));
        if (r.statusCode() != 200 || r.body().contains("\"push\":false")) {
          System.out.println("push unavailable: " + r.statusCode() + " " + r.body());
          return;
        }
        if (r.body().contains("\"enter\":true")) {
          HttpResponse<String> reload = w.get("/", "Accept", "application/json");
          if (w.enters(reload)) {
            entered.complete(System.nanoTime());
            return;
          }
          long s =
              field(LAST_UPDATED, reload.body(), x -> java.time.Instant.parse(x).toEpochMilli());
          seen = s > 0 ? s : seen;
        }
      }
    } catch (Exception e) {
      entered.completeExceptionally(e);
    }
  }

  static double percentile(double[] sorted, double p) {
    int rank = (int) Math.ceil(p * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  static void hold(String hostPort, int connections, long pid) throws Exception {
    String host = hostPort.substring(0, hostPort.lastIndexOf(':'));
    int port = Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
    String base = "http://" + hostPort;
    var admitted = new ArrayList<User>();
    User w = nextWaiting(base, admitted);
    String cookie =
        w.cookies.entrySet().stream()
            .map(e -> e.getKey() + "=" + e.getValue())
            .reduce((a, b) -> a + "; " + b)
            .orElseThrow();
    long future = System.currentTimeMillis() + 3_600_000; // newer than any state: never woken
    byte[] request =
        ("GET / HTTP/1.1\r\nHost: "
                + hostPort
                + "\r\nAccept: application/json\r\nAnteroom-Watch: "
                + future
                + "\r\nCookie: "
                + cookie
                + "\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);
    long[] idle0 = memory(pid);
    // the same-run baseline: as many connections, each with a request head in progress
    var idle =
        open(host, port, connections, "GET / HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII), 2);
    Thread.sleep(10_000);
    long[] idle1 = memory(pid);
    int idleOpen = stillOpen(idle);
    System.out.printf(
        "baseline, %,d connections with a request head in progress (%,d still open): heap %.0f B,"
            + " RSS %.0f B per connection%n",
        idle.size(),
        idleOpen,
        (idle1[0] - idle0[0]) * 1024.0 / Math.max(1, idleOpen),
        (idle1[1] - idle0[1]) * 1024.0 / Math.max(1, idleOpen));
    for (SocketChannel s : idle) {
      s.close();
    }
    Thread.sleep(5_000);
    long[] before = memory(pid);
    System.out.printf(
        "before: heap used %,d KiB, RSS %,d KiB (%d admitted users)%n",
        before[0], before[1], admitted.size());
    var sockets = open(host, port, connections, request, 10);
    Thread.sleep(10_000);
    long[] during = memory(pid);
    int held = stillOpen(sockets);
    System.out.printf(
        "held: %,d push polls (%,d answered or closed); heap used %,d KiB, RSS %,d KiB%n",
        held, sockets.size() - held, during[0], during[1]);
    System.out.printf(
        "per held push poll: heap %.0f B, RSS %.0f B%n",
        (during[0] - before[0]) * 1024.0 / Math.max(1, held),
        (during[1] - before[1]) * 1024.0 / Math.max(1, held));
    for (SocketChannel s : sockets) {
      s.close();
    }
    System.exit(0);
  }

  /**
   * Opens {@code n} connections from 127.0.0.{@code firstSource} on (25,000 per address), each
   * sending {@code bytes}; stops at the first failure.
   */
  private static List<SocketChannel> open(
      String host, int port, int n, byte[] bytes, int firstSource) throws Exception {
    var sockets = new ArrayList<SocketChannel>(n);
    long started = System.nanoTime();
    try {
      for (int i = 0; i < n; i++) {
        SocketChannel s = SocketChannel.open();
        s.bind(new InetSocketAddress("127.0.0." + (firstSource + i / 25_000), 0));
        s.connect(new InetSocketAddress(host, port));
        s.write(ByteBuffer.wrap(bytes));
        sockets.add(s);
        if ((i + 1) % 10_000 == 0) {
          System.out.printf("%,d connections held%n", i + 1);
        }
      }
    } catch (IOException e) {
      System.out.printf("stopped at %,d connections: %s%n", sockets.size(), e);
    }
    System.out.printf(
        "opened %,d in %.1f s; waiting 10 s for the gateway to read them%n",
        sockets.size(), (System.nanoTime() - started) / 1e9);
    return sockets;
  }

  /** How many of {@code sockets} the gateway neither answered nor closed. */
  private static int stillOpen(List<SocketChannel> sockets) throws IOException {
    int open = 0;
    for (SocketChannel s : sockets) {
      s.configureBlocking(false);
      open += s.read(ByteBuffer.allocate(1)) == 0 ? 1 : 0;
    }
    return open;
  }

  /** The gateway's heap used after a full GC and its resident set, in KiB. */
  private static long[] memory(long pid) throws Exception {
    run("jcmd", Long.toString(pid), "GC.run");
    String heap = run("jcmd", Long.toString(pid), "GC.heap_info");
    Matcher m = Pattern.compile("used (\\d+)K").matcher(heap);
    long used = m.find() ? Long.parseLong(m.group(1)) : -1;
    long rss = -1;
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("VmRSS:")) {
        rss = Long.parseLong(line.replaceAll("\\D", ""));
      }
    }
    return new long[] {used, rss};
  }

  private static String run(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor();
    return out;
  }
}
