package io.anteroom.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.anteroom.room.slots.StrategyKind;
import org.junit.jupiter.api.Test;

class StrategyVariantTest {

  @Test
  void theCommandLineTakesTheConfigNamesWithAnOptionalPublishedSuffix() {
    assertThat(StrategyVariant.parse("counters")).isEqualTo(StrategyVariant.COUNTERS);
    assertThat(StrategyVariant.parse("evenSplit"))
        .isEqualTo(StrategyVariant.spec(StrategyKind.EVEN_SPLIT));
    assertThat(StrategyVariant.parse("utilizationScaled-published"))
        .isEqualTo(StrategyVariant.published(StrategyKind.UTILIZATION_SCALED));
  }

  @Test
  void theSimulatorsOlderSpellingsAreStillAccepted() {
    assertThat(StrategyVariant.parse("even-split"))
        .isEqualTo(StrategyVariant.spec(StrategyKind.EVEN_SPLIT));
    assertThat(StrategyVariant.parse("utilization-scaled-published"))
        .isEqualTo(StrategyVariant.published(StrategyKind.UTILIZATION_SCALED));
  }

  @Test
  void reportsPrintTheConfigNames() {
    assertThat(StrategyVariant.all())
        .extracting(StrategyVariant::cliName)
        .containsExactly(
            "evenSplit",
            "utilizationScaled",
            "counters",
            "evenSplit-published",
            "utilizationScaled-published",
            "counters-published");
  }

  @Test
  void anUnknownNameIsRefusedWithTheNamesThatExist() {
    assertThatThrownBy(() -> StrategyVariant.parse("lottery"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown strategy 'lottery'")
        .hasMessageContaining("evenSplit-published");
  }
}
