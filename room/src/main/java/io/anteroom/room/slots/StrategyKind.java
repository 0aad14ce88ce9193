package io.anteroom.room.slots;

import java.util.Arrays;
import java.util.Optional;

/**
 * The slot strategies a room can be configured with: how a worker spends its data center's share of
 * the minute's slots (see {@link SlotStrategy}). {@link #configName()} is the name in the config
 * file.
 *
 * <pre>{@code
 * StrategyKind kind = StrategyKind.fromConfigName("evenSplit").orElseThrow();   // EVEN_SPLIT
 * kind.configName();                                                            // "evenSplit"
 * }</pre>
 */
public enum StrategyKind {
  /**
   * 2023 data-center counters: no division by workers; each attempt takes a number. The default.
   */
  COUNTERS("counters"),
  /**
   * 2021 even split: each worker gets {@code floor(slots_dc / dcWorkers) + floor(slots_anywhere /
   * globalWorkers)}.
   */
  EVEN_SPLIT("evenSplit"),
  /**
   * 2023 utilization-scaled split: worker counts multiplied by {@code utilization ^ curveFactor}.
   */
  UTILIZATION_SCALED("utilizationScaled");

  private final String configName;

  StrategyKind(String configName) {
    this.configName = configName;
  }

  /**
   * The name in the config file: {@code counters}, {@code evenSplit} or {@code utilizationScaled}.
   */
  public String configName() {
    return configName;
  }

  /** The kind whose {@link #configName()} is {@code name} (exact, case-sensitive), or empty. */
  public static Optional<StrategyKind> fromConfigName(String name) {
    return Arrays.stream(values()).filter(k -> k.configName.equals(name)).findFirst();
  }
}
