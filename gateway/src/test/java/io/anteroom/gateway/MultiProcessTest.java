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
      // the crowd comes in a minute's last seconds, where the next minute's states cannot count
      // its admissions yet (18 users for T = 10 in a CI run before the counters carried them): the
      // wait is for the wall clock to reach that part of a minute, at most a minute
      Awaitility.await("a minute's last seconds")
          .atMost(Duration.ofSeconds(70))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> java.time.LocalTime.now(java.time.ZoneOffset.UTC).getSecond() >= 52);
      java.time.Instant burst = java.time.Instant.now();
      // thirty users at once, half through each gateway
      var users = new ArrayList<Browser>();
      for (int i = 0; i < 30; i++) {
        users.add(new Browser(client, "http://127.0.0.1:" + gateways.get(i % 2)));
      }
      var firstVisits = new ArrayList<CompletableFuture<HttpResponse<String>>>();
      for (int i = 0; i < users.size(); i++) {
        firstVisits.add(users.get(i).getAsync("/u/" + i));
      }
      long admittedAtOnce =
          firstVisits.stream().map(CompletableFuture::join).filter(Browser::reachedOrigin).count();
      assertThat(admittedAtOnce).as("admitted by the first burst").isLessThanOrEqualTo(10);
      // the queued users come back until the room is full: a decision whose counter answer took
      // over RoomWorker.STALLED_DECISION (a cold JVM's first calls, 200-600 ms on 2 cores) admits
      // nobody in its minute's last W, and that user enters at a later visit (a hang guard, not a
      // timing check)
      var rounds = new java.util.concurrent.atomic.AtomicInteger();
      Awaitility.await("the room fills to T")
          .atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () -> {
                rounds.incrementAndGet();
                var visits = new ArrayList<CompletableFuture<HttpResponse<String>>>();
                for (int i = 0; i < users.size(); i++) {
                  visits.add(users.get(i).getAsync("/u/" + i));
                }
                visits.forEach(CompletableFuture::join);
                return origin.users().size() >= 10;
              });
      System.out.printf(
          "%d of 30 admitted by the first burst; the room full after %d more rounds of visits%n",
          admittedAtOnce, rounds.get());
      // everyone keeps visiting into the next minute, whose first states cannot count the crowd's
      // admissions yet (until 10 s into it: the states' window W is 15 s, the crowd came at :52 or
      // later)
      java.time.Instant past =
          burst.truncatedTo(java.time.temporal.ChronoUnit.MINUTES).plusSeconds(70);
      Awaitility.await("into the next minute")
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () -> {
                var visits = new ArrayList<CompletableFuture<HttpResponse<String>>>();
                for (int i = 0; i < users.size(); i++) {
                  visits.add(users.get(i).getAsync("/u/" + i));
                }
                visits.forEach(CompletableFuture::join);
                return java.time.Instant.now().isAfter(past);
              });
      // every user once more: the ten inside are served, nobody else enters
      var lastVisits = new ArrayList<CompletableFuture<HttpResponse<String>>>();
      for (int i = 0; i < users.size(); i++) {
        lastVisits.add(users.get(i).getAsync("/u/" + i));
      }
      long servedLast =
          lastVisits.stream().map(CompletableFuture::join).filter(Browser::reachedOrigin).count();
      assertThat(origin.users()).as("distinct users at the origin").hasSize(10);
      assertThat(servedLast).as("users inside, served on their last visit").isEqualTo(10);
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
