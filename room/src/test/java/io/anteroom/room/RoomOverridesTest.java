package io.anteroom.room;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RoomOverridesTest {

  @Test
  void aChangeMakesTheNextVersion() {
    RoomOverrides one = RoomOverrides.NONE.with(Map.of("suspended", "true"));
    assertThat(one.version()).isEqualTo(1);
    assertThat(one.value("suspended")).isEqualTo("true");
    RoomOverrides two = one.with(Map.of("queueAll", "true"));
    assertThat(two.version()).isEqualTo(2);
    assertThat(two.values()).containsEntry("suspended", "true").containsEntry("queueAll", "true");
  }

  @Test
  void aWriteThatChangesNothingKeepsTheVersionSoARetryIsHarmless() {
    RoomOverrides one = RoomOverrides.NONE.with(Map.of("suspended", "true"));
    assertThat(one.with(Map.of("suspended", "true"))).isSameAs(one);
    assertThat(RoomOverrides.NONE.with(Map.of())).isSameAs(RoomOverrides.NONE);
  }

  @Test
  void aNullValueRemovesTheOverride() {
    RoomOverrides one = RoomOverrides.NONE.with(Map.of("suspended", "true"));
    var remove = new HashMap<String, String>();
    remove.put("suspended", null);
    RoomOverrides two = one.with(remove);
    assertThat(two.version()).isEqualTo(2);
    assertThat(two.values()).isEmpty();
    assertThat(two.value("suspended")).isNull();
  }

  @Test
  void outOfBoundsKeysAndValuesAreRefusedNamingTheKey() {
    assertThatThrownBy(() -> RoomOverrides.NONE.with(Map.of("", "x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
    assertThatThrownBy(
            () ->
                RoomOverrides.NONE.with(
                    Map.of("events", "x".repeat(RoomOverrides.MAX_VALUE_LENGTH + 1))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("events");
    var many = new HashMap<String, String>();
    for (int i = 0; i <= RoomOverrides.MAX_KEYS; i++) {
      many.put("k" + i, "v");
    }
    assertThatThrownBy(() -> RoomOverrides.NONE.with(many))
        .hasMessageContaining("at most " + RoomOverrides.MAX_KEYS);
    assertThatThrownBy(() -> new RoomOverrides(-1, Map.of())).hasMessageContaining("version");
  }
}
