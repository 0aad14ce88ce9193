package io.anteroom.gateway;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one line a start logs about the JDK's AOT cache (Java 25+), which {@code bin/anteroom}
 * manages and names in the system property {@value #PROPERTY} as {@code STEP:PATH}: {@code train}
 * (no cache yet: the launcher trains one in the background, with {@link StartupTraining}), {@code
 * use} (this JVM was given the cache), {@code busy} (another process of the install trains it),
 * {@code failed} (training failed once for this version: not tried again). The JVM's own messages
 * about the cache are off (they are warnings about classes it skips, or errors about a cache it
 * cannot map); whether it mapped the cache shows in {@code java.vm.info} ("sharing"). A cache this
 * JVM could not use is removed, so that the next start trains a new one.
 */
final class StartupCache {
  static final String PROPERTY = "anteroom.aot";

  private static final Logger LOG = LoggerFactory.getLogger(StartupCache.class);

  private StartupCache() {}

  /** Logs this start's line, if the launcher set the property; removes a cache it could not use. */
  static void report() {
    String value = System.getProperty(PROPERTY);
    if (value == null) return;
    String vmInfo = String.valueOf(System.getProperty("java.vm.info"));
    line(value, vmInfo.contains("sharing"))
        .ifPresent(
            line -> {
              if (line.remove() != null) {
                try {
                  Files.deleteIfExists(line.remove());
                } catch (IOException e) {
                  LOG.debug("cannot remove {}: {}", line.remove(), e.toString());
                }
              }
              LOG.info(line.text());
            });
  }

  /** A line to log, and a cache file to remove (null: none). */
  record Line(String text, Path remove) {}

  /**
   * The line for the launcher's {@code STEP:PATH}, given whether this JVM maps a shared archive.
   */
  static Optional<Line> line(String value, boolean sharing) {
    int colon = value.indexOf(':');
    if (colon < 0) return Optional.empty();
    String step = value.substring(0, colon);
    Path path = Path.of(value.substring(colon + 1));
    return Optional.ofNullable(
        switch (step) {
          case "use" ->
              sharing
                  ? new Line("start-up cache: loaded " + path, null)
                  : new Line(
                      "start-up cache: "
                          + path
                          + " does not fit this JVM (another JDK build, or other JVM options):"
                          + " removed; the next start trains a new one",
                      path);
          case "train" ->
              new Line(
                  "start-up cache: none yet; a short run of this command on loopback ports trains"
                      + " it in the background (niced, about a minute) and writes "
                      + path
                      + "; the next start loads it",
                  null);
          case "failed" ->
              new Line(
                  "start-up cache: none; training it failed (see "
                      + path
                      + "), and it is not tried again for this version; remove the .failed file"
                      + " beside it to try again",
                  null);
          case "busy" ->
              new Line(
                  "start-up cache: none yet; another process of this install trains " + path, null);
          default -> null;
        });
  }
}
