package io.anteroom.door.match;

import java.util.Arrays;
import java.util.Objects;

/**
 * A glob matched in linear time: no regular expression, no backtracking. Matching simulates the
 * pattern as a set of positions advanced together over the input, so the work is at most {@code
 * (tokens + 1) × input length} steps whatever the pattern and the input, and a hostile 16 KiB path
 * cannot hold an event loop. Immutable and thread-safe.
 *
 * <p>Two flavours, with the semantics of the globs of {@code BypassMatcher} that they replace:
 *
 * <ul>
 *   <li>{@link #path}: {@code *} matches any run of characters other than {@code /} (within one
 *       segment), {@code **} any run of characters including {@code /}, {@code ?} one character
 *       other than {@code /}; everything else matches itself, case-sensitively. The whole input
 *       must match. So {@code /static/**} matches {@code /static/} and {@code /static/a/b} but not
 *       {@code /static}; {@code /**}{@code /a} needs two slashes ({@code //a} matches, {@code /a}
 *       does not), exactly like the regular expression {@code /.*}{@code /a} it replaces.
 *   <li>{@link #text}: {@code *} matches any run of characters, {@code ?} any one character,
 *       compared case-insensitively (for {@code User-Agent} rules).
 * </ul>
 *
 * Differences from the regular expressions used before: {@code *} and {@code **} also match line
 * terminators ({@code .} did not match {@code \n}, {@code \r}, {@code \u0085}, {@code \u2028},
 * {@code \u2029}), and {@code ?} matches one UTF-16 unit (a supplementary character is two). Match
 * paths against a normalised {@link RequestTarget#path()}, never against the raw target.
 *
 * <pre>{@code
 * Glob staticFiles = Glob.path("/static/**");
 * staticFiles.matches(target.path());          // true for /static/app.js
 * Glob bots = Glob.text("*bot*");
 * bots.matches(request.getHeader("User-Agent"));
 * }</pre>
 */
public final class Glob {
  private static final char LITERAL = 0;
  private static final char ONE = 1; // ?
  private static final char STAR = 2; // * (within a segment in path globs)
  private static final char ANY = 3; // ** in path globs, * in text globs

  private final String pattern;
  private final boolean ignoreCase;

  /** Token kinds and, for literals, their characters. */
  private final char[] kinds;

  private final char[] chars;

  private Glob(String pattern, boolean path) {
    this.pattern = pattern;
    this.ignoreCase = !path;
    char[] k = new char[pattern.length()];
    char[] c = new char[pattern.length()];
    int n = 0;
    for (int i = 0; i < pattern.length(); i++) {
      char ch = pattern.charAt(i);
      char kind;
      if (ch == '*') {
        if (path && i + 1 < pattern.length() && pattern.charAt(i + 1) == '*') {
          kind = ANY;
          i++;
        } else {
          kind = path ? STAR : ANY;
        }
        // a star next to a star adds nothing: "**" then "*" is "**", "*" then "**" is "**"
        if (n > 0 && (k[n - 1] == STAR || k[n - 1] == ANY)) {
          k[n - 1] = (k[n - 1] == ANY || kind == ANY) ? ANY : STAR;
          continue;
        }
      } else if (ch == '?') {
        kind = ONE;
      } else {
        kind = LITERAL;
        c[n] = ch;
      }
      k[n++] = kind;
    }
    this.kinds = Arrays.copyOf(k, n);
    this.chars = Arrays.copyOf(c, n);
  }

  /**
   * A path glob: {@code *} within a segment, {@code **} across segments, {@code ?} one non-{@code
   * /} character.
   */
  public static Glob path(String pattern) {
    return new Glob(Objects.requireNonNull(pattern, "pattern"), true);
  }

  /** A text glob: {@code *} anything, {@code ?} any one character, case-insensitive. */
  public static Glob text(String pattern) {
    return new Glob(Objects.requireNonNull(pattern, "pattern"), false);
  }

  /** The pattern as written. */
  public String pattern() {
    return pattern;
  }

  /** Whether the whole {@code input} matches; a null input never does. */
  public boolean matches(CharSequence input) {
    return input != null && run(input, null);
  }

  /**
   * The number of (position, character) steps that matching {@code input} takes: at most {@code
   * (tokens + 1) × (input length + 1)}. For tests that prove the bound.
   */
  long steps(CharSequence input) {
    long[] steps = new long[1];
    run(input, steps);
    return steps[0];
  }

  /** Number of tokens (consecutive stars count as one). */
  int tokens() {
    return kinds.length;
  }

  private boolean run(CharSequence input, long[] steps) {
    int m = kinds.length;
    boolean[] current = new boolean[m + 1];
    boolean[] next = new boolean[m + 1];
    current[0] = true;
    close(current);
    int len = input.length();
    for (int p = 0; p < len; p++) {
      char c = input.charAt(p);
      boolean any = false;
      for (int i = 0; i < m; i++) {
        if (!current[i]) continue;
        if (steps != null) steps[0]++;
        switch (kinds[i]) {
          case LITERAL -> {
            if (same(chars[i], c)) {
              next[i + 1] = true;
              any = true;
            }
          }
          case ONE -> {
            if (ignoreCase || c != '/') {
              next[i + 1] = true;
              any = true;
            }
          }
          case STAR -> {
            if (c != '/') {
              next[i] = true;
              any = true;
            }
          }
          default -> { // ANY
            next[i] = true;
            any = true;
          }
        }
      }
      if (!any) return false; // no position left: nothing further can match
      close(next);
      boolean[] t = current;
      current = next;
      next = t;
      Arrays.fill(next, false);
    }
    return current[m];
  }

  /** A star may match nothing: the position after it is reachable too. */
  private void close(boolean[] states) {
    for (int i = 0; i < kinds.length; i++) {
      if (states[i] && (kinds[i] == STAR || kinds[i] == ANY)) {
        states[i + 1] = true;
      }
    }
  }

  private boolean same(char a, char b) {
    if (a == b) return true;
    if (!ignoreCase) return false;
    char ua = Character.toUpperCase(a);
    char ub = Character.toUpperCase(b);
    return ua == ub || Character.toLowerCase(ua) == Character.toLowerCase(ub);
  }

  @Override
  public String toString() {
    return (ignoreCase ? "Glob.text(" : "Glob.path(") + pattern + ')';
  }
}
