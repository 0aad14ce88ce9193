package io.anteroom.room;

import java.util.Map;
import java.util.TreeMap;

/**
 * A room's live overrides: settings changed for the whole deployment at run time (the admin API's
 * switches), kept by the room's global object and applied by every gateway over its configured
 * settings. One mechanism for any setting: {@code values} maps a room key to its value as text
 * (e.g. {@code suspended -> "true"}); which keys may be overridden and how a value is read is the
 * gateway's business, so a new overridable setting needs no change here.
 *
 * <p>{@code version} grows by one with every change that changes a value; a write that changes
 * nothing keeps the version (so a retried write is harmless). Version 0 is the empty set a room
 * starts with.
 *
 * <pre>{@code
 * RoomOverrides o = RoomOverrides.NONE.with(Map.of("suspended", "true")); // version 1
 * o.with(Map.of("suspended", "true")) == o;                                // unchanged, version 1
 * }</pre>
 *
 * @param version the number of changes so far
 * @param values room key to value, sorted by key
 */
public record RoomOverrides(long version, Map<String, String> values) {

  /** No override: a room's state before its first change. */
  public static final RoomOverrides NONE = new RoomOverrides(0, Map.of());

  /** At most this many keys, each at most {@value #MAX_KEY_LENGTH} characters. */
  public static final int MAX_KEYS = 64;

  public static final int MAX_KEY_LENGTH = 64;

  /** A value is at most this many characters (a JSON document for structured settings). */
  public static final int MAX_VALUE_LENGTH = 32 * 1024;

  public RoomOverrides {
    if (version < 0) {
      throw new IllegalArgumentException("overrides: version must be >= 0, found " + version);
    }
    values =
        values == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(values));
    check(values);
  }

  /**
   * These overrides with {@code changes} applied: a key mapped to a value sets it, a key mapped to
   * null removes its override (the configured value applies again). Returns {@code this} when
   * nothing changes; otherwise the next version.
   *
   * @throws IllegalArgumentException naming the bad key when a key or value is out of bounds
   */
  public RoomOverrides with(Map<String, String> changes) {
    var next = new TreeMap<>(values);
    for (var e : changes.entrySet()) {
      if (e.getValue() == null) {
        next.remove(e.getKey());
      } else {
        next.put(e.getKey(), e.getValue());
      }
    }
    check(next);
    return next.equals(values) ? this : new RoomOverrides(version + 1, next);
  }

  /** The overridden value of {@code key}, or null. */
  public String value(String key) {
    return values.get(key);
  }

  private static void check(Map<String, String> values) {
    if (values.size() > MAX_KEYS) {
      throw new IllegalArgumentException(
          "overrides: at most " + MAX_KEYS + " keys, found " + values.size());
    }
    for (var e : values.entrySet()) {
      String key = e.getKey();
      if (key == null || key.isBlank() || key.length() > MAX_KEY_LENGTH) {
        throw new IllegalArgumentException(
            "overrides: a key must be 1.." + MAX_KEY_LENGTH + " characters, found \"" + key + "\"");
      }
      if (e.getValue() == null || e.getValue().length() > MAX_VALUE_LENGTH) {
        throw new IllegalArgumentException(
            "overrides: the value of "
                + key
                + " must be a text of at most "
                + MAX_VALUE_LENGTH
                + " characters");
      }
    }
  }
}
