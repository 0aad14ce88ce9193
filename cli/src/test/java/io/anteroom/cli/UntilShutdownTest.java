package io.anteroom.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** A long-running command runs until the process is asked to stop, then closes what it started. */
class UntilShutdownTest {
  private final List<Thread> hooks = new CopyOnWriteArrayList<>();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private final UntilShutdown untilShutdown =
      new UntilShutdown(hooks::add, new PrintStream(err, true, StandardCharsets.UTF_8));
  private final List<String> closed = Collections.synchronizedList(new ArrayList<>());

  private AutoCloseable named(String name) {
    return new AutoCloseable() {
      @Override
      public void close() {
        closed.add(name);
      }

      @Override
      public String toString() {
        return name;
      }
    };
  }

  /** Starts run() on another thread and waits until it registered its hook. */
  private CompletableFuture<Integer> running(List<AutoCloseable> started) {
    var result = CompletableFuture.supplyAsync(() -> untilShutdown.run(started));
    await().atMost(Duration.ofSeconds(10)).until(() -> hooks.size() == 1);
    return result;
  }

  private void stopTheProcess() throws InterruptedException {
    Thread hook = hooks.getFirst();
    hook.start(); // what the JVM does with its shutdown hooks on SIGTERM
    hook.join();
  }

  @Test
  void itBlocksUntilTheStopThenClosesInTheGivenOrderAndExitsZero() throws Exception {
    var running = running(List.of(named("gateway"), named("coordination"), named("origin")));
    assertThat(running).isNotDone();
    assertThat(closed).isEmpty();

    stopTheProcess();

    assertThat(running.get()).isZero();
    assertThat(closed).containsExactly("gateway", "coordination", "origin");
    assertThat(hooks.getFirst().getName()).isEqualTo(UntilShutdown.THREAD);
  }

  @Test
  void aFailingCloseIsOneLineAndTheRestAreStillClosed() throws Exception {
    AutoCloseable broken =
        new AutoCloseable() {
          @Override
          public void close() {
            throw new IllegalStateException("disk gone");
          }

          @Override
          public String toString() {
            return "server";
          }
        };
    var running = running(List.of(broken, named("runtime")));

    stopTheProcess();

    assertThat(running.get()).isZero();
    assertThat(closed).containsExactly("runtime");
    assertThat(err.toString(StandardCharsets.UTF_8))
        .isEqualTo("anteroom: closing server: java.lang.IllegalStateException: disk gone\n");
  }

  @Test
  void whatTheCommandAddsAfterItStartedWaitingIsClosedToo() throws Exception {
    var started = new CopyOnWriteArrayList<AutoCloseable>(List.of(named("gateway")));
    var running = running(started);
    started.add(named("demo crowd"));
    started.add(null); // a server that was not started (an optional status server)

    stopTheProcess();

    assertThat(running.get()).isZero();
    assertThat(closed).containsExactly("gateway", "demo crowd");
  }
}
