package io.anteroom.door.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The one directory queue-page templates (and their Mustache partials) are read from, the gateway's
 * {@code templatesDir}. A template is named by a relative file name; a name that leaves the
 * directory ({@code ..}, an absolute path, a symbolic link pointing out of it) is refused, so the
 * admin API cannot publish other files of the host (ticket keys, the admin token, {@code
 * /etc/passwd}) as a queue page. Without a configured directory only the built-in page is
 * available.
 *
 * <p>Immutable and thread-safe; every call checks the file system afresh.
 */
public final class TemplateDirectory {

  /** A relative name: segments of letters, digits, {@code . _ -}, none starting with a dot. */
  private static final Pattern NAME =
      Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9._-]*(/[A-Za-z0-9_-][A-Za-z0-9._-]*)*");

  private final Optional<Path> dir;

  public TemplateDirectory(Optional<Path> dir) {
    this.dir = dir;
  }

  /** Whether {@code name} is a well-formed template name (it may still not exist). */
  public static boolean wellFormed(String name) {
    return name.length() <= 255 && NAME.matcher(name).matches();
  }

  /**
   * Whether a file (or link) {@code name} is there: a language variant of a template is used when
   * it exists ({@link #resolve} then still refuses one that leaves the directory).
   */
  public boolean exists(String name) {
    return dir.isPresent() && wellFormed(name) && Files.exists(dir.get().resolve(name));
  }

  /**
   * The real path of the template {@code name}, inside the directory.
   *
   * @throws IllegalArgumentException saying why the name is refused
   */
  public Path resolve(String name) {
    if (dir.isEmpty()) {
      throw new IllegalArgumentException(
          "\""
              + name
              + "\": no templatesDir is configured, so only"
              + " the built-in queue page is available (set templatesDir and name a file in it)");
    }
    if (!wellFormed(name)) {
      throw new IllegalArgumentException(
          "\""
              + name
              + "\" is not a template name: give a file"
              + " name relative to templatesDir (letters, digits, . _ - and /; no .., no absolute"
              + " path)");
    }
    try {
      Path root = dir.get().toRealPath();
      Path file = root.resolve(name).toRealPath();
      if (!file.startsWith(root) || !Files.isRegularFile(file)) {
        throw new IllegalArgumentException(
            "\""
                + name
                + "\" is not a file inside templatesDir"
                + " (links out of it are refused)");
      }
      return file;
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "\"" + name + "\": no such readable file in templatesDir " + dir.get(), e);
    }
  }
}
