package io.anteroom.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;
import java.util.stream.Stream;

/**
 * The CPU time a JVM process's JIT compiler threads ({@code C1 CompilerThread*}, {@code C2
 * CompilerThread*}) have used, read from Linux's {@code /proc/PID/task/TID/schedstat} (nanoseconds
 * on a CPU), for a process other than this one: the benchmark's capped peers, whose compilers would
 * otherwise take a share of their CPU quota during the measurement.
 */
final class CompilerThreads {
  private CompilerThreads() {}

  /**
   * Nanoseconds the compiler threads of process {@code pid} ran; empty where /proc says nothing.
   */
  static OptionalLong cpuNanos(long pid) {
    Path tasks = Path.of("/proc", Long.toString(pid), "task");
    if (!Files.isDirectory(tasks)) {
      return OptionalLong.empty();
    }
    long total = 0;
    boolean found = false;
    try (Stream<Path> threads = Files.list(tasks)) {
      for (Path t : (Iterable<Path>) threads::iterator) {
        try {
          String name = Files.readString(t.resolve("comm")).strip();
          if (!name.startsWith("C1 Compiler") && !name.startsWith("C2 Compiler")) {
            continue;
          }
          String stat = Files.readString(t.resolve("schedstat")).strip();
          total += Long.parseLong(stat.substring(0, stat.indexOf(' ')));
          found = true;
        } catch (IOException | RuntimeException gone) {
          // the thread ended meanwhile (compiler threads come and go), or no schedstat here
        }
      }
    } catch (IOException e) {
      return OptionalLong.empty();
    }
    return found ? OptionalLong.of(total) : OptionalLong.empty();
  }
}
