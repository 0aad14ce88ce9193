package io.anteroom.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * docs/simulation.md shows the simulator's results: its "Full results (seed 1)" are the {@code
 * report.md} of the command its "Results" section names; its "Counters against the targets" table
 * quotes the counters' rows of those results, and its "Place in line" table their place-in-line
 * errors. A change of the room core or the simulator that moves a figure fails here until the page
 * is regenerated ({@link #REGENERATE}). The charts are not compared (their bytes may depend on the
 * machine's fonts).
 */
class SimulationPageTest {

  static final Path PAGE = Path.of("..", "docs", "simulation.md");

  /** The heading of the part of the page that is {@code report.md}, verbatim, to the page's end. */
  static final String FULL_RESULTS = "## Full results (seed 1)\n\n";

  /** What regenerates the page's results (docs/simulation.md, "Results"). */
  static final String REGENERATE =
      """
      ./anteroom simulate --scenario all --out target/simulation
      cp target/simulation/img/sim-*.png docs/img/
      """;

  private static final String HOW =
      "regenerate the page: run\n"
          + REGENERATE.indent(4)
          + "replace everything below '"
          + FULL_RESULTS.strip()
          + "' in docs/simulation.md with target/simulation/report.md, and update the figures the"
          + " page quotes from it (the targets and place-in-line tables, the run's date)";

  /**
   * The whole run of the documented command, 54 simulations (13 s on 2 quiet cores, 31 s on busy
   * ones), so slow: {@code ./mvnw -pl sim -am verify -Pslow -Dtest=SimulationPageTest}.
   */
  @Tag("slow")
  @Test
  void thePagesFullResultsAreTheReportOfTheDocumentedCommand(@TempDir Path out) throws IOException {
    StringWriter stdout = new StringWriter();
    StringWriter stderr = new StringWriter();
    CommandLine command =
        new CommandLine(new SimulateCommand())
            .setOut(new PrintWriter(stdout))
            .setErr(new PrintWriter(stderr));
    // the first line of REGENERATE, with its --out in the test's directory
    int code = command.execute("--scenario", "all", "--out", out.toString());
    assertThat(code).as(stderr.toString()).isZero();

    List<String> report = Files.readString(out.resolve("report.md")).lines().toList();
    String page = Files.readString(PAGE);
    int at = page.indexOf(FULL_RESULTS);
    assertThat(at)
        .as("docs/simulation.md has a section '%s'", FULL_RESULTS.strip())
        .isNotNegative();
    int firstLine = (int) page.substring(0, at + FULL_RESULTS.length()).lines().count() + 1;
    List<String> shown = page.substring(at + FULL_RESULTS.length()).lines().toList();

    List<String> differences = new ArrayList<>();
    for (int i = 0; i < Math.max(report.size(), shown.size()); i++) {
      String was = i < shown.size() ? shown.get(i) : "(no line)";
      String now = i < report.size() ? report.get(i) : "(no line)";
      if (!was.equals(now)) {
        differences.add(
            String.format(
                Locale.ROOT,
                "docs/simulation.md:%d%n  page:      %s%n  simulator: %s",
                firstLine + i,
                was,
                now));
      }
    }
    assertThat(differences)
        .withFailMessage(
            "docs/simulation.md's full results are stale: %d line(s) differ from what the"
                + " simulator writes now; the first %d:%n%s%n%s",
            differences.size(),
            Math.min(5, differences.size()),
            String.join("\n", differences.subList(0, Math.min(5, differences.size()))),
            HOW)
        .isEmpty();
  }

  /**
   * The targets table quotes, for every scenario without an outage, the counters' row of the full
   * results below it: peak, largest minute, users queued and queued below 95 % at the instant, not
   * overtaken on seed 1 and the median wait error (the mean over ten seeds is
   * CountersTargetsTest's). Fast: it reads the page only; the full results themselves are checked
   * against the simulator by the slow test above.
   */
  @Test
  void theTargetsTableQuotesTheCountersRowsOfTheFullResults() throws IOException {
    String page = Files.readString(PAGE);
    Map<String, Map<String, String>> counters = countersRows(page);
    assertThat(counters).as("the counters' rows of the full results").hasSizeGreaterThan(6);

    List<List<String>> table = table(page, "### Counters against the targets", false);
    assertThat(table).as("the targets table").hasSizeGreaterThan(6);
    List<String> wrong = new ArrayList<>();
    for (List<String> cells : table) {
      String scenario = cells.get(0);
      Map<String, String> r = counters.get(scenario);
      if (r == null) {
        wrong.add(scenario + ": no such scenario in the full results");
        continue;
      }
      boolean nMet = r.get("min>1.05N").equals("0");
      boolean queuedMet = r.get("<95% for R+2s").equals("0.0%");
      List<String> expected =
          List.of(
              r.get("peak/T"),
              (nMet ? "met" : "missed") + " (max " + r.get("max adm/N") + " N)",
              (queuedMet ? "met: 0 of " : "missed: ")
                  + (queuedMet ? grouped(r.get("queued")) + "; " : "")
                  + spaced(r.get("queued<95%"))
                  + " at the instant",
              spaced(r.get("not overtaken")),
              spaced(r.get("wait err median")));
      for (int i = 0; i < expected.size(); i++) {
        String cell = cells.get(i + 1);
        if (!cell.startsWith(expected.get(i))) {
          wrong.add(
              String.format(
                  Locale.ROOT,
                  "%s, column %d: '%s' does not start with '%s'",
                  scenario,
                  i + 2,
                  cell,
                  expected.get(i)));
        }
      }
    }
    assertThat(wrong)
        .withFailMessage(
            "docs/simulation.md's targets table does not quote the counters' rows of its full"
                + " results:%n%s%n%s",
            String.join("\n", wrong), HOW)
        .isEmpty();
  }

  /**
   * The place-in-line table of the section "Place in line" quotes, for each scenario and strategy,
   * the median and 90th percentile of the full results' place-in-line table.
   */
  @Test
  void thePlaceInLineTableQuotesTheFullResults() throws IOException {
    String page = Files.readString(PAGE);
    String full = page.substring(page.indexOf(FULL_RESULTS));
    List<List<String>> fullTable = table(full, "### Place-in-line error per scenario", true);
    List<List<String>> shown = table(page, "## Place in line", true);
    assertThat(shown).as("the place-in-line table").hasSizeGreaterThan(7);
    List<String> fullHeader = fullTable.get(0);
    List<String> shownHeader = shown.get(0);
    List<String> wrong = new ArrayList<>();
    for (List<String> cells : shown.subList(1, shown.size())) {
      List<String> of =
          fullTable.stream().filter(r -> r.get(0).equals(cells.get(0))).findFirst().orElse(null);
      if (of == null) {
        wrong.add(cells.get(0) + ": no such scenario in the full results");
        continue;
      }
      for (int i = 1; i < cells.size(); i++) {
        String strategy = shownHeader.get(i);
        int column = fullHeader.indexOf(strategy);
        if (column < 0) {
          wrong.add(strategy + ": no such strategy in the full results");
          continue;
        }
        String cell = of.get(column); // "5.5% / 7.6% (100% of 12633 as one number, ...)" or "-"
        String figures = spaced(cell.contains(" (") ? cell.substring(0, cell.indexOf(" (")) : cell);
        if (!cells.get(i).startsWith(figures)) {
          wrong.add(
              String.format(
                  Locale.ROOT,
                  "%s, %s: '%s' does not start with '%s'",
                  cells.get(0),
                  strategy,
                  cells.get(i),
                  figures));
        }
      }
    }
    assertThat(wrong)
        .withFailMessage(
            "docs/simulation.md's place-in-line table does not quote its full results:%n%s%n%s",
            String.join("\n", wrong), HOW)
        .isEmpty();
  }

  /** Scenario to the counters' row of its full-results table, column name to cell. */
  private static Map<String, Map<String, String>> countersRows(String page) {
    String full = page.substring(page.indexOf(FULL_RESULTS));
    Map<String, Map<String, String>> rows = new LinkedHashMap<>();
    String scenario = null;
    List<String> columns = List.of(Report.COLUMNS);
    for (String line : full.lines().toList()) {
      if (line.startsWith("### ")) {
        scenario = line.substring(4).strip();
      } else if (scenario != null && line.startsWith("|counters|")) {
        List<String> cells = cells(line);
        assertThat(cells).as(line).hasSameSizeAs(columns);
        Map<String, String> row = new LinkedHashMap<>();
        for (int i = 0; i < columns.size(); i++) {
          row.put(columns.get(i), cells.get(i));
        }
        rows.put(scenario, row);
      }
    }
    return rows;
  }

  /**
   * The first Markdown table after a heading, each row as its cells, without the separator row;
   * with its header row first, or without it.
   */
  private static List<List<String>> table(String text, String heading, boolean withHeader) {
    int at = text.indexOf(heading);
    assertThat(at).as("docs/simulation.md has a section '%s'", heading).isNotNegative();
    List<List<String>> rows = new ArrayList<>();
    boolean inTable = false;
    for (String line : text.substring(at + heading.length()).lines().toList()) {
      if (line.startsWith("|")) {
        inTable = true;
        rows.add(cells(line));
      } else if (inTable) {
        break;
      }
    }
    if (rows.size() < 2) {
      return List.of();
    }
    List<List<String>> body = new ArrayList<>(rows.subList(2, rows.size()));
    if (withHeader) {
      body.add(0, rows.get(0));
    }
    return body;
  }

  private static List<String> cells(String line) {
    String inner = line.strip().substring(1, line.strip().length() - 1);
    return List.of(inner.split("\\|", -1)).stream().map(String::strip).toList();
  }

  /** {@code 99.45%} as the page's prose writes it, {@code 99.45 %}. */
  private static String spaced(String percent) {
    return percent.replace("%", " %");
  }

  /** {@code 14722} as the page writes it, {@code 14,722}. */
  private static String grouped(String count) {
    return String.format(Locale.ROOT, "%,d", Long.parseLong(count));
  }
}
