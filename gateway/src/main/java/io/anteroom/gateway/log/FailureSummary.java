package io.anteroom.gateway.log;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Repeated failures of one link (a peer's connection to another) told in a few lines: the first
 * failure, then every {@code every} how many followed, then once none came for {@code quiet} that
 * they stopped. Pure and clock-driven: {@link #failed} for each failure, {@link #tick} for the
 * lines time makes due.
 *
 * <p>Thread safety: every method is synchronized.
 */
final class FailureSummary {
  /** A line to log: a warning while failing, information when it stopped. */
  record Line(boolean warning, String text) {}

  private static final class Link {
    final Instant since;
    Instant lastFailure;
    Instant lastLine;
    long total;
    long sinceLine;

    Link(Instant now) {
      this.since = now;
      this.lastFailure = now;
      this.lastLine = now;
    }
  }

  private final Clock clock;
  private final Duration every;
  private final Duration quiet;
  private final Map<String, Link> links = new LinkedHashMap<>();

  FailureSummary(Clock clock, Duration every, Duration quiet) {
    this.clock = clock;
    this.every = every;
    this.quiet = quiet;
  }

  /** Whether {@code link} failed and has not been quiet since. */
  synchronized boolean failing(String link) {
    return links.containsKey(link);
  }

  /**
   * {@code times} failures of {@code link}: its line if they are the first since the link last
   * recovered.
   */
  synchronized Optional<Line> failed(String link, String detail, long times) {
    Instant now = clock.instant();
    Link l = links.get(link);
    if (l != null) {
      l.total += times;
      l.sinceLine += times;
      l.lastFailure = now;
      return Optional.empty();
    }
    l = new Link(now);
    l.total = times;
    links.put(link, l);
    return Optional.of(
        new Line(
            true,
            link
                + ": connection failed ("
                + detail
                + "); retried, further failures are counted every "
                + words(every)));
  }

  /** The lines due now: a count for each link still failing, a recovery for each that stopped. */
  synchronized List<Line> tick() {
    Instant now = clock.instant();
    List<Line> lines = new ArrayList<>();
    for (Iterator<Map.Entry<String, Link>> it = links.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, Link> e = it.next();
      Link l = e.getValue();
      if (!now.isBefore(l.lastFailure.plus(quiet))) {
        it.remove();
        lines.add(
            new Line(
                false,
                e.getKey()
                    + ": no connection failure for "
                    + words(quiet)
                    + " (connected again, or no longer tried); "
                    + l.total
                    + (l.total == 1 ? " failure" : " failures")
                    + " over "
                    + words(
                        Duration.between(l.since, l.lastFailure).truncatedTo(ChronoUnit.SECONDS))
                    + " since "
                    + l.since.truncatedTo(ChronoUnit.SECONDS)));
      } else if (!now.isBefore(l.lastLine.plus(every))) {
        if (l.sinceLine > 0) {
          lines.add(
              new Line(
                  true,
                  e.getKey()
                      + ": still failing: "
                      + l.sinceLine
                      + (l.sinceLine == 1 ? " failure" : " failures")
                      + " in the last "
                      + words(Duration.between(l.lastLine, now).truncatedTo(ChronoUnit.SECONDS))
                      + ", "
                      + l.total
                      + " since "
                      + l.since.truncatedTo(ChronoUnit.SECONDS)));
        }
        l.sinceLine = 0;
        l.lastLine = now;
      }
    }
    return lines;
  }

  /** {@code 1 min}, {@code 10 s}, {@code 2 min 5 s}. */
  static String words(Duration d) {
    long s = d.toSeconds();
    if (s < 60) return s + " s";
    return s % 60 == 0 ? s / 60 + " min" : s / 60 + " min " + s % 60 + " s";
  }
}
