package io.anteroom.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

/**
 * How every long-running command ({@code run}, {@code demo}, {@code gateway}, {@code coordinator}
 * and a cluster peer) lives: it has started its servers, then runs until the process is asked to
 * stop (SIGTERM, Ctrl-C: the JVM's shutdown hooks), then closes what it started, in the order given
 * (a gateway first, so that it drains while its coordination still answers). A close that fails is
 * one line on standard error, and the rest are closed all the same.
 */
public final class UntilShutdown {
  /** The name of the shutdown hook's thread (in a thread dump taken while stopping). */
  public static final String THREAD = "anteroom-shutdown";

  private final Consumer<Thread> hooks;
  private final PrintStream err;

  /** The process's: the JVM's shutdown hooks, {@link System#err}. */
  public UntilShutdown() {
    this(Runtime.getRuntime()::addShutdownHook, System.err);
  }

  /**
   * @param hooks where the shutdown hook is registered (the JVM's, or a test's)
   * @param err where a close's failure is reported
   */
  UntilShutdown(Consumer<Thread> hooks, PrintStream err) {
    this.hooks = Objects.requireNonNull(hooks, "hooks");
    this.err = Objects.requireNonNull(err, "err");
  }

  /**
   * Blocks until the process is asked to stop and {@code started} are closed, in the list's order;
   * the list is read when the stop comes, so a command may add to it after this call began.
   *
   * @return 0, the command's exit code
   */
  public int run(List<? extends AutoCloseable> started) {
    Objects.requireNonNull(started, "started");
    var stopped = new CountDownLatch(1);
    hooks.accept(
        new Thread(
            () -> {
              try {
                closeAll(started);
              } finally {
                stopped.countDown();
              }
            },
            THREAD));
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 0;
  }

  private void closeAll(List<? extends AutoCloseable> started) {
    for (AutoCloseable c : new ArrayList<>(started)) {
      if (c == null) continue;
      try {
        c.close();
      } catch (Exception e) {
        err.println("anteroom: closing " + c + ": " + e);
      }
    }
  }
}
