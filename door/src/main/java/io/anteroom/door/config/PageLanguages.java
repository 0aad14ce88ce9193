package io.anteroom.door.config;

import java.util.List;

/**
 * The languages the built-in pages are written in (BCP 47 primary tags), the values room keys
 * {@code languages} and {@code language} accept; their texts are the queue package's {@code
 * PageTexts}.
 */
public final class PageLanguages {

  /** English, Spanish, French, German, Portuguese, Italian, Japanese, Chinese, Korean, Arabic. */
  public static final List<String> BUILT_IN =
      List.of("en", "es", "fr", "de", "pt", "it", "ja", "zh", "ko", "ar");

  /** The language of a room that names none (when it offers it). */
  public static final String DEFAULT = "en";

  private PageLanguages() {}
}
