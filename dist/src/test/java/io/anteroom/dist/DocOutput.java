package io.anteroom.dist;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Compares a documented output block with what a command printed: each non-blank documented line
 * must match a line of the output, in the documented order (other lines may come between). Runs of
 * blanks match any run of blanks; {@code ...} matches any text, so a page may elide times, process
 * ids, directories and columns.
 */
final class DocOutput {
  private DocOutput() {}

  /** The documented line as a pattern for a whole output line. */
  static Pattern pattern(String documented) {
    StringBuilder regex = new StringBuilder("\\s*");
    String[] words = documented.strip().split("\\s+");
    for (int w = 0; w < words.length; w++) {
      if (w > 0) {
        regex.append("\\s+");
      }
      String[] parts = words[w].split("\\.\\.\\.", -1);
      for (int p = 0; p < parts.length; p++) {
        if (p > 0) {
          regex.append(".*?");
        }
        if (!parts[p].isEmpty()) {
          regex.append(Pattern.quote(parts[p]));
        }
      }
    }
    return Pattern.compile(regex.append("\\s*").toString());
  }

  /**
   * The documented lines no line of the output matches in order (empty when the block holds); the
   * output's ports are first moved back to the documented ones ({@code actual -> documented}).
   */
  static List<String> unmatched(String documented, String output, Map<Integer, Integer> ports) {
    List<String> actual = new ArrayList<>();
    for (String line : output.split("\n")) {
      actual.add(portsBack(line, ports));
    }
    List<String> missing = new ArrayList<>();
    int from = 0;
    for (String line : documented.split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      Pattern p = pattern(line);
      int found = -1;
      for (int i = from; i < actual.size(); i++) {
        if (p.matcher(actual.get(i)).matches()) {
          found = i;
          break;
        }
      }
      if (found < 0) {
        missing.add(line);
      } else {
        from = found + 1;
      }
    }
    return missing;
  }

  /**
   * The text with each documented port ({@code documented -> actual}) replaced wherever it stands
   * as a number of its own (in {@code 127.0.0.1:7081}, {@code --bind 127.0.0.1 8000}), never inside
   * a longer number.
   */
  static String movePorts(String text, Map<Integer, Integer> ports) {
    for (var e : ports.entrySet()) {
      text = text.replaceAll("(?<![\\d.])" + e.getKey() + "(?!\\d)", String.valueOf(e.getValue()));
    }
    return text;
  }

  private static final Pattern LOOPBACK_PORT = Pattern.compile("127\\.0\\.0\\.1:(\\d+)");

  static String portsBack(String line, Map<Integer, Integer> ports) {
    Matcher m = LOOPBACK_PORT.matcher(line);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      Integer doc = ports.get(Integer.parseInt(m.group(1)));
      m.appendReplacement(out, "127.0.0.1:" + (doc != null ? doc : m.group(1)));
    }
    return m.appendTail(out).toString();
  }
}
