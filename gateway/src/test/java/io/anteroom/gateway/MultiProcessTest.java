package io.anteroom.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.testkit.FreePorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A coordinator process and two gateway processes in two data centers, as an operator runs them.
 */
@Tag("slow")
class MultiProcessTest {

  @TempDir Path dir;

  private final HttpClient client = Browser.newClient();

  @AfterEach
  void closeClient() {
    client.close();
  }

  private Process start(String name, String... args) throws IOException {
    var command = new ArrayList<String>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(Main.class.getName());
    command.addAll(List.of(args));
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve(name + ".log").toFile())
        .start();
  }

  private boolean ready(int adminPort) {
    try {
      return client
              .send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/ready"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .statusCode()
          == 200;
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }

  @Test
  void twoGatewayProcessesOnOneCoordinatorProcessHoldTheGlobalLimit() throws Exception {
    var processes = new ArrayList<Process>();
    try (var origin = new TestOrigin()) {
      int coordinatorPort = FreePorts.take();
      Path secret = dir.resolve("coordinator.secret");
      Files.writeString(
          secret, io.anteroom.objects.http.SharedSecret.generate("k1").encoded() + "\n");
      processes.add(
          start(
              "coordinator",
              "coordinator",
              "--listen",
              "127.0.0.1:" + coordinatorPort,
              "--data-dir",
              dir.resolve("coordinator").toString(),
              "--secret-file",
              secret.toString()));
      var gateways = new ArrayList<Integer>();
      for (String dc : List.of("dublin", "nairobi")) {
        int port = FreePorts.take();
        int admin = FreePorts.take();
        Path config = dir.resolve(dc + ".yaml");
        Files.writeString(
            config,
            """
            listen: 127.0.0.1:%d
            origin: %s
            dataDir: %s
            admin: { listen: 127.0.0.1:%d, token: multi-process-test-token }
            ticketKeys: [ { id: 1, secret: AAAAAAAAAAAAAAAAAAAAAA== } ]
            rooms: [ { id: shop, totalActiveUsers: 10 } ]
            """
                .formatted(port, origin.url(), dir.resolve(dc), admin));
        processes.add(
            start(
                dc,
                "gateway",
                "--coordinator",
                "http://127.0.0.1:" + coordinatorPort,
                "--datacenter",
                dc,
                "--config",
                config.toString(),
                "--coordinator-secret-file",
                secret.toString()));
        gateways.add(port);
        Awaitility.await().atMost(Duration.ofSeconds(90)).until(() -> ready(admin));
      }
      var responses = new ArrayList<CompletableFuture<HttpResponse<String>>>();
      for (int i = 0; i < 30; i++) {
        responses.add(new Browser(client, "http://127.0.0.1:" + gateways.get(i % 2)).getAsync("/"));
      }
      long admitted =
          responses.stream().map(CompletableFuture::join).filter(Browser::reachedOrigin).count();
      assertThat(admitted).isEqualTo(10);
      assertThat(origin.requests.get()).isEqualTo(10);
    } finally {
      processes.forEach(Process::destroy); // SIGTERM: graceful shutdown
      for (Process p : processes) {
        if (!p.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      }
    }
  }
}
