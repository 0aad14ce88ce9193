package io.anteroom.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ReportTest {
  @Test
  void theTerminalsTablesShowEveryColumnOfTheReportOnce() {
    List<String> shown =
        Report.TEXT_GROUPS.stream().flatMap(g -> g.subList(1, g.size()).stream()).toList();

    assertThat(shown)
        .containsExactlyInAnyOrderElementsOf(
            List.of(Report.COLUMNS).subList(1, Report.COLUMNS.length));
  }

  @Test
  void aTableTooWideForTheTerminalContinuesBelowWithItsLabelsAgain() {
    StringBuilder out = new StringBuilder();
    List<String> headers = List.of("a".repeat(40), "b".repeat(40), "c".repeat(40));

    TextTable.append(
        out, "corner", List.of("one", "two"), headers, List.of(headers, List.of("1", "2", "3")));

    assertThat(out.toString().lines()).allMatch(l -> l.length() <= TextTable.WIDTH).hasSize(6);
    assertThat(out.toString().lines().filter(l -> l.startsWith("two "))).hasSize(2);
  }

  @Test
  void wrappingBreaksAtSpacesAndIndentsTheFollowingLines() {
    String text = "word ".repeat(50).strip();

    String wrapped = TextTable.wrap(text, "    ");

    assertThat(wrapped.lines()).allMatch(l -> l.length() <= TextTable.WIDTH).hasSizeGreaterThan(2);
    assertThat(wrapped.lines().skip(1)).allMatch(l -> l.startsWith("    word"));
    assertThat(wrapped.replaceAll("\\s+", " ")).isEqualTo(text);
  }
}
