package io.anteroom.door.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The page language follows the browser's Accept-Language within what the room offers. */
class LanguageChooserTest {

  private final LanguageChooser all = new LanguageChooser(PageTexts.LANGUAGES, "en");

  @Test
  void theHighestQualityOfferedLanguageWins() {
    assertThat(all.choose("fr;q=0.5, de;q=0.9, nl")).isEqualTo("de");
    assertThat(all.choose("nl, sv;q=0.8, it;q=0.7")).isEqualTo("it");
    assertThat(all.choose("es, fr")).as("equal quality: the header's order").isEqualTo("es");
  }

  @Test
  void aRegionOrScriptFallsBackToItsLanguage() {
    assertThat(all.choose("pt-BR")).isEqualTo("pt");
    assertThat(all.choose("zh-Hant-TW,zh;q=0.9")).isEqualTo("zh");
    assertThat(all.choose("de_AT")).isEqualTo("de");
    assertThat(all.choose("AR-eg")).isEqualTo("ar");
  }

  @Test
  void nothingOfferedAStarOrNoHeaderGivesTheRoomsLanguage() {
    var room = new LanguageChooser(PageTexts.LANGUAGES, "de");
    assertThat(room.choose(null)).isEqualTo("de");
    assertThat(room.choose("")).isEqualTo("de");
    assertThat(room.choose("nl, sv")).isEqualTo("de");
    assertThat(room.choose("nl, *;q=0.5, fr;q=0.1")).isEqualTo("de");
  }

  @Test
  void qualityZeroRulesALanguageOutAndBrokenRangesAreSkipped() {
    assertThat(all.choose("fr;q=0, de;q=0.1")).isEqualTo("de");
    assertThat(all.choose("fr;q=abc, es")).isEqualTo("es");
    assertThat(all.choose("fr;q=2, it")).isEqualTo("it");
    assertThat(all.choose(";;;,,,  , ja")).isEqualTo("ja");
  }

  @Test
  void aRoomOffersOnlyItsLanguages() {
    var room = new LanguageChooser(List.of("de", "fr"), "de");
    assertThat(room.choose("es, fr;q=0.5")).isEqualTo("fr");
    assertThat(room.choose("en")).isEqualTo("de");
    var one = new LanguageChooser(List.of("ja"), "ja");
    assertThat(one.choose("en-US,en;q=0.9")).isEqualTo("ja");
  }

  @Test
  void anyNumberOfDistinctHeadersKeepsTheCacheBounded() {
    var room = new LanguageChooser(PageTexts.LANGUAGES, "en");
    for (int i = 0; i < 10 * LanguageChooser.MAX_CACHED; i++) {
      assertThat(room.choose("x" + i + ", fr;q=0.5")).isEqualTo("fr");
    }
    assertThat(room.cached()).isBetween(1, LanguageChooser.MAX_CACHED);

    String huge = "nl, ".repeat(10_000) + "fr";
    assertThat(room.choose(huge))
        .as("only the first ranges of a huge header are read")
        .isEqualTo("en");
    assertThat(room.choose("sv, ".repeat(100) + "it")).isEqualTo("en");
  }

  @Test
  void aRepeatedHeaderIsAnsweredFromTheCache() {
    var room = new LanguageChooser(PageTexts.LANGUAGES, "en");
    room.choose("fr-CH, fr;q=0.9, en;q=0.8");
    room.choose("fr-CH, fr;q=0.9, en;q=0.8");
    assertThat(room.cached()).isEqualTo(1);
  }
}
