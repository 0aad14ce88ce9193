package io.anteroom.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A Java main class run in a child JVM for a multi-process test, with this JVM's class path: its
 * output lines (standard output and error) are kept in memory, with their order, and copied to a
 * log file; tests wait on them ({@link #awaitLine}) rather than on time. SIGKILL ({@link
 * #killHard}), SIGSTOP/SIGCONT ({@link #signal}) and SIGTERM ({@link #stop}) are available; the
 * child exits when its standard input closes only if its main class does so.
 *
 * <pre>{@code
 * ChildProcess c = ChildProcess.java(Main.class.getName())
 *     .args("coordinator", "--cluster", file.toString(), "--id", "c1")
 *     .log(Path.of("target", "logs", "c1.log"))
 *     .start();
 * c.awaitLine(line -> line.startsWith("anteroom coordinator c1"), Duration.ofSeconds(90));
 * }</pre>
 */
public final class ChildProcess implements AutoCloseable {
  private final String name;
  private final Process process;
  private final List<String> lines = new ArrayList<>(); // guarded by itself
  private boolean ended; // guarded by lines

  private ChildProcess(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    Thread.ofVirtual()
        .name("output-" + name)
        .start(
            () -> {
              try (BufferedReader in =
                      new BufferedReader(
                          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                  Writer out = log != null ? Files.newBufferedWriter(log) : Writer.nullWriter()) {
                String line;
                while ((line = in.readLine()) != null) {
                  out.write(line + "\n");
                  out.flush();
                  synchronized (lines) {
                    lines.add(line);
                    lines.notifyAll();
                  }
                }
              } catch (IOException e) {
                // the process is gone
              } finally {
                synchronized (lines) {
                  ended = true;
                  lines.notifyAll();
                }
              }
            });
  }

  // ------------------------------------------------------------ the child's side

  /**
   * In the child: prints {@code line} on standard output at once (one line at a time, whichever
   * thread prints it), for the parent's {@link #awaitLine}.
   */
  public static void printLine(String line) {
    synchronized (System.out) {
      System.out.println(line);
      System.out.flush();
    }
  }

  /**
   * In the child: returns once standard input closes, i.e. when the parent closes it or is gone
   * (the parent never writes), so a child that then exits never outlives its test.
   */
  public static void awaitParentGone() throws IOException {
    InputStream in = System.in;
    while (in.read() >= 0) {
      // nothing is ever written: this only waits for the end of the stream
    }
  }

  /** A child JVM running {@code mainClass} on this JVM's class path. */
  public static Builder java(String mainClass) {
    return new Builder(mainClass);
  }

  /** The name given to the builder (the main class's simple name by default). */
  public String name() {
    return name;
  }

  public long pid() {
    return process.pid();
  }

  public boolean alive() {
    return process.isAlive();
  }

  /** Every line the child printed so far, in order. */
  public List<String> lines() {
    synchronized (lines) {
      return List.copyOf(lines);
    }
  }

  /**
   * Writes {@code line} to the child's standard input (for a child that reads commands there).
   *
   * @throws UncheckedIOException if the child's input is closed (it exited)
   */
  public void sendLine(String line) {
    synchronized (process) {
      try {
        var in = process.getOutputStream();
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
      } catch (IOException e) {
        throw new UncheckedIOException(name + " does not read its input any more: " + e, e);
      }
    }
  }

  /**
   * The first line (printed so far or later) that matches; waits for it on the child's output.
   *
   * @throws IllegalStateException if the child's output ends first (it exited; the message has its
   *     output) or {@code patience} passes
   */
  public String awaitLine(Predicate<String> matches, Duration patience) {
    long deadline = System.nanoTime() + patience.toNanos();
    int seen = 0;
    synchronized (lines) {
      while (true) {
        for (; seen < lines.size(); seen++) {
          if (matches.test(lines.get(seen))) return lines.get(seen);
        }
        if (ended) {
          throw new IllegalStateException(
              name + " ended before the awaited line:\n" + String.join("\n", lines));
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new IllegalStateException(
              name + ": no awaited line after " + patience + ":\n" + String.join("\n", lines));
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(lines, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted waiting for " + name, e);
        }
      }
    }
  }

  /** The last line that matches, if any. */
  public Optional<String> lastLine(Predicate<String> matches) {
    List<String> all = lines();
    for (int i = all.size() - 1; i >= 0; i--)
      if (matches.test(all.get(i))) return Optional.of(all.get(i));
    return Optional.empty();
  }

  /** Sends {@code signal} ({@code STOP}, {@code CONT}, {@code TERM}, ...) with {@code kill}. */
  public void signal(String signal) {
    try {
      Process kill =
          new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
              .redirectErrorStream(true)
              .start();
      if (!kill.waitFor(30, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + name + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** SIGKILL, then waits for the exit; returns the exit status (137). */
  public int killHard() {
    process.destroyForcibly();
    return awaitExit(Duration.ofSeconds(30));
  }

  /** SIGTERM (a graceful stop), then SIGKILL if it has not exited within {@code patience}. */
  public int stop(Duration patience) {
    process.destroy();
    try {
      if (process.waitFor(patience.toMillis(), TimeUnit.MILLISECONDS)) return process.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return killHard();
  }

  private int awaitExit(Duration patience) {
    try {
      if (!process.waitFor(patience.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException(name + " still alive " + patience + " after SIGKILL");
      }
      return process.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** SIGKILL if still alive (ends a SIGSTOPped child too). */
  @Override
  public void close() {
    if (process.isAlive()) killHard();
  }

  /** Options of a {@link ChildProcess}. */
  public static final class Builder {
    private final String mainClass;
    private final List<String> jvmArgs = new ArrayList<>();
    private final List<String> args = new ArrayList<>();
    private final Map<String, String> env = new LinkedHashMap<>();
    private final List<String> launcher = new ArrayList<>();
    private String name;
    private Path log;

    private Builder(String mainClass) {
      this.mainClass = mainClass;
      this.name = mainClass.substring(mainClass.lastIndexOf('.') + 1);
    }

    /** Names the child in messages (default: the main class's simple name). */
    public Builder name(String name) {
      this.name = name;
      return this;
    }

    /** JVM options before the main class (e.g. {@code -XX:+UseSerialGC}). */
    public Builder jvmArgs(String... options) {
      jvmArgs.addAll(List.of(options));
      return this;
    }

    /** Arguments of the main class. */
    public Builder args(String... arguments) {
      args.addAll(List.of(arguments));
      return this;
    }

    /** An environment variable of the child. */
    public Builder env(String variable, String value) {
      env.put(variable, value);
      return this;
    }

    /**
     * Runs the JVM through this command, e.g. {@code ip netns exec NAME} to start it in a network
     * namespace. The launcher must replace itself with the JVM ({@code exec}), so that signals and
     * {@link #pid()} reach the JVM.
     */
    public Builder launcher(String... command) {
      launcher.addAll(List.of(command));
      return this;
    }

    /** Also writes every output line to this file (its directory must exist). */
    public Builder log(Path file) {
      this.log = file;
      return this;
    }

    private static final String NATIVE_ACCESS = "--enable-native-access";
    private static final String UNSAFE_MEMORY_ACCESS = "--sun-misc-unsafe-memory-access";

    public ChildProcess start() {
      List<String> command = new ArrayList<>(launcher);
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.addAll(jvmArgs);
      // as the shipped launcher (bin/anteroom): native access (SQLite, Netty's transports) and,
      // from JDK 23 on, Netty's and gRPC's use of sun.misc.Unsafe are allowed, so that a child's
      // log does not open with the JVM's warnings about them; an option given here wins
      if (jvmArgs.stream().noneMatch(o -> o.startsWith(NATIVE_ACCESS))) {
        command.add(NATIVE_ACCESS + "=ALL-UNNAMED");
      }
      if (Runtime.version().feature() >= 23
          && jvmArgs.stream().noneMatch(o -> o.startsWith(UNSAFE_MEMORY_ACCESS))) {
        command.add(UNSAFE_MEMORY_ACCESS + "=allow");
      }
      command.add("-cp");
      command.add(System.getProperty("java.class.path"));
      command.add(mainClass);
      command.addAll(args);
      ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
      builder.environment().putAll(env);
      try {
        return new ChildProcess(name, builder.start(), log);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot start " + name + ": " + e.getMessage(), e);
      }
    }
  }
}
