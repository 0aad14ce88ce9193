package io.anteroom.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Fixed-width text for a terminal of {@value #WIDTH} columns: tables whose columns are split into
 * as many blocks as it takes for every line to fit (each block repeats the row labels), and
 * paragraphs wrapped at word boundaries.
 *
 * <pre>{@code
 * StringBuilder out = new StringBuilder();
 * TextTable.append(out, "limits", List.of("counters"), List.of("peak/T"), List.of(List.of("1.011")));
 * // limits    peak/T
 * // counters   1.011
 * }</pre>
 */
final class TextTable {
  /** The width every line fits in. */
  static final int WIDTH = 100;

  private static final String GAP = "  ";

  private TextTable() {}

  /**
   * Appends a table: one row per label, {@code cells.get(row).get(column)} under {@code
   * headers.get(column)}, right-aligned; {@code corner} heads the labels' column. Columns that do
   * not fit in {@link #WIDTH} next to the labels go to a further block below, with the labels
   * again.
   */
  static void append(
      StringBuilder out,
      String corner,
      List<String> labels,
      List<String> headers,
      List<List<String>> cells) {
    int first = corner.length();
    for (String label : labels) {
      first = Math.max(first, label.length());
    }
    int[] widths = new int[headers.size()];
    for (int c = 0; c < headers.size(); c++) {
      widths[c] = headers.get(c).length();
      for (List<String> row : cells) {
        widths[c] = Math.max(widths[c], row.get(c).length());
      }
    }
    int from = 0;
    while (from < headers.size()) {
      int to = from;
      int line = first;
      do {
        line += GAP.length() + widths[to];
        to++;
      } while (to < headers.size() && line + GAP.length() + widths[to] <= WIDTH);
      appendLine(out, first, corner, headers, widths, from, to);
      for (int r = 0; r < labels.size(); r++) {
        appendLine(out, first, labels.get(r), cells.get(r), widths, from, to);
      }
      from = to;
    }
  }

  private static void appendLine(
      StringBuilder out,
      int first,
      String label,
      List<String> cells,
      int[] widths,
      int from,
      int to) {
    out.append(String.format(Locale.ROOT, "%-" + first + "s", label));
    for (int c = from; c < to; c++) {
      out.append(GAP).append(String.format(Locale.ROOT, "%" + widths[c] + "s", cells.get(c)));
    }
    out.append('\n');
  }

  /**
   * {@code text} wrapped at spaces into lines of at most {@link #WIDTH} characters, each line after
   * the first starting with {@code indent}; a word longer than a line stays whole.
   */
  static String wrap(String text, String indent) {
    List<String> lines = new ArrayList<>();
    StringBuilder line = new StringBuilder();
    boolean empty = true;
    for (String word : text.split(" ", -1)) {
      if (!empty && line.length() + 1 + word.length() > WIDTH) {
        lines.add(line.toString());
        line = new StringBuilder(indent).append(word);
      } else {
        line.append(empty ? "" : " ").append(word);
      }
      empty = false;
    }
    lines.add(line.toString());
    return String.join("\n", lines);
  }
}
