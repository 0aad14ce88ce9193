package io.anteroom.bench;

import com.sun.net.httpserver.HttpServer;
import io.vertx.core.Vertx;
import java.net.InetSocketAddress;

/**
 * The floor under the coordinator's restart time: the least a JVM does before it answers HTTP on
 * this machine. {@code jdk} serves 200 from the JDK's own {@code com.sun.net.httpserver}; {@code
 * vertx} from a Vert.x HTTP server, the coordinator's HTTP stack, with nothing of Anteroom. {@code
 * bench/restart/run.sh} with {@code FLOOR=1} starts both, each with its own AOT cache, alternating
 * with the coordinator, so the three are measured in the same run.
 *
 * <p>Usage: {@code StartFloor jdk|vertx PORT}; listens on 127.0.0.1 until killed.
 */
public final class StartFloor {
  private StartFloor() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 2 || !(args[0].equals("jdk") || args[0].equals("vertx"))) {
      System.err.println("usage: StartFloor jdk|vertx PORT");
      System.exit(2);
    }
    int port = Integer.parseInt(args[1]);
    // as anteroom's own commands run (Main.defaultSystemProperties): without Netty's JFR events
    System.getProperties().putIfAbsent("io.netty.jfr.enabled", "false");
    if (args[0].equals("jdk")) {
      HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
      server.createContext(
          "/",
          exchange -> {
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
          });
      server.start();
    } else {
      Vertx.vertx()
          .createHttpServer()
          .requestHandler(request -> request.response().end())
          .listen(port, "127.0.0.1")
          .toCompletionStage()
          .toCompletableFuture()
          .join();
    }
  }
}
