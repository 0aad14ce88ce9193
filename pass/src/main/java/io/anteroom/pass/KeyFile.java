package io.anteroom.pass;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * The pass key file on disk: written whole or not at all, readable by its owner only. (The gateway
 * keeps its ticket keys the same way; this module depends on no other Anteroom module, so the few
 * lines are its own.)
 *
 * <p>Invariants: the content always goes to a temporary file of the same directory, created with
 * mode 0600, written and forced to disk, and only then given the file's name: {@link
 * #createIfAbsent} by a hard link, which fails if the name exists (a file another process created
 * first is kept); {@link #replace} by an atomic rename. A crash never leaves a partly written key
 * file under its name.
 */
final class KeyFile {
  private static final Set<PosixFilePermission> EXPOSING =
      EnumSet.of(
          PosixFilePermission.GROUP_READ,
          PosixFilePermission.GROUP_WRITE,
          PosixFilePermission.OTHERS_READ,
          PosixFilePermission.OTHERS_WRITE);

  private KeyFile() {}

  /** Writes {@code content} to {@code file} unless it exists; true if this call created it. */
  static boolean createIfAbsent(Path file, String content) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    if (Files.exists(file)) {
      return false;
    }
    Path tmp = writeTemporary(dir, file, content);
    try {
      try {
        Files.createLink(file, tmp); // atomic, and refuses to replace an existing name
      } catch (FileAlreadyExistsException e) {
        return false;
      } catch (UnsupportedOperationException | FileSystemException e) {
        // no hard links on this file system: an atomic rename
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
      }
      forceDirectory(dir);
      return true;
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /** Replaces {@code file}'s content atomically (rotation, retirement). */
  static void replace(Path file, String content) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Path tmp = writeTemporary(dir, file, content);
    try {
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      forceDirectory(dir);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /**
   * Why {@code file} is exposed, if it is: a message naming the file, its mode and the fix; empty
   * when only its owner may read or write it (or the file system has no POSIX permissions).
   */
  static Optional<String> exposure(Path file) throws IOException {
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
            + "); it holds the pass signing keys: chmod 600 "
            + file);
  }

  private static Path writeTemporary(Path dir, Path file, String content) throws IOException {
    String prefix = "." + file.getFileName() + ".";
    Path tmp;
    try {
      tmp =
          Files.createTempFile(
              dir,
              prefix,
              ".tmp",
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } catch (UnsupportedOperationException e) {
      tmp = Files.createTempFile(dir, prefix, ".tmp"); // non-POSIX file system: best effort
    }
    try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
      ch.write(StandardCharsets.UTF_8.encode(content));
      ch.force(true);
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(tmp);
      throw e;
    }
    return tmp;
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
