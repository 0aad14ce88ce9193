package io.anteroom.objects.storage;

import java.util.Comparator;

/**
 * A range of keys of one object, as passed to a {@link StorageEngine}: keys from {@code start}
 * (inclusive or not) up to {@code end} (exclusive), ascending or descending, at most {@code limit}
 * of them (0 = no limit). A {@code null} bound is open.
 *
 * <p>Keys are ordered by Unicode code point ({@link #ORDER}), which is the byte order of their
 * UTF-8 encoding, so that every engine (SQLite compares UTF-8 bytes) agrees with the cache.
 */
public record KeyRange(
    String start, boolean startInclusive, String end, boolean reverse, int limit) {

  /** Code point order of strings (= UTF-8 byte order). */
  public static final Comparator<String> ORDER = KeyRange::compareKeys;

  /** Every key, ascending. */
  public static final KeyRange ALL = new KeyRange(null, true, null, false, 0);

  /** Whether {@code key} lies between the bounds (ignores limit and direction). */
  public boolean contains(String key) {
    if (start != null) {
      int c = compareKeys(key, start);
      if (c < 0 || (c == 0 && !startInclusive)) return false;
    }
    return end == null || compareKeys(key, end) < 0;
  }

  /** Whether no key can lie in the range. */
  public boolean isEmpty() {
    if (start == null || end == null) return false;
    return compareKeys(start, end) >= 0;
  }

  /** The same range with another limit (0 = none). */
  public KeyRange withLimit(int newLimit) {
    return new KeyRange(start, startInclusive, end, reverse, newLimit);
  }

  static int compareKeys(String a, String b) {
    int n = Math.min(a.length(), b.length());
    for (int i = 0; i < n; i++) {
      char ca = a.charAt(i);
      char cb = b.charAt(i);
      if (ca != cb) {
        return codePointOrder(ca) - codePointOrder(cb);
      }
    }
    return a.length() - b.length();
  }

  // UTF-16 code units sort surrogates (supplementary code points) below U+E000..U+FFFF;
  // code point order puts them above. Shift the two blocks so that comparing code units
  // compares code points.
  private static int codePointOrder(char c) {
    if (c >= 0xD800) {
      return c >= 0xE000 ? c - 0x800 : c + 0x2000;
    }
    return c;
  }
}
