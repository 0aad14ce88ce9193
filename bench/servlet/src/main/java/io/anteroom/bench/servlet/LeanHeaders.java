package io.anteroom.bench.servlet;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

/**
 * Headers as Tomcat keeps them ({@code MimeHeaders}): names and values in arrays, searched in order
 * without case; no map, no copy of a name. For {@link FilterCost}'s lean request and response.
 */
final class LeanHeaders {
  private String[] names = new String[8];
  private String[] values = new String[8];
  private int size;

  void clear() {
    for (int i = 0; i < size; i++) {
      names[i] = null;
      values[i] = null;
    }
    size = 0;
  }

  void add(String name, String value) {
    if (size == names.length) {
      names = java.util.Arrays.copyOf(names, size * 2);
      values = java.util.Arrays.copyOf(values, size * 2);
    }
    names[size] = name;
    values[size] = value;
    size++;
  }

  /** Replaces every value of {@code name} by {@code value} (none when null). */
  void set(String name, String value) {
    int kept = 0;
    for (int i = 0; i < size; i++) {
      if (!names[i].equalsIgnoreCase(name)) {
        names[kept] = names[i];
        values[kept] = values[i];
        kept++;
      }
    }
    for (int i = kept; i < size; i++) {
      names[i] = null;
      values[i] = null;
    }
    size = kept;
    if (value != null) {
      add(name, value);
    }
  }

  String get(String name) {
    for (int i = 0; i < size; i++) {
      if (names[i].equalsIgnoreCase(name)) {
        return values[i];
      }
    }
    return null;
  }

  boolean contains(String name) {
    return get(name) != null;
  }

  /** Every value of {@code name}, in order, without copying them into a list (as Tomcat's). */
  Enumeration<String> values(String name) {
    return new Enumeration<>() {
      private int next = seek(0);

      private int seek(int from) {
        for (int i = from; i < size; i++) {
          if (names[i].equalsIgnoreCase(name)) {
            return i;
          }
        }
        return size;
      }

      @Override
      public boolean hasMoreElements() {
        return next < size;
      }

      @Override
      public String nextElement() {
        String v = values[next];
        next = seek(next + 1);
        return v;
      }
    };
  }

  List<String> all(String name) {
    return Collections.list(values(name));
  }

  Enumeration<String> names() {
    var all = new ArrayList<String>(size);
    for (int i = 0; i < size; i++) {
      all.add(names[i]);
    }
    return Collections.enumeration(all);
  }
}
