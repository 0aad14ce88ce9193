package io.anteroom.door.queue;

import io.anteroom.door.config.PageLanguages;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The words of the built-in pages (queue, challenge, human check, invitation, refusals) and of the
 * JSON's text ({@code waitTimeFormatted}, a refusal's {@code message}) in one language, read from
 * {@code texts/LANGUAGE.properties} (UTF-8) next to this class. English is the reference: every
 * other file has the same keys and, key by key, the same placeholders (checked by a test).
 *
 * <p>Placeholders {@code {0}}, {@code {1}} are replaced as they stand: not {@link
 * java.text.MessageFormat}, whose quoting rules turn the apostrophe of French and Italian text into
 * a quote mark and drop it silently. Counts take their plural form ({@code NAME_CATEGORY}) by the
 * CLDR plural rule of the language ({@link #pluralCategory}): JDK {@link java.text.ChoiceFormat}
 * compares ranges and cannot say Arabic's {@code few}/{@code many} (n mod 100).
 *
 * <p>Immutable; one instance per language, loaded once.
 */
public final class PageTexts {

  /** The built-in languages (BCP 47 primary tags), English first. */
  public static final List<String> LANGUAGES = PageLanguages.BUILT_IN;

  private static final Map<String, PageTexts> ALL = loadAll();

  private final String language;
  private final Map<String, String> texts;
  private final Map<String, String> templateTexts;

  private PageTexts(String language, Map<String, String> texts) {
    this.language = language;
    this.texts = texts;
    var plain = new TreeMap<String, String>();
    texts.forEach(
        (k, v) -> {
          if (k.indexOf('_') < 0) {
            plain.put(k, v);
          }
        });
    this.templateTexts = Collections.unmodifiableMap(plain);
  }

  /** The texts of a built-in {@code language}. */
  public static PageTexts of(String language) {
    PageTexts t = ALL.get(language);
    if (t == null) {
      throw new IllegalArgumentException(
          "\""
              + language
              + "\" is not a built-in language; allowed: "
              + String.join(", ", LANGUAGES));
    }
    return t;
  }

  /** The language tag, as in {@code lang} and {@code Content-Language}. */
  public String language() {
    return language;
  }

  /** The writing direction for the page's {@code dir}: {@code rtl} for Arabic, else {@code ltr}. */
  public String dir() {
    return language.equals("ar") ? "rtl" : "ltr";
  }

  /** The text of {@code key}. */
  public String text(String key) {
    String t = texts.get(key);
    if (t == null) {
      throw new IllegalArgumentException("no text " + key + " in " + language);
    }
    return t;
  }

  /** The text of {@code key} with its placeholders {@code {0}}, {@code {1}}, ... replaced. */
  public String format(String key, Object... args) {
    return fill(text(key), args);
  }

  /**
   * {@code n} with its unit ({@code minutes}, {@code hours}, {@code seconds}) in its plural form.
   */
  public String count(String unit, long n) {
    String form = texts.get(unit + "_" + pluralCategory(language, n));
    return fill(form != null ? form : text(unit + "_other"), n);
  }

  /**
   * {@code waitTimeFormatted}: not known yet; less than a minute; minutes; from two hours on, hours
   * and minutes.
   */
  public String waitTime(boolean known, int minutes) {
    if (!known) {
      return text("waitUnknown");
    }
    if (minutes < 1) {
      return text("waitUnderAMinute");
    }
    if (minutes < 120) {
      return count("minutes", minutes);
    }
    return format("waitHoursMinutes", count("hours", minutes / 60), count("minutes", minutes % 60));
  }

  /**
   * {@code peopleAheadFormatted} (issue 42): "about N people ahead of you" when the place is {@link
   * io.anteroom.room.PlaceInLine#approximate}, N rounded to two significant digits from 100 on (it
   * is an approximation); else the range "between L and H"; nobody ahead; empty when the place is
   * not known (null).
   */
  public String place(io.anteroom.room.PlaceInLine place) {
    if (place == null) {
      return "";
    }
    if (!place.approximate()) {
      return format("placeBetween", place.low(), place.high());
    }
    long n = roughly(place.ahead());
    return n == 0 ? text("placeNobody") : count("placeAbout", n);
  }

  /** {@code n} to two significant digits from 100 on (1,234 → 1,200). */
  static long roughly(long n) {
    if (n < 100) {
      return n;
    }
    long unit = 1;
    while (n / unit >= 100) {
      unit *= 10;
    }
    return Math.round((double) n / unit) * unit;
  }

  /** A page scope with this language's {@code lang}, {@code dir} and texts {@code t}. */
  Map<String, Object> scope() {
    var scope = new LinkedHashMap<String, Object>();
    scope.put("lang", language);
    scope.put("dir", dir());
    scope.put("t", templateTexts);
    return scope;
  }

  /** The texts without plural forms, by key: the {@code t} of a page template's scope. */
  public Map<String, String> templateTexts() {
    return templateTexts;
  }

  /**
   * The CLDR plural category of the whole number {@code n} in {@code language}: {@code one}/{@code
   * other} (English, German, Italian, Spanish; French and Portuguese count 0 as {@code one}), only
   * {@code other} (Japanese, Chinese, Korean), and Arabic's {@code zero}, {@code one}, {@code two},
   * {@code few} (n mod 100 in 3..10), {@code many} (n mod 100 in 11..99), {@code other}. CLDR's
   * {@code many} of Spanish, French and Italian (exact millions) is left to {@code other}: no count
   * the pages show reaches it.
   */
  static String pluralCategory(String language, long n) {
    long abs = Math.abs(n);
    return switch (language) {
      case "ja", "zh", "ko" -> "other";
      case "fr", "pt" -> abs <= 1 ? "one" : "other";
      case "ar" -> {
        long mod100 = abs % 100;
        if (abs == 0) {
          yield "zero";
        } else if (abs == 1) {
          yield "one";
        } else if (abs == 2) {
          yield "two";
        } else if (mod100 >= 3 && mod100 <= 10) {
          yield "few";
        } else if (mod100 >= 11) {
          yield "many";
        }
        yield "other";
      }
      default -> abs == 1 ? "one" : "other";
    };
  }

  private static String fill(String text, Object... args) {
    String out = text;
    for (int i = 0; i < args.length; i++) {
      out = out.replace("{" + i + "}", String.valueOf(args[i]));
    }
    return out;
  }

  /** The raw texts of {@code language}'s file, in file order (for the completeness test). */
  static Map<String, String> read(String language) {
    String file = "texts/" + language + ".properties";
    try (InputStream in = PageTexts.class.getResourceAsStream(file)) {
      if (in == null) {
        throw new IllegalStateException("missing " + file);
      }
      var ordered = new LinkedHashMap<String, String>();
      var p =
          new Properties() {
            @Override
            public synchronized Object put(Object key, Object value) {
              if (ordered.put((String) key, (String) value) != null) {
                throw new IllegalStateException(file + ": key " + key + " given twice");
              }
              return super.put(key, value);
            }
          };
      p.load(new InputStreamReader(in, StandardCharsets.UTF_8));
      return Collections.unmodifiableMap(ordered);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Map<String, PageTexts> loadAll() {
    var all = new LinkedHashMap<String, PageTexts>();
    for (String language : LANGUAGES) {
      all.put(language, new PageTexts(language, read(language)));
    }
    return Collections.unmodifiableMap(all);
  }
}
