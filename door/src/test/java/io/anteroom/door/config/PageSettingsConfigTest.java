package io.anteroom.door.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The room keys of its pages: {@code languages}, {@code language}, {@code queueingStatusCode}. */
class PageSettingsConfigTest {

  @Test
  void aRoomOffersEveryBuiltInLanguageInEnglishAnd200ByDefault() {
    var r = ConfigLoader.parseRoom("{ id: shop }");

    assertThat(r.queuePage().languages()).isEqualTo(PageLanguages.BUILT_IN).hasSize(10);
    assertThat(r.queuePage().language()).isEqualTo("en");
    assertThat(r.queuePage().queueingStatusCode()).isEqualTo(200);
  }

  @Test
  void theSettingsReadBackFromTheirJson() {
    var r =
        ConfigLoader.parseRoom(
            "{ id: shop, languages: [fr, de], language: de, queueingStatusCode: 429 }");

    assertThat(r.queuePage().languages()).containsExactly("fr", "de");
    assertThat(r.queuePage().language()).isEqualTo("de");
    assertThat(r.queuePage().queueingStatusCode()).isEqualTo(429);
    assertThat(ConfigLoader.parseRoom(ConfigLoader.toJson(r).toString())).isEqualTo(r);
  }

  @Test
  void withoutEnglishTheFirstOfferedLanguageIsTheRoomsLanguage() {
    assertThat(ConfigLoader.parseRoom("{ id: shop, languages: [ko, ja] }").queuePage().language())
        .isEqualTo("ko");
  }

  @Test
  void anUnknownLanguageOrStatusIsRefusedWithTheAllowedValues() {
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    """
        rooms:
          - id: a
            language: nl
            queueingStatusCode: 503
          - id: b
            languages: [fr, fr, xx]
          - id: c
            languages: [fr, de]
            language: es
          - id: d
            languages: []
        """,
                    "anteroom.yaml"))
        .hasMessageContaining(
            "rooms[0].language: \"nl\" is not a built-in language; allowed: en, es, fr, de, pt,"
                + " it, ja, zh, ko, ar")
        .hasMessageContaining(
            "rooms[0].queueingStatusCode: 503 is not allowed; allowed: 200, 202, 429")
        .hasMessageContaining("rooms[1].languages: \"fr\" is listed twice")
        .hasMessageContaining("rooms[1].languages: \"xx\" is not a built-in language")
        .hasMessageContaining(
            "rooms[2].language: \"es\" is not among the room's languages (fr, de)")
        .hasMessageContaining("rooms[3].languages: name at least one language");
  }
}
