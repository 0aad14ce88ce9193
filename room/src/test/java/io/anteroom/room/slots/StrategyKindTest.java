package io.anteroom.room.slots;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StrategyKindTest {

  @Test
  void eachKindIsNamedAsInTheConfigFile() {
    assertThat(StrategyKind.COUNTERS.configName()).isEqualTo("counters");
    assertThat(StrategyKind.EVEN_SPLIT.configName()).isEqualTo("evenSplit");
    assertThat(StrategyKind.UTILIZATION_SCALED.configName()).isEqualTo("utilizationScaled");
  }

  @Test
  void configNamesMapBackToTheirKindAndUnknownNamesToNothing() {
    for (StrategyKind k : StrategyKind.values()) {
      assertThat(StrategyKind.fromConfigName(k.configName())).contains(k);
    }
    assertThat(StrategyKind.fromConfigName("even-split")).isEmpty();
    assertThat(StrategyKind.fromConfigName("Counters")).isEmpty();
    assertThat(StrategyKind.fromConfigName(null)).isEmpty();
  }
}
