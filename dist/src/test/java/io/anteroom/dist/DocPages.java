package io.anteroom.dist;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The doc-test convention, in one place: the fenced blocks of README.md, docs/*.md and
 * examples/NAME/README.md and what a test does with each, said by an HTML comment on the line
 * before the fence (blank lines and other comments may stand between):
 *
 * <ul>
 *   <li>{@code <!-- doc-test: run -->}: the block's commands run, in order with the page's other
 *       {@code run} blocks, in one bash session ({@code set -e}) in an empty directory of the page
 *       where {@code ./anteroom} and {@code anteroom} are the built distribution's launcher and
 *       every {@code <!-- file: NAME -->} block of the page is written as NAME ({@link
 *       DocPagesIT}). Each {@code 127.0.0.1:PORT} of the page's commands and files is moved to a
 *       free port, and moved back in the output compared.
 *   <li>{@code <!-- doc-test: output -->}: the block quotes what the last {@code run} block before
 *       it printed; {@code <!-- doc-test: output of FILE -->}: what FILE (in the page's directory)
 *       holds after it. Each non-blank line of the block must match a line of the output, in order;
 *       blanks match any run of blanks, and {@code ...} stands for any text (times, process ids,
 *       directories, elided columns).
 *   <li>{@code <!-- doc-test: checked-by FILE -->}: every command line of the block is, verbatim, a
 *       line of the repository's FILE (for instance {@code .ci/run}, which CI runs).
 *   <li>{@code <!-- doc-test: not-runnable: REASON -->}: reviewed, with the reason, as a command a
 *       test on one host cannot run (a systemd, a real host, a build of its own).
 *   <li>{@code <!-- doc-test: slow -->} anywhere on a page: its {@code run} blocks run in the slow
 *       suite only.
 * </ul>
 *
 * <p>Every block fenced as a shell block (no language, {@code sh}, {@code bash}, {@code shell},
 * {@code console}) must carry one of these ({@link DocMarkersTest}); diagrams and formulas are
 * fenced {@code text}.
 */
final class DocPages {
  /** The project's root, seen from the dist module. */
  static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  static final Set<String> SHELL = Set.of("", "sh", "bash", "shell", "console");

  private static final Pattern MARKER = Pattern.compile("<!--\\s*doc-test:\\s*(.*?)\\s*-->");
  private static final Pattern FILE_MARKER = Pattern.compile("<!--\\s*file:\\s*([\\w.-]+)\\s*-->");

  private DocPages() {}

  enum Kind {
    RUN,
    OUTPUT,
    CHECKED_BY,
    NOT_RUNNABLE,
    /** A marker this convention does not know: a test reports it. */
    UNKNOWN
  }

  /** A doc-test marker: its kind and its argument (a file name, a reason), or none. */
  record Marker(Kind kind, String argument, String text) {
    static Marker parse(String text) {
      if (text.equals("run")) {
        return new Marker(Kind.RUN, "", text);
      }
      if (text.equals("output")) {
        return new Marker(Kind.OUTPUT, "", text);
      }
      if (text.startsWith("output of ")) {
        return new Marker(Kind.OUTPUT, text.substring("output of ".length()).strip(), text);
      }
      if (text.startsWith("checked-by ")) {
        return new Marker(Kind.CHECKED_BY, text.substring("checked-by ".length()).strip(), text);
      }
      if (text.startsWith("not-runnable:")) {
        return new Marker(
            Kind.NOT_RUNNABLE, text.substring("not-runnable:".length()).strip(), text);
      }
      return new Marker(Kind.UNKNOWN, "", text);
    }
  }

  /** One fenced block: where it starts (the fence's line, from 1), its language and marker. */
  record Block(String page, int line, String lang, Marker marker, String fileName, String text) {
    String where() {
      return page + ":" + line;
    }

    boolean shell() {
      return SHELL.contains(lang);
    }

    /** The block's lines, continuation lines joined. */
    List<String> commandLines() {
      List<String> lines = new ArrayList<>();
      for (String l : text.replaceAll("\\\\\\n\\s*", " ").split("\n")) {
        if (!l.isBlank()) {
          lines.add(l.strip());
        }
      }
      return lines;
    }
  }

  /** One Markdown page: its name (relative to the root), its blocks, and whether it is slow. */
  record Page(String name, List<Block> blocks, boolean slow) {
    List<Block> runBlocks() {
      return blocks.stream()
          .filter(b -> b.marker() != null && b.marker().kind() == Kind.RUN)
          .toList();
    }

    /** The page's {@code <!-- file: NAME -->} blocks, by name. */
    Map<String, String> files() {
      Map<String, String> files = new LinkedHashMap<>();
      for (Block b : blocks) {
        if (b.fileName() != null) {
          files.put(b.fileName(), b.text());
        }
      }
      return files;
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /** README.md, every docs/*.md and the README.md of every example (examples/NAME/README.md). */
  static List<Page> all() {
    List<Path> paths = new ArrayList<>(List.of(ROOT.resolve("README.md")));
    try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(paths::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (Files.isDirectory(ROOT.resolve("examples"))) {
      try (Stream<Path> examples = Files.list(ROOT.resolve("examples"))) {
        examples
            .map(e -> e.resolve("README.md"))
            .filter(Files::isRegularFile)
            .sorted()
            .forEach(paths::add);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    List<Page> pages = new ArrayList<>();
    for (Path p : paths) {
      try {
        pages.add(
            parse(ROOT.relativize(p).toString(), Files.readString(p, StandardCharsets.UTF_8)));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return pages;
  }

  /** The page named (relative to the root). */
  static Page page(String name) {
    return all().stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow();
  }

  /** Reads the fenced blocks of one Markdown text. */
  static Page parse(String name, String markdown) {
    List<String> lines = List.of(markdown.split("\n", -1));
    List<Block> blocks = new ArrayList<>();
    boolean slow = false;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.equals("<!-- doc-test: slow -->")) {
        slow = true;
      }
      if (!line.startsWith("```")) {
        continue;
      }
      String lang = line.substring(3).strip();
      Marker marker = null;
      String fileName = null;
      for (int back = i - 1; back >= 0; back--) {
        String above = lines.get(back).strip();
        if (above.isEmpty()) {
          continue;
        }
        Matcher m = MARKER.matcher(above);
        Matcher f = FILE_MARKER.matcher(above);
        if (m.matches() && !m.group(1).equals("slow")) {
          marker = marker != null ? marker : Marker.parse(m.group(1)); // the nearest one counts
        } else if (f.matches()) {
          fileName = f.group(1);
        } else if (!(above.startsWith("<!--") && above.endsWith("-->"))) {
          break;
        }
      }
      int start = i + 1;
      String indent = lines.get(i).substring(0, lines.get(i).indexOf('`'));
      StringBuilder text = new StringBuilder();
      for (i = i + 1; i < lines.size() && !lines.get(i).strip().startsWith("```"); i++) {
        String l = lines.get(i);
        text.append(l.startsWith(indent) ? l.substring(indent.length()) : l.strip()).append('\n');
      }
      blocks.add(new Block(name, start, lang, marker, fileName, text.toString()));
    }
    return new Page(name, blocks, slow);
  }
}
