package io.anteroom.sim;

import java.util.Arrays;
import java.util.List;

/**
 * The slot strategies the simulator compares: the three of the spec, and for each a
 * {@code published} variant that follows the 2021/2023 write-ups literally (budget fixed at the
 * minute start with no refill or in-flight margin, active users counted only by {@code e > m},
 * waiting users counted until {@code queueTimeout}, the wait estimate without abandonment, a
 * counter number consumed on every call). Both variants run the same core classes; the published
 * one only sets the core's switches.
 */
public enum Strategy {
  EVEN_SPLIT("even-split", false),
  UTILIZATION_SCALED("utilization-scaled", false),
  COUNTERS("counters", false),
  EVEN_SPLIT_PUBLISHED("even-split-published", true),
  UTILIZATION_SCALED_PUBLISHED("utilization-scaled-published", true),
  COUNTERS_PUBLISHED("counters-published", true);

  private final String cliName;
  private final boolean published;

  Strategy(String cliName, boolean published) {
    this.cliName = cliName;
    this.published = published;
  }

  /** The name used on the command line and in reports, e.g. {@code counters-published}. */
  public String cliName() {
    return cliName;
  }

  /** Whether this is the write-ups' literal variant. */
  public boolean published() {
    return published;
  }

  /** The spec variant of the same strategy (itself if not published). */
  public Strategy base() {
    return switch (this) {
      case EVEN_SPLIT_PUBLISHED -> EVEN_SPLIT;
      case UTILIZATION_SCALED_PUBLISHED -> UTILIZATION_SCALED;
      case COUNTERS_PUBLISHED -> COUNTERS;
      default -> this;
    };
  }

  /** The strategy with that command-line name, or an error listing the names that exist. */
  public static Strategy parse(String name) {
    return Arrays.stream(values()).filter(s -> s.cliName.equals(name)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("unknown strategy '" + name + "'; strategies: "
            + String.join(", ", Arrays.stream(values()).map(Strategy::cliName).toList()) + ", all"));
  }

  /** All strategies, spec variants first. */
  public static List<Strategy> all() {
    return List.of(values());
  }
}
