package io.anteroom.sim;

import io.anteroom.room.slots.StrategyKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A slot strategy as the simulator runs it: one of the room's {@link StrategyKind}s, under the
 * spec's rules or {@code published}: following the 2021/2023 write-ups literally (budget fixed at
 * the minute start with no refill or in-flight margin, active users counted only by {@code e > m},
 * waiting users counted until {@code queueTimeout}, the wait estimate without abandonment, a
 * counter number consumed on every call). Both variants run the same core classes; the published
 * one only sets the core's switches ({@code Rules.published()}).
 *
 * <pre>{@code
 * StrategyVariant.parse("evenSplit-published");   // EVEN_SPLIT, published
 * StrategyVariant.parse("even-split");            // the simulator's older spelling: EVEN_SPLIT, spec
 * }</pre>
 *
 * @param kind the room's strategy
 * @param published the write-ups' literal rules rather than the spec's
 */
public record StrategyVariant(StrategyKind kind, boolean published) {
  /** Counters under the spec's rules: the default. */
  public static final StrategyVariant COUNTERS = new StrategyVariant(StrategyKind.COUNTERS, false);

  /** The order of reports and charts: even split, utilization-scaled, counters. */
  private static final List<StrategyKind> ORDER =
      List.of(StrategyKind.EVEN_SPLIT, StrategyKind.UTILIZATION_SCALED, StrategyKind.COUNTERS);

  /** The simulator's earlier names, still accepted on the command line. */
  private static final Map<String, StrategyKind> ALIASES =
      Map.of(
          "even-split",
          StrategyKind.EVEN_SPLIT,
          "utilization-scaled",
          StrategyKind.UTILIZATION_SCALED);

  private static final String PUBLISHED_SUFFIX = "-published";

  public StrategyVariant {
    if (kind == null) {
      throw new IllegalArgumentException("a strategy variant needs a strategy kind");
    }
  }

  /** The spec variant of {@code kind}. */
  public static StrategyVariant spec(StrategyKind kind) {
    return new StrategyVariant(kind, false);
  }

  /** The published variant of {@code kind}. */
  public static StrategyVariant published(StrategyKind kind) {
    return new StrategyVariant(kind, true);
  }

  /**
   * The name used on the command line and in reports: the config name, with {@code -published} for
   * the published variant, e.g. {@code evenSplit} or {@code counters-published}.
   */
  public String cliName() {
    return kind.configName() + (published ? PUBLISHED_SUFFIX : "");
  }

  /** The spec variant of the same strategy (itself if not published). */
  public StrategyVariant base() {
    return published ? spec(kind) : this;
  }

  /**
   * The variant with that command-line name (a config name, optionally with {@code -published}; the
   * older {@code even-split} and {@code utilization-scaled} spellings too), or an error listing the
   * names that exist.
   */
  public static StrategyVariant parse(String name) {
    boolean published = name.endsWith(PUBLISHED_SUFFIX);
    String base = published ? name.substring(0, name.length() - PUBLISHED_SUFFIX.length()) : name;
    StrategyKind kind = StrategyKind.fromConfigName(base).orElse(ALIASES.get(base));
    if (kind == null) {
      throw new IllegalArgumentException(
          "unknown strategy '"
              + name
              + "'; strategies: "
              + String.join(", ", all().stream().map(StrategyVariant::cliName).toList())
              + ", all");
    }
    return new StrategyVariant(kind, published);
  }

  /** All variants, spec variants first. */
  public static List<StrategyVariant> all() {
    List<StrategyVariant> all = new ArrayList<>();
    ORDER.forEach(k -> all.add(spec(k)));
    ORDER.forEach(k -> all.add(published(k)));
    return List.copyOf(all);
  }
}
