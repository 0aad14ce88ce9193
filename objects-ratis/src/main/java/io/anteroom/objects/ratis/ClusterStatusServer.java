package io.anteroom.objects.ratis;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;

/**
 * A coordinator's status endpoints, read-only and unauthenticated (they show Raft progress, no
 * object data): {@code GET /health} (JSON of {@link ClusterStatus}; 200 when every shard has a
 * known leader, else 503) and {@code GET /metrics} (Prometheus text). Meant for a loopback or
 * monitoring-network address.
 */
public final class ClusterStatusServer implements AutoCloseable {
  private final HttpServer server;

  private ClusterStatusServer(HttpServer server) {
    this.server = server;
  }

  /** Serves the status of {@code node} on {@code host:port} (0: any free port). */
  public static ClusterStatusServer start(ClusterNode node, String host, int port) {
    HttpServer server;
    try {
      server = HttpServer.create(new InetSocketAddress(host, port), 16);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "status endpoint: cannot listen on " + host + ":" + port + ": " + e.getMessage(), e);
    }
    server.setExecutor(
        Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("cluster-status-", 0).factory()));
    server.createContext(
        "/health",
        exchange -> {
          ClusterStatus status = node.status();
          reply(exchange, status.healthy() ? 200 : 503, "application/json", status.toJson());
        });
    server.createContext(
        "/metrics",
        exchange ->
            reply(
                exchange,
                200,
                "text/plain; version=0.0.4; charset=utf-8",
                node.status().toPrometheus()));
    server.start();
    return new ClusterStatusServer(server);
  }

  /** The port bound. */
  public int port() {
    return server.getAddress().getPort();
  }

  private static void reply(HttpExchange exchange, int status, String type, String body)
      throws IOException {
    try (exchange) {
      if (!"GET".equals(exchange.getRequestMethod())
          && !"HEAD".equals(exchange.getRequestMethod())) {
        exchange.getResponseHeaders().set("Allow", "GET");
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", type);
      exchange.getResponseHeaders().set("Cache-Control", "no-store");
      if ("HEAD".equals(exchange.getRequestMethod())) {
        exchange.sendResponseHeaders(status, -1);
        return;
      }
      exchange.sendResponseHeaders(status, bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
