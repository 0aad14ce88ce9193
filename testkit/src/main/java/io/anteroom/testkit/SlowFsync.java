package io.anteroom.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A disk whose {@code fsync} is slow, for a child process: a small shared library, compiled here
 * with the machine's C compiler and loaded with {@code LD_PRELOAD}, that makes every {@code fsync}
 * and {@code fdatasync} of the process (the JVM's {@code FileChannel.force}, SQLite's syncs) wait
 * the milliseconds written in a control file before it runs, read at each call: {@link #delay}
 * changes it while the process runs (0: no wait).
 *
 * <p>The kernel's own ways, a device-mapper {@code delay} target or a FUSE file system, need a
 * device mapper or a FUSE server; this needs only {@code cc}. It slows the sync calls themselves,
 * not the writes before them. {@link #unavailable} says why it cannot be built.
 */
public final class SlowFsync {
  /** The variable naming the control file in the child's environment. */
  public static final String CONTROL_VARIABLE = "ANTEROOM_FSYNC_DELAY_FILE";

  private static final String SOURCE =
      """
      #define _GNU_SOURCE
      #include <dlfcn.h>
      #include <fcntl.h>
      #include <stdlib.h>
      #include <time.h>
      #include <unistd.h>
      static void wait_as_told(void) {
        const char *file = getenv("ANTEROOM_FSYNC_DELAY_FILE");
        if (!file) return;
        int fd = open(file, O_RDONLY | O_CLOEXEC);
        if (fd < 0) return;
        char buf[32];
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n <= 0) return;
        buf[n] = 0;
        long ms = strtol(buf, NULL, 10);
        if (ms <= 0) return;
        struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
        while (nanosleep(&t, &t) != 0) {}
      }
      int fsync(int fd) {
        static int (*real)(int);
        if (!real) real = (int (*)(int)) dlsym(RTLD_NEXT, "fsync");
        wait_as_told();
        return real(fd);
      }
      int fdatasync(int fd) {
        static int (*real)(int);
        if (!real) real = (int (*)(int)) dlsym(RTLD_NEXT, "fdatasync");
        wait_as_told();
        return real(fd);
      }
      """;

  private final Path library;

  private SlowFsync(Path library) {
    this.library = library;
  }

  /** Why it cannot be built here (not Linux, no {@code cc}), or empty when it can. */
  public static Optional<String> unavailable() {
    if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) {
      return Optional.of("LD_PRELOAD needs Linux, this is " + System.getProperty("os.name"));
    }
    try {
      Path dir = Files.createTempDirectory("anteroom-slowfsync-probe");
      build(dir);
      return Optional.empty();
    } catch (IOException | RuntimeException e) {
      return Optional.of("cannot build the slow-fsync library (needs cc and libc headers): " + e);
    }
  }

  /** Compiles the library into {@code dir}. */
  public static SlowFsync build(Path dir) throws IOException {
    Files.createDirectories(dir);
    Path source = dir.resolve("slowfsync.c");
    Path library = dir.resolve("libslowfsync.so");
    Files.writeString(source, SOURCE);
    NetworkLab.run(
        "cc", "-shared", "-fPIC", "-O2", "-o", library.toString(), source.toString(), "-ldl");
    return new SlowFsync(library);
  }

  /** The environment that slows a child's syncs as {@code control} says (0 ms at first). */
  public void apply(ChildProcess.Builder child, Path control) {
    delay(control, 0);
    child.env("LD_PRELOAD", library.toString()).env(CONTROL_VARIABLE, control.toString());
  }

  /** Makes every sync of the processes reading {@code control} wait {@code millis} from now on. */
  public static void delay(Path control, long millis) {
    try {
      Path tmp = control.resolveSibling(control.getFileName() + ".tmp");
      Files.writeString(tmp, Long.toString(millis));
      Files.move(tmp, control, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
