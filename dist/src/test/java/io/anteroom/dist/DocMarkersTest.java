package io.anteroom.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * No shell block of README.md, docs/*.md or an example's README.md goes unchecked without saying
 * so: each one is run by {@link DocPagesIT}, quoted output it compares, a command CI runs verbatim,
 * or reviewed as not runnable here with its reason (the convention: {@link DocPages}). Also the
 * convention's own pieces: its parser and its comparison of quoted output.
 */
class DocMarkersTest {

  /** Every unmarked shell block and every malformed marker of the pages, with where it is. */
  static List<String> problems(List<DocPages.Page> pages) throws IOException {
    List<String> problems = new ArrayList<>();
    for (DocPages.Page page : pages) {
      boolean ranBefore = false;
      for (DocPages.Block b : page.blocks()) {
        DocPages.Marker m = b.marker();
        if (m == null) {
          if (b.shell()) {
            problems.add(
                b.where()
                    + ": a shell block without a doc-test marker (run, output, checked-by FILE,"
                    + " not-runnable: REASON): "
                    + b.text().lines().findFirst().orElse(""));
          }
          continue;
        }
        switch (m.kind()) {
          case RUN -> ranBefore = true;
          case OUTPUT -> {
            if (!ranBefore) {
              problems.add(b.where() + ": output of no run block before it");
            }
          }
          case NOT_RUNNABLE -> {
            if (m.argument().length() < 10) {
              problems.add(b.where() + ": not-runnable without a reason");
            }
          }
          case CHECKED_BY -> {
            Path file = DocPages.ROOT.resolve(m.argument());
            if (!Files.isRegularFile(file)) {
              problems.add(b.where() + ": checked-by " + m.argument() + ": no such file");
            } else {
              Set<String> lines = new HashSet<>();
              Files.readAllLines(file).forEach(l -> lines.add(bare(l)));
              for (String command : b.commandLines()) {
                String bare = bare(command);
                if (!lines.contains(bare)) {
                  problems.add(b.where() + ": `" + bare + "` is not a line of " + m.argument());
                }
              }
            }
          }
          case UNKNOWN -> problems.add(b.where() + ": unknown doc-test marker '" + m.text() + "'");
        }
      }
    }
    return problems;
  }

  /** A command line without its trailing comment. */
  private static String bare(String line) {
    return line.replaceAll("\\s+#.*$", "").strip();
  }

  @Test
  void everyShellBlockOfTheDocsIsRunQuotedCheckedOrMarkedNotRunnable() throws IOException {
    List<DocPages.Page> pages = DocPages.all();
    assertThat(pages)
        .extracting(DocPages.Page::name)
        .contains("README.md", "docs/cluster.md", "examples/spring-boot-shop/README.md");
    assertThat(problems(pages)).isEmpty();
  }

  @Test
  void theDocsRunAndQuoteWhatTheyShow() {
    Map<String, Integer> byKind = new TreeMap<>();
    for (DocPages.Page page : DocPages.all()) {
      for (DocPages.Block b : page.blocks()) {
        if (b.marker() != null) {
          byKind.merge(b.marker().kind().name(), 1, Integer::sum);
        }
      }
    }
    assertThat(byKind).containsKeys("RUN", "OUTPUT", "NOT_RUNNABLE");
    assertThat(DocPages.page("docs/cluster.md").slow()).isTrue();
    assertThat(DocPages.page("docs/cluster.md").runBlocks()).hasSizeGreaterThanOrEqualTo(4);
    assertThat(DocPages.page("docs/sizing.md").runBlocks()).isNotEmpty();
  }

  @Test
  void anUnmarkedShellBlockIsReportedWithItsPlaceAndAMarkedOneIsNot() throws IOException {
    DocPages.Page page =
        DocPages.parse(
            "docs/new.md",
            """
            # A new page

            ```
            ./anteroom run --origin http://127.0.0.1:3000
            ```

            <!-- doc-test: not-runnable: needs the operator's own origin on port 3000 -->
            ```sh
            ./anteroom run --origin http://127.0.0.1:3000
            ```

            ```text
            client -> gateway -> origin
            ```

            <!-- doc-test: runs -->
            ```
            ./anteroom --help
            ```

            <!-- doc-test: output -->
            ```
            anteroom
            ```
            """);
    assertThat(problems(List.of(page)))
        .containsExactly(
            "docs/new.md:3: a shell block without a doc-test marker (run, output, checked-by FILE,"
                + " not-runnable: REASON): ./anteroom run --origin http://127.0.0.1:3000",
            "docs/new.md:17: unknown doc-test marker 'runs'",
            "docs/new.md:22: output of no run block before it");
  }

  @Test
  void aCheckedByBlockMustBeVerbatimInTheFileItNames() throws IOException {
    DocPages.Page right =
        DocPages.parse("README.md", "<!-- doc-test: checked-by .ci/run -->\n```\n./test\n```\n");
    DocPages.Page wrong =
        DocPages.parse(
            "README.md", "<!-- doc-test: checked-by .ci/run -->\n```\n./test -DskipTests\n```\n");
    assertThat(problems(List.of(right))).isEmpty();
    assertThat(problems(List.of(wrong)))
        .containsExactly("README.md:2: `./test -DskipTests` is not a line of .ci/run");
  }

  @Test
  void markersAndFileNamesAboveAFenceAreReadAndIndentedBlocksLoseTheirIndent() {
    DocPages.Page page =
        DocPages.parse(
            "p.md",
            """
            1. Start it:

               <!-- doc-test: run -->
               <!-- file: x.yaml -->

               ```sh
               ./anteroom --help
               ```
            """);
    DocPages.Block b = page.blocks().getFirst();
    assertThat(b.marker().kind()).isEqualTo(DocPages.Kind.RUN);
    assertThat(b.fileName()).isEqualTo("x.yaml");
    assertThat(b.text()).isEqualTo("./anteroom --help\n");
    assertThat(b.line()).isEqualTo(6);
  }

  @Test
  void aQuotedOutputMatchesWhatWasPrintedWithBlanksAndEllipsesAndPortsMovedBack() {
    String printed =
        """
        anteroom coordinator c1 of cluster anteroom on https://127.0.0.1:41001 (raft 127.0.0.1:41002 plain text, this host only, 3 peers)
        2026-11-29T07:08:10.870Z WARN  RaftServer - something
        anteroom coordinator: peer c2 leads shard 0 (term 3): serving its objects
        counters   1.006  1.004      0       1.00     15.7%     -15.7%
        """;
    Map<Integer, Integer> back = Map.of(41001, 7081, 41002, 7071);
    assertThat(
            DocOutput.unmatched(
                """
                anteroom coordinator c1 of cluster anteroom on https://127.0.0.1:7081 (raft 127.0.0.1:7071 ...)
                anteroom coordinator: peer ... leads shard 0 (term ...): serving its objects
                counters 1.006 1.004 0 1.00 ... 15.7% -15.7%
                """,
                printed, back))
        .isEmpty();
  }

  @Test
  void aWrongQuoteIsReported() {
    String printed = "counters   1.006  1.004      0       1.00     15.7%     -15.7%\n";
    // the figures docs/sizing.md quoted before the simulator changed
    assertThat(
            DocOutput.unmatched(
                "counters   1.006  1.004      0       1.00  ...  21.3%     +14.7%\n",
                printed, Map.of()))
        .containsExactly("counters   1.006  1.004      0       1.00  ...  21.3%     +14.7%");
    // a line the program no longer writes, and a port that is not the documented one
    assertThat(
            DocOutput.unmatched(
                "peer c1 leads shard 0 (term 3): serving its objects\n",
                "anteroom coordinator: peer c1 leads shard 0 (term 3): serving its objects\n",
                Map.of()))
        .hasSize(1);
    assertThat(
            DocOutput.unmatched(
                "listening on 127.0.0.1:7081\n",
                "listening on 127.0.0.1:41009\n",
                Map.of(41001, 7081)))
        .hasSize(1);
  }

  @Test
  void aPageRunsOnFreePortsWhereverItNamesADocumentedPortAndPrintsMoveBack() {
    Map<Integer, Integer> ports = Map.of(8000, 23001, 7081, 23002);
    assertThat(
            DocOutput.movePorts(
                "origin: http://127.0.0.1:8000\n"
                    + "python3 -m http.server --bind 127.0.0.1 8000 # not 18000, 80000 or 1.8000\n"
                    + "--coordinator https://127.0.0.1:7081,https://127.0.0.1:7082\n",
                ports))
        .isEqualTo(
            "origin: http://127.0.0.1:23001\n"
                + "python3 -m http.server --bind 127.0.0.1 23001 # not 18000, 80000 or 1.8000\n"
                + "--coordinator https://127.0.0.1:23002,https://127.0.0.1:7082\n");
    assertThat(
            DocOutput.portsBack(
                "on https://127.0.0.1:23002 (raft 127.0.0.1:9)", Map.of(23002, 7081)))
        .isEqualTo("on https://127.0.0.1:7081 (raft 127.0.0.1:9)");
  }

  @Test
  void quotedLinesMustComeInTheirOrder() {
    assertThat(DocOutput.unmatched("b\na\n", "a\nb\n", Map.of())).containsExactly("a");
  }
}
