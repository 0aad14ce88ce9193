package io.anteroom.gateway;

import com.sun.net.httpserver.HttpServer;
import io.anteroom.coordinator.CoordinatorServer;
import io.anteroom.door.admission.Coordination;
import io.anteroom.door.config.ConfigLoader;
import io.anteroom.door.config.GatewayConfig;
import io.anteroom.host.ObjectCoordination;
import io.anteroom.host.RoomHost;
import io.anteroom.objects.http.HttpObjectServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The training run of a command's start-up cache (Java 25+): {@code bin/anteroom} runs it in the
 * background, niced, under {@code -XX:AOTMode=record}, the first time a long-running command of an
 * install and version starts, and writes the cache from its recording. The command the operator
 * started is never the one recorded, so its stop is never slowed by a recording (a JVM in record
 * mode writes its recording at exit, which took 3 to 37 s after a long run on a loaded host).
 *
 * <p>It starts what the command starts, in this one process, on loopback ports chosen by the system
 * and in a temporary data directory: for {@code run} and {@code demo} a gateway with its embedded
 * room objects, for {@code gateway} and {@code coordinator} a coordinator and a gateway calling it;
 * sends what a sale sends (admitted and queued pages, JSON, the admin API, metrics), then stops
 * them as a SIGTERM would (drain included) and exits.
 */
public final class StartupTraining {
  private StartupTraining() {}

  /** The long-running commands whose start-up is trained (as bin/anteroom runs them). */
  static final java.util.Set<String> TRAINED =
      java.util.Set.of("run", "demo", "gateway", "coordinator");

  /** {@code StartupTraining COMMAND DIR}: trains for COMMAND, in the new directory DIR. */
  public static void main(String[] args) throws Exception {
    if (args.length != 2 || !TRAINED.contains(args[0])) {
      System.err.println("usage: StartupTraining run|demo|gateway|coordinator DIR");
      System.exit(2);
    }
    Main.defaultSystemProperties(System.getProperties());
    try {
      train(args[0], Path.of(args[1]));
    } finally {
      deleteTree(Path.of(args[1]));
    }
    System.exit(0); // the record-mode JVM writes its recording at exit
  }

  /**
   * Runs the workload of {@code command} in {@code dir}; returns what each request got ({@code
   * "PATH STATUS origin|room"} for the site, {@code "admin PATH STATUS"} for the admin API).
   */
  static List<String> train(String command, Path dir) throws Exception {
    Files.createDirectories(dir);
    // the command's model, as its start builds it (picocli reads the annotations by reflection)
    Main.commandLine(command).getSubcommands().get(command).getCommandSpec();
    HttpServer origin = origin();
    List<AutoCloseable> started = new ArrayList<>();
    try {
      GatewayConfig config = ConfigLoader.load(config(dir, origin.getAddress().getPort()));
      Gateway gateway;
      if (command.equals("run") || command.equals("demo")) {
        Coordination embedded = RoomHost.embedded(config);
        started.addFirst(embedded);
        gateway = Main.startGateway(config, embedded, "local");
      } else {
        var runtime = io.anteroom.objects.Runtime.builder().dataDir(dir.resolve("objects")).build();
        started.addFirst(runtime);
        HttpObjectServer server = CoordinatorServer.serve(runtime, "127.0.0.1", 0);
        started.addFirst(server);
        ObjectCoordination remote = ObjectCoordination.remote(server.uri(), Duration.ofSeconds(2));
        started.addFirst(remote);
        gateway = Main.startGateway(config, remote, "training");
      }
      started.addFirst(gateway);
      return visit(gateway, Files.readString(dir.resolve("data/admin-token")).strip());
    } finally {
      for (AutoCloseable c : started) c.close(); // the gateway first: its drain, as on SIGTERM
      origin.stop(0);
    }
  }

  /** A room of two users, so that the third and later visitors queue. */
  private static Path config(Path dir, int originPort) throws IOException {
    byte[] secret = new byte[32];
    new SecureRandom().nextBytes(secret);
    Path file = dir.resolve("anteroom.yaml");
    Files.writeString(
        file,
        String.join(
            "\n",
            "listen: 127.0.0.1:0",
            "origin: http://127.0.0.1:" + originPort,
            "dataDir: " + dir.resolve("data"),
            "admin:",
            "  listen: 127.0.0.1:0",
            "ticketKeys:",
            "  - { id: 1, secret: " + Base64.getEncoder().encodeToString(secret) + " }",
            "rooms:",
            "  - id: training",
            "    path: /",
            "    totalActiveUsers: 2",
            "    newUsersPerMinute: 2",
            "    bypass:",
            "      - { path: /static/** }",
            ""));
    return file;
  }

  private static HttpServer origin() throws IOException {
    HttpServer origin = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    origin.createContext(
        "/",
        exchange -> {
          byte[] body = "<!doctype html><p>training".getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "text/html; charset=utf-8");
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    origin.start();
    return origin;
  }

  /** Admitted and queued visitors, a returning one, JSON, bypassed assets and the admin API. */
  private static List<String> visit(Gateway gateway, String adminToken) throws Exception {
    List<String> got = new ArrayList<>();
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    String site = "http://127.0.0.1:" + gateway.port();
    String admin = "http://127.0.0.1:" + gateway.adminPort();
    for (int visitor = 0; visitor < 4; visitor++) {
      HttpResponse<String> first = get(http, site + "/", "text/html", null, got);
      String cookie =
          first.headers().firstValue("set-cookie").map(c -> c.split(";", 2)[0]).orElse(null);
      get(http, site + "/shop?item=" + visitor, "text/html", cookie, got);
      get(http, site + "/", "application/json", cookie, got);
    }
    get(http, site + "/static/app.css", "text/css", null, got);
    for (String path : List.of("/health", "/metrics", "/api/status", "/")) {
      HttpRequest.Builder request =
          HttpRequest.newBuilder(URI.create(admin + path)).timeout(Duration.ofSeconds(10));
      request.header("Authorization", "Bearer " + adminToken);
      got.add(
          "admin "
              + path
              + " "
              + http.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode());
    }
    return got;
  }

  private static HttpResponse<String> get(
      HttpClient http, String url, String accept, String cookie, List<String> got)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(10))
            .header("Accept", accept);
    if (cookie != null) request.header("Cookie", cookie);
    HttpResponse<String> response =
        http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    got.add(
        response.uri().getRawPath()
            + " "
            + response.statusCode()
            + (response.body().contains("training") ? " origin" : " room"));
    return response;
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) return;
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
    }
  }
}
