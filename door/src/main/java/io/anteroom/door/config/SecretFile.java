package io.anteroom.door.config;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * The secrets a gateway keeps in its data directory (ticket keys, the admin token): created whole
 * or not at all, readable by the owner only.
 *
 * <p>Invariants: {@link #createIfAbsent} never leaves a partly written secret under its name, even
 * if the process dies mid-write: the content goes to a temporary file of the same directory,
 * created with mode 0600, written and forced to disk, and only then linked to its name, which fails
 * if the name exists (so a secret another process created first is never replaced). {@link
 * #exposure} names a secret file that others than its owner may read, for a warning at start.
 */
public final class SecretFile {
  private static final Set<PosixFilePermission> EXPOSING =
      EnumSet.of(
          PosixFilePermission.GROUP_READ,
          PosixFilePermission.GROUP_WRITE,
          PosixFilePermission.OTHERS_READ,
          PosixFilePermission.OTHERS_WRITE);

  private SecretFile() {}

  /**
   * Writes {@code content} to {@code file} atomically with owner-only permissions, unless {@code
   * file} exists.
   *
   * @return true if this call created the file, false if it existed (its content is kept)
   */
  public static boolean createIfAbsent(Path file, String content) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    if (Files.exists(file)) {
      return false;
    }
    Path tmp = createOwnerOnly(dir, "." + file.getFileName() + ".");
    try {
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        ch.write(StandardCharsets.US_ASCII.encode(content));
        ch.force(true);
      }
      try {
        Files.createLink(file, tmp); // atomic, and refuses to replace an existing name
      } catch (FileAlreadyExistsException e) {
        return false;
      } catch (UnsupportedOperationException | java.nio.file.FileSystemException e) {
        // no hard links on this file system: an atomic rename (it would replace a name created
        // since the check above, a window only for two processes starting at the same instant)
        Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        forceDirectory(dir);
        return true;
      }
      forceDirectory(dir);
      return true;
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /**
   * Why {@code file} is exposed, if it is: a message naming the file, its mode and the fix; empty
   * when only its owner may read or write it (or the file system has no POSIX permissions).
   */
  public static Optional<String> exposure(Path file) throws IOException {
    Set<PosixFilePermission> mode;
    try {
      mode = Files.getPosixFilePermissions(file);
    } catch (UnsupportedOperationException e) {
      return Optional.empty();
    }
    if (mode.stream().noneMatch(EXPOSING::contains)) {
      return Optional.empty();
    }
    return Optional.of(
        file
            + " is readable or writable by others than its owner (mode "
            + PosixFilePermissions.toString(mode)
            + "); it holds a secret: chmod 600 "
            + file);
  }

  private static Path createOwnerOnly(Path dir, String prefix) throws IOException {
    try {
      return Files.createTempFile(
          dir,
          prefix,
          ".tmp",
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } catch (UnsupportedOperationException e) {
      return Files.createTempFile(dir, prefix, ".tmp"); // non-POSIX file system: best effort
    }
  }

  /** Makes the new name itself durable (the directory entry), where the platform allows it. */
  private static void forceDirectory(Path dir) {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException | UnsupportedOperationException e) {
      // some platforms cannot open a directory; the file's content is already on disk
    }
  }
}
