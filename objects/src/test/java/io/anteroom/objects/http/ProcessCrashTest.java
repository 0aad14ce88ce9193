package io.anteroom.objects.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.anteroom.objects.Counters.Counter;
import io.anteroom.objects.ObjectTransportException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of the process under load never re-issues a number that a caller received: a child JVM
 * serves the naive counter over HTTP from a SQLite data directory; concurrent clients record every
 * number they receive; the child is killed with SIGKILL mid-load and restarted on the same
 * directory, again and again. Every received number must be unique across all rounds, and the first
 * number issued after the last restart must be above all of them.
 */
class ProcessCrashTest {
  private static final int CLIENTS = 16;
  private static final int SIGKILL_EXIT_STATUS = 128 + 9;
  private static final Duration CHILD_START = Duration.ofSeconds(60);
  private static final SharedSecret SECRET = SharedSecret.generate("crash-test");

  @TempDir Path dir;

  private final Set<Long> received = ConcurrentHashMap.newKeySet();
  private final List<Long> duplicates = new CopyOnWriteArrayList<>();
  private final List<Throwable> unexpected = new CopyOnWriteArrayList<>();

  @Test
  void killMinus9UnderLoadNeverReissuesAReceivedNumber() throws Exception {
    runRounds(1, new Random(1));
  }

  @Test
  // twenty JVM starts: on a machine busy with other builds this outlasts the 60 s default
  @org.junit.jupiter.api.Timeout(value = 5, unit = java.util.concurrent.TimeUnit.MINUTES)
  @Tag("slow")
  void twentyKillMinus9RoundsNeverReissueAReceivedNumber() throws Exception {
    long seed = System.nanoTime();
    System.out.println("ProcessCrashTest seed " + seed);
    runRounds(20, new Random(seed));
  }

  private void runRounds(int rounds, Random random) throws Exception {
    Path data = Files.createDirectories(dir.resolve("data"));
    for (int round = 1; round <= rounds; round++) {
      // kill at a different point of the load each round
      int numbersBeforeKill = 50 + random.nextInt(400);
      try (Child child = Child.start(data, dir.resolve("child-" + round + ".log"));
          RemoteObjects remote =
              RemoteObjects.over(
                  HttpObjectTransport.builder(child.uri())
                      .secret(SECRET)
                      .poolSize(CLIENTS)
                      .timeout(Duration.ofSeconds(20))
                      .build())) {
        Counter counter = remote.get("counter", Counter.class, "crash");
        int target = received.size() + numbersBeforeKill;
        List<Thread> clients = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
          clients.add(
              Thread.ofVirtual()
                  .name("crash-client-" + c)
                  .start(() -> callUntilTheChildDies(counter)));
        }
        await("round " + round + ": " + numbersBeforeKill + " numbers received")
            .atMost(Duration.ofSeconds(60))
            .until(() -> received.size() >= target || !unexpected.isEmpty());

        assertThat(child.killHard())
            .as("exit status of the killed child (SIGKILL)")
            .isEqualTo(SIGKILL_EXIT_STATUS);
        for (Thread t : clients) t.join();
      }
      assertThat(unexpected)
          .as("failures other than the lost connection, round " + round)
          .isEmpty();
      assertThat(duplicates).as("numbers received twice, round " + round).isEmpty();
    }
    try (Child child = Child.start(data, dir.resolve("child-final.log"));
        RemoteObjects remote =
            RemoteObjects.over(HttpObjectTransport.builder(child.uri()).secret(SECRET).build())) {
      long next = remote.get("counter", Counter.class, "crash").next();
      long highest = received.stream().mapToLong(Long::longValue).max().orElseThrow();
      assertThat(next).as("first number after the last restart").isGreaterThan(highest);
      System.out.println(
          "ProcessCrashTest: "
              + rounds
              + " kill rounds, "
              + received.size()
              + " numbers received, all unique; highest "
              + highest
              + ", next after restart "
              + next);
    }
  }

  private void callUntilTheChildDies(Counter counter) {
    while (true) {
      long n;
      try {
        n = counter.next();
      } catch (ObjectTransportException e) {
        return; // the child is gone: this call may or may not have run, and its number was not
        // received
      } catch (Throwable t) {
        unexpected.add(t);
        return;
      }
      if (!received.add(n)) duplicates.add(n);
    }
  }

  /** A child JVM running {@link CounterServerMain}; output goes to a log file. */
  private record Child(Process process, int port, Path log) implements AutoCloseable {

    static Child start(Path data, Path log) throws IOException {
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      ProcessBuilder builder =
          new ProcessBuilder(
                  java,
                  "-XX:+UseSerialGC",
                  "-XX:TieredStopAtLevel=1",
                  "--enable-native-access=ALL-UNNAMED",
                  "-cp",
                  System.getProperty("java.class.path"),
                  CounterServerMain.class.getName(),
                  data.toString())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile());
      builder
          .environment()
          .put(CounterServerMain.SECRET_VARIABLE, SECRET.encoded()); // not on the command line
      Process process = builder.start();
      try {
        int port =
            await("child prints its port")
                .atMost(CHILD_START)
                .pollInterval(Duration.ofMillis(50))
                .until(() -> portIn(log, process), Optional::isPresent)
                .orElseThrow();
        return new Child(process, port, log);
      } catch (RuntimeException e) {
        process.destroyForcibly();
        throw new IllegalStateException(
            "child did not start; its output:\n" + Files.readString(log), e);
      }
    }

    /** The port from the child's output; fails fast if the child died before printing it. */
    private static Optional<Integer> portIn(Path log, Process process) throws IOException {
      for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
        if (line.startsWith(CounterServerMain.PORT_LINE)) {
          return Optional.of(
              Integer.parseInt(line.substring(CounterServerMain.PORT_LINE.length()).trim()));
        }
      }
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "child exited with status " + process.exitValue() + " before printing its port");
      }
      return Optional.empty();
    }

    java.net.URI uri() {
      return java.net.URI.create("http://127.0.0.1:" + port);
    }

    /** SIGKILL ({@link Process#destroyForcibly()} on Linux); returns the exit status. */
    int killHard() throws InterruptedException {
      process.destroyForcibly();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException(
            "child " + process.pid() + " still alive 30 s after SIGKILL");
      }
      return process.exitValue();
    }

    @Override
    public void close() throws InterruptedException {
      if (process.isAlive()) killHard();
    }
  }
}
