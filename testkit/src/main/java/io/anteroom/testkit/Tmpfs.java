package io.anteroom.testkit;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A small disk for disk-full tests: a {@code tmpfs} of a fixed size mounted on a directory (needs
 * root), that {@link #fill} fills to the last byte and {@link #free} empties again. Writes then
 * fail with {@code ENOSPC} ("No space left on device"), as on a full disk.
 *
 * <pre>{@code
 * try (Tmpfs disk = Tmpfs.mount(dir, 64 << 20)) {
 *   // start a process with its data in dir; later:
 *   disk.fill(); // ... disk.free();
 * }
 * }</pre>
 */
public final class Tmpfs implements AutoCloseable {
  private static final String FILLER = ".anteroom-filler";
  private final Path dir;
  private boolean mounted = true;

  private Tmpfs(Path dir) {
    this.dir = dir;
  }

  /** Why a tmpfs cannot be mounted here (not root, no mount), or empty when it can. */
  public static Optional<String> unavailable() {
    try {
      Path probe = Files.createTempDirectory("anteroom-tmpfs-probe");
      try (Tmpfs t = mount(probe, 1 << 20)) {
        return Optional.empty();
      } finally {
        Files.deleteIfExists(probe);
      }
    } catch (IOException | RuntimeException e) {
      return Optional.of("cannot mount a tmpfs (needs root): " + e.getMessage());
    }
  }

  /** Mounts a tmpfs of {@code bytes} on {@code dir} (created if missing). */
  public static Tmpfs mount(Path dir, long bytes) throws IOException {
    Files.createDirectories(dir);
    NetworkLab.run("mount", "-t", "tmpfs", "-o", "size=" + bytes, "tmpfs", dir.toString());
    return new Tmpfs(dir);
  }

  public Path dir() {
    return dir;
  }

  /** Writes a file until the disk is full; returns the bytes it took. */
  public long fill() {
    Path filler = dir.resolve(FILLER);
    long written = 0;
    byte[] block = new byte[64 * 1024];
    try (OutputStream out = Files.newOutputStream(filler)) {
      while (true) {
        out.write(block);
        written += block.length;
      }
    } catch (IOException e) {
      // No space left on device: the rest of a block may still fit
    }
    byte[] one = new byte[1];
    try (OutputStream out =
        Files.newOutputStream(filler, java.nio.file.StandardOpenOption.APPEND)) {
      while (true) {
        out.write(one);
        out.flush();
        written++;
      }
    } catch (IOException e) {
      return written; // full
    }
  }

  /** Removes what {@link #fill} wrote. */
  public void free() {
    try {
      Files.deleteIfExists(dir.resolve(FILLER));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Free bytes on the disk. */
  public long usable() {
    try {
      return Files.getFileStore(dir).getUsableSpace();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Unmounts it (lazily: a process still holding files in it keeps them until it exits). */
  @Override
  public synchronized void close() {
    if (!mounted) return;
    mounted = false;
    NetworkLab.run("umount", "-l", dir.toString());
  }
}
