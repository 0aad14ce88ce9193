package io.anteroom.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Processes held to a share of one CPU each, by a cgroup's CPU quota (cgroup v1's {@code cpu}
 * controller: {@code cpu.cfs_quota_us} over {@code cpu.cfs_period_us}; cgroup v2: {@code cpu.max}):
 * a benchmark's stand-in for processes on machines of their own, each with that much CPU. Every
 * group is removed on {@link #close} (its processes must have exited by then; the caller waits for
 * them).
 */
final class CpuCaps implements AutoCloseable {
  private static final long PERIOD_MICROS = 100_000;
  private static final Path V1 = Path.of("/sys/fs/cgroup/cpu");
  private static final Path V2 = Path.of("/sys/fs/cgroup");

  private final Path parent;
  private final boolean v2;
  private final long quotaMicros;
  private final List<Path> groups = new ArrayList<>();

  private CpuCaps(Path parent, boolean v2, double cpus) {
    this.parent = parent;
    this.v2 = v2;
    this.quotaMicros = Math.max(1_000, Math.round(cpus * PERIOD_MICROS));
  }

  /**
   * Caps of {@code cpus} (above 0) of a CPU per process; null where no cgroup CPU controller can be
   * written here (not root, or neither hierarchy mounted).
   */
  static CpuCaps open(double cpus) {
    Path parent;
    boolean v2;
    if (Files.isWritable(V1.resolve("cgroup.procs")) && Files.exists(V1.resolve("cpu.shares"))) {
      parent = V1.resolve("anteroom-bench-" + ProcessHandle.current().pid());
      v2 = false;
    } else if (Files.isWritable(V2.resolve("cgroup.subtree_control"))
        && Files.exists(V2.resolve("cgroup.controllers"))) {
      parent = V2.resolve("anteroom-bench-" + ProcessHandle.current().pid());
      v2 = true;
    } else {
      return null;
    }
    try {
      Files.createDirectories(parent);
      // the groups' weight is the highest there is, so that whatever else runs on the machine
      // does not take the share the quota grants (a quota is a ceiling, not a guarantee)
      if (v2) {
        Files.writeString(parent.resolve("cpu.weight"), "10000");
        Files.writeString(parent.resolve("cgroup.subtree_control"), "+cpu");
      } else {
        Files.writeString(parent.resolve("cpu.shares"), "262144");
      }
      return new CpuCaps(parent, v2, cpus);
    } catch (IOException e) {
      return null; // a read-only or delegated hierarchy: the caller says why it skips
    }
  }

  /** Moves process {@code pid} (all its threads) into a group of its own named {@code name}. */
  void hold(String name, long pid) {
    Path group = parent.resolve(name);
    try {
      Files.createDirectories(group);
      groups.add(group);
      if (v2) {
        Files.writeString(
            group.resolve("cpu.max"),
            String.format(Locale.ROOT, "%d %d", quotaMicros, PERIOD_MICROS));
      } else {
        Files.writeString(group.resolve("cpu.cfs_period_us"), Long.toString(PERIOD_MICROS));
        Files.writeString(group.resolve("cpu.cfs_quota_us"), Long.toString(quotaMicros));
      }
      Files.writeString(group.resolve("cgroup.procs"), Long.toString(pid));
    } catch (IOException e) {
      throw new UncheckedIOException("holding process " + pid + " in " + group, e);
    }
  }

  @Override
  public void close() {
    for (Path group : groups) {
      try {
        Files.deleteIfExists(group); // rmdir: the kernel refuses while a process is inside
      } catch (IOException e) {
        System.err.println("could not remove cgroup " + group + ": " + e.getMessage());
      }
    }
    try {
      Files.deleteIfExists(parent);
    } catch (IOException e) {
      System.err.println("could not remove cgroup " + parent + ": " + e.getMessage());
    }
  }
}
