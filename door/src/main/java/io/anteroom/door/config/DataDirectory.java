package io.anteroom.door.config;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A process's claim on its data directory: the directory is created if missing and locked
 * exclusively ({@code anteroom.lock}, holding the owner's process id) for as long as the process
 * runs, so a second Anteroom process given the same directory stops at start with a clear message
 * instead of sharing the room's objects, keys and token with the first. The operating system
 * releases the lock when the process ends, also after {@code kill -9}.
 */
public final class DataDirectory {

  /** The lock file's name inside the data directory. */
  public static final String LOCK_FILE = "anteroom.lock";

  /** Directories this process holds, with their locked channels (kept open until exit). */
  private static final Map<Path, FileChannel> HELD = new ConcurrentHashMap<>();

  private DataDirectory() {}

  /**
   * Creates {@code dir} if needed and locks it for this process (again in the same process: no-op).
   *
   * @throws IllegalStateException when another process holds it (the message names that process)
   * @throws UncheckedIOException when it cannot be created or locked
   */
  public static Path claim(Path dir) {
    Path key = dir.toAbsolutePath().normalize();
    HELD.computeIfAbsent(key, DataDirectory::lock);
    return dir;
  }

  private static FileChannel lock(Path dir) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("dataDir: cannot create " + dir, e);
    }
    Path file = dir.resolve(LOCK_FILE);
    FileChannel channel = null;
    try {
      channel =
          FileChannel.open(
              file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
      FileLock lock = channel.tryLock();
      if (lock == null) {
        String owner = owner(channel);
        channel.close();
        throw new IllegalStateException(
            "dataDir "
                + dir
                + " is in use by another Anteroom process"
                + (owner.isEmpty() ? "" : " (pid " + owner + ")")
                + ": every process needs a data directory of its own; stop the other one or give"
                + " this one another --data-dir");
      }
      channel.truncate(0);
      channel.write(
          ByteBuffer.wrap(
              (ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)));
      channel.force(true);
      return channel;
    } catch (IOException e) {
      if (channel != null) {
        try {
          channel.close();
        } catch (IOException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw new UncheckedIOException("dataDir: cannot lock " + file, e);
    }
  }

  /** The process id written in the lock file, or empty. */
  private static String owner(FileChannel channel) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(32);
    channel.read(buffer, 0);
    String text = new String(buffer.array(), 0, buffer.position(), StandardCharsets.US_ASCII);
    return text.strip().chars().allMatch(Character::isDigit) ? text.strip() : "";
  }
}
