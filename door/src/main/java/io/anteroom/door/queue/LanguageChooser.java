package io.anteroom.door.queue;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Picks a room's page language from a request's {@code Accept-Language}: the offered language the
 * client ranks highest (quality values; {@code q=0} rules a language out), matched on the primary
 * subtag ({@code pt-BR} gets {@code pt}, {@code zh-Hant-TW} gets {@code zh}), else the room's
 * {@code language}. A room that offers one language always gets it.
 *
 * <p>Hot path: it runs only when the door writes a page of its own, and a header value seen before
 * is answered from a bounded cache ({@link #MAX_CACHED} values, dropped all at once when full, the
 * pattern of the page caches): a client can send any header, so no value stays forever and none
 * costs more than {@link #MAX_RANGES} ranges of parsing. Thread-safe.
 */
public final class LanguageChooser {

  /** At most this many header values are remembered. */
  static final int MAX_CACHED = 1024;

  /** Language ranges past this many in one header are not looked at. */
  static final int MAX_RANGES = 16;

  /** Header values longer than this are parsed each time (their first part only), never cached. */
  static final int MAX_CACHED_LENGTH = 256;

  private final List<String> offered;
  private final String fallback;
  private final Map<String, String> cache = new ConcurrentHashMap<>();

  /**
   * @param offered the languages the room offers (built-in tags)
   * @param fallback the room's {@code language}, one of {@code offered}
   */
  public LanguageChooser(List<String> offered, String fallback) {
    if (!offered.contains(fallback)) {
      throw new IllegalArgumentException(fallback + " is not among " + offered);
    }
    this.offered = List.copyOf(offered);
    this.fallback = fallback;
  }

  /** The language for a request whose {@code Accept-Language} is {@code header} (may be null). */
  public String choose(String header) {
    if (header == null || header.isBlank() || offered.size() == 1) {
      return fallback;
    }
    if (header.length() > MAX_CACHED_LENGTH) {
      return parse(header.substring(0, Math.min(header.length(), 4 * MAX_CACHED_LENGTH)));
    }
    String known = cache.get(header);
    if (known != null) {
      return known;
    }
    String chosen = parse(header);
    if (cache.size() >= MAX_CACHED) {
      cache.clear();
    }
    cache.put(header, chosen);
    return chosen;
  }

  /** How many header values are remembered now (for tests). */
  int cached() {
    return cache.size();
  }

  private record Range(String primary, double q, int order) {}

  private String parse(String header) {
    var ranges = new ArrayList<Range>();
    int order = 0;
    for (String part : header.split(",", MAX_RANGES + 1)) {
      if (order == MAX_RANGES) {
        break;
      }
      Range r = range(part.strip(), order++);
      if (r != null && r.q() > 0) {
        ranges.add(r);
      }
    }
    ranges.sort((a, b) -> a.q() != b.q() ? Double.compare(b.q(), a.q()) : a.order() - b.order());
    for (Range r : ranges) {
      if (r.primary().equals("*")) {
        return fallback;
      }
      if (offered.contains(r.primary())) {
        return r.primary();
      }
    }
    return fallback;
  }

  /** One range {@code tag[;q=value]}; null when it is not well formed. */
  private static Range range(String part, int order) {
    String tag = part;
    double q = 1;
    int semi = part.indexOf(';');
    if (semi >= 0) {
      tag = part.substring(0, semi).strip();
      String param = part.substring(semi + 1).strip();
      if (!param.startsWith("q=") && !param.startsWith("Q=")) {
        return null;
      }
      try {
        q = Double.parseDouble(param.substring(2).strip());
      } catch (NumberFormatException e) {
        return null;
      }
      if (!(q >= 0 && q <= 1)) {
        return null;
      }
    }
    int dash = indexOfSeparator(tag);
    String primary = (dash < 0 ? tag : tag.substring(0, dash)).toLowerCase(Locale.ROOT);
    if (primary.isEmpty() || primary.length() > 8) {
      return null;
    }
    return new Range(primary, q, order);
  }

  private static int indexOfSeparator(String tag) {
    int dash = tag.indexOf('-');
    int underscore = tag.indexOf('_');
    return dash < 0 ? underscore : underscore < 0 ? dash : Math.min(dash, underscore);
  }
}
