package io.anteroom.objects;

import io.anteroom.objects.storage.KeyRange;
import io.anteroom.objects.storage.StorageEngine;

/**
 * Which keys {@link Storage#list} returns: between {@code start} (inclusive) or {@code startAfter}
 * (exclusive) and {@code end} (exclusive), starting with {@code prefix}, in ascending key order or
 * {@code reverse}, at most {@code limit}. Keys are ordered by Unicode code point. With {@code
 * reverse}, the limit keeps the last keys of the range.
 *
 * <pre>{@code
 * storage.list(ListOptions.builder().prefix("user:").limit(10).build(), Long.class);
 * storage.list(ListOptions.builder().startAfter("k42").reverse(true).build(), String.class);
 * }</pre>
 */
public final class ListOptions {
  /** Every key, ascending. */
  public static final ListOptions ALL = builder().build();

  private final String start;
  private final String startAfter;
  private final String end;
  private final String prefix;
  private final boolean reverse;
  private final int limit;

  private ListOptions(Builder b) {
    this.start = b.start;
    this.startAfter = b.startAfter;
    this.end = b.end;
    this.prefix = b.prefix;
    this.reverse = b.reverse;
    this.limit = b.limit;
  }

  public static Builder builder() {
    return new Builder();
  }

  public String start() {
    return start;
  }

  public String startAfter() {
    return startAfter;
  }

  public String end() {
    return end;
  }

  public String prefix() {
    return prefix;
  }

  public boolean reverse() {
    return reverse;
  }

  /** 0 means no limit. */
  public int limit() {
    return limit;
  }

  /** The key range these options select, for a {@link StorageEngine}. */
  public KeyRange toRange() {
    String lower = start != null ? start : startAfter;
    boolean lowerInclusive = start != null || startAfter == null;
    String upper = end;
    if (prefix != null && !prefix.isEmpty()) {
      if (lower == null || KeyRange.ORDER.compare(prefix, lower) > 0) {
        lower = prefix;
        lowerInclusive = true;
      }
      String prefixEnd = prefixEnd(prefix);
      if (prefixEnd != null && (upper == null || KeyRange.ORDER.compare(prefixEnd, upper) < 0)) {
        upper = prefixEnd;
      }
    }
    return new KeyRange(lower, lowerInclusive, upper, reverse, limit);
  }

  @Override
  public String toString() {
    return "ListOptions{start="
        + start
        + ", startAfter="
        + startAfter
        + ", end="
        + end
        + ", prefix="
        + prefix
        + ", reverse="
        + reverse
        + ", limit="
        + limit
        + "}";
  }

  /** Builder; {@link #build()} checks the combination. */
  public static final class Builder {
    private String start;
    private String startAfter;
    private String end;
    private String prefix;
    private boolean reverse;
    private int limit;
    private boolean limitSet;

    private Builder() {}

    /** First key, inclusive. Cannot be combined with {@link #startAfter}. */
    public Builder start(String key) {
      this.start = key;
      return this;
    }

    /** Keys strictly after this one. Cannot be combined with {@link #start}. */
    public Builder startAfter(String key) {
      this.startAfter = key;
      return this;
    }

    /** Keys strictly before this one. */
    public Builder end(String key) {
      this.end = key;
      return this;
    }

    /** Only keys starting with this prefix. */
    public Builder prefix(String p) {
      this.prefix = p;
      return this;
    }

    /** Descending key order. */
    public Builder reverse(boolean r) {
      this.reverse = r;
      return this;
    }

    /** At most this many entries; must be greater than 0. */
    public Builder limit(int n) {
      this.limit = n;
      this.limitSet = true;
      return this;
    }

    /**
     * @throws IllegalArgumentException if both start and startAfter are set, or limit is not
     *     positive
     */
    public ListOptions build() {
      if (start != null && startAfter != null) {
        throw new IllegalArgumentException(
            "list options: start (\""
                + start
                + "\") and startAfter (\""
                + startAfter
                + "\") are mutually exclusive; set at most one of them");
      }
      if (limitSet && limit <= 0) {
        throw new IllegalArgumentException(
            "list options: limit must be greater than 0, got "
                + limit
                + " (leave it unset for no limit)");
      }
      return new ListOptions(this);
    }
  }

  /**
   * The smallest key greater than every key starting with {@code prefix}, or {@code null} if there
   * is none (empty prefix, or only U+10FFFF code points).
   */
  private static String prefixEnd(String prefix) {
    String p = prefix;
    while (!p.isEmpty()) {
      int last = p.offsetByCodePoints(p.length(), -1);
      int cp = p.codePointAt(last);
      if (cp < Character.MAX_CODE_POINT) {
        int next = cp + 1;
        if (next >= Character.MIN_SURROGATE && next <= Character.MAX_SURROGATE) {
          next = Character.MAX_SURROGATE + 1;
        }
        return p.substring(0, last) + new String(Character.toChars(next));
      }
      p = p.substring(0, last);
    }
    return null;
  }
}
