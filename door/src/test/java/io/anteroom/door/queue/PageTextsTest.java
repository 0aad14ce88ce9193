package io.anteroom.door.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * Every translation is complete against English: the same keys (no missing, no extra), the same
 * placeholders key by key, and exactly the plural forms its language's rule uses.
 */
class PageTextsTest {

  static final java.util.List<String> ALL = PageTexts.LANGUAGES;

  static final java.util.List<String> TRANSLATIONS =
      PageTexts.LANGUAGES.stream().filter(l -> !l.equals("en")).toList();

  private static final Pattern PLACEHOLDER = Pattern.compile("\\{(\\d+)\\}");

  private static Set<String> placeholders(String text) {
    var found = new TreeSet<String>();
    Matcher m = PLACEHOLDER.matcher(text);
    while (m.find()) {
      found.add(m.group());
    }
    return found;
  }

  /** The plain keys, and the plural keys with their unit: NAME_CATEGORY becomes NAME. */
  private static Set<String> keys(String language, boolean plural) {
    var out = new TreeSet<String>();
    for (String k : PageTexts.read(language).keySet()) {
      int u = k.indexOf('_');
      if ((u >= 0) == plural) {
        out.add(u >= 0 ? k.substring(0, u) : k);
      }
    }
    return out;
  }

  /** The plural categories the language's rule gives the counts 0..1000. */
  private static Set<String> categories(String language) {
    var out = new TreeSet<String>();
    LongStream.rangeClosed(0, 1000).forEach(n -> out.add(PageTexts.pluralCategory(language, n)));
    return out;
  }

  @ParameterizedTest
  @FieldSource("TRANSLATIONS")
  void aTranslationHasExactlyTheKeysOfEnglish(String language) {
    assertThat(keys(language, false))
        .as("%s: plain keys (missing or extra)", language)
        .isEqualTo(keys("en", false));
    assertThat(keys(language, true)).as("%s: counted units", language).isEqualTo(keys("en", true));
  }

  @ParameterizedTest
  @FieldSource("ALL")
  void everyCountedUnitHasExactlyTheFormsOfItsLanguagesPluralRule(String language) {
    var texts = PageTexts.read(language);
    for (String unit : keys("en", true)) {
      var forms = new TreeSet<String>();
      texts.keySet().stream()
          .filter(k -> k.startsWith(unit + "_"))
          .forEach(k -> forms.add(k.substring(unit.length() + 1)));
      assertThat(forms).as("%s: forms of %s", language, unit).isEqualTo(categories(language));
    }
  }

  @ParameterizedTest
  @FieldSource("TRANSLATIONS")
  void aTranslationKeepsThePlaceholdersOfEnglish(String language) {
    var en = PageTexts.read("en");
    PageTexts.read(language)
        .forEach(
            (key, text) -> {
              assertThat(text).as("%s.%s", language, key).isNotBlank();
              int u = key.indexOf('_');
              if (u < 0) {
                assertThat(placeholders(text))
                    .as("%s.%s: placeholders", language, key)
                    .isEqualTo(placeholders(en.get(key)));
              } else {
                // a form for exactly one number may spell it ("دقيقة واحدة"); any other shows it
                String category = key.substring(u + 1);
                var expected = placeholders(en.get(key.substring(0, u) + "_other"));
                if (category.equals("one") && !language.matches("fr|pt")
                    || category.equals("two")) {
                  assertThat(expected).containsAll(placeholders(text));
                } else {
                  assertThat(placeholders(text))
                      .as("%s.%s: placeholders", language, key)
                      .isEqualTo(expected);
                }
              }
            });
  }

  @Test
  void noTextIsMarkupAndEveryLanguageLoads() {
    for (String language : PageTexts.LANGUAGES) {
      PageTexts.read(language)
          .forEach((k, v) -> assertThat(v).as("%s.%s", language, k).doesNotContain("<", ">"));
      assertThat(PageTexts.of(language).language()).isEqualTo(language);
    }
  }

  @Test
  void arabicTakesSixPluralFormsByTheCldrRule() {
    assertThat(
            LongStream.of(0, 1, 2, 3, 10, 11, 99, 100, 102, 103, 111, 1000)
                .mapToObj(n -> PageTexts.pluralCategory("ar", n))
                .toList())
        .containsExactly(
            "zero", "one", "two", "few", "few", "many", "many", "other", "other", "few", "many",
            "other");
    var ar = PageTexts.of("ar");
    assertThat(ar.waitTime(true, 1)).isEqualTo("دقيقة واحدة");
    assertThat(ar.waitTime(true, 2)).isEqualTo("دقيقتان");
    assertThat(ar.waitTime(true, 3)).isEqualTo("3 دقائق");
    assertThat(ar.waitTime(true, 11)).isEqualTo("11 دقيقة");
    assertThat(ar.dir()).isEqualTo("rtl");
  }

  @Test
  void englishCountsOneAndOtherAndFrenchCountsZeroAsOne() {
    var en = PageTexts.of("en");
    assertThat(en.waitTime(true, 1)).isEqualTo("1 minute");
    assertThat(en.waitTime(true, 2)).isEqualTo("2 minutes");
    assertThat(en.waitTime(true, 121)).isEqualTo("2 hours 1 minute");
    assertThat(en.waitTime(false, 0)).isEqualTo("Not known yet");
    assertThat(en.count("seconds", 0)).isEqualTo("0 seconds");
    assertThat(PageTexts.of("fr").count("seconds", 0)).isEqualTo("0 seconde");
    assertThat(PageTexts.of("ja").waitTime(true, 125)).isEqualTo("2時間5分");
    assertThat(en.dir()).isEqualTo("ltr");
  }

  @Test
  void anApostropheInATextSurvivesItsPlaceholders() {
    // MessageFormat would have read ' as a quote and dropped it
    assertThat(PageTexts.of("fr").format("challengeRefused", "expired"))
        .isEqualTo("La réponse précédente n’a pas été acceptée (expired) ; nouvel essai.");
    assertThat(PageTexts.of("en").format("prequeueTitle", "Drop's day", "18:00:00 UTC"))
        .isEqualTo("Drop's day opens at 18:00:00 UTC");
  }
}
