package io.anteroom.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The documentation cannot drift from the program: every {@code ./anteroom ...} or {@code
 * bin/anteroom ...} command line of README.md, CHANGELOG.md and docs/*.md (in code blocks and in
 * inline code) names a command that the installed {@code bin/anteroom --help} lists and only
 * options that the command's own {@code --help} lists; the safe ones run ({@code --help}, {@code
 * help COMMAND}, {@code check --config}, {@code simulate --list} and {@code simulate --config});
 * and every YAML block that is a whole configuration passes {@code check}.
 *
 * <p>Files the commands name come from the docs themselves: a YAML block right after a line {@code
 * <!-- file: NAME -->} is written as NAME into the directory the commands run in, next to the
 * distribution's sample {@code anteroom.yaml}. A file named {@code broken-...} is an invalid
 * configuration that {@code check} must refuse (exit code 2).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DocumentedCommandsIT {
  /** The project's root, seen from the dist module. */
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  private static final Pattern INVOCATION =
      Pattern.compile("(?:^|[\\s=(])(?:\\./anteroom|[\\w./-]*bin/anteroom)(?=\\s|$)([^\\n]*)");
  private static final Pattern INLINE_CODE = Pattern.compile("`([^`]+)`");
  private static final Pattern OPTION = Pattern.compile("^\\[?(--?[A-Za-z][\\w-]*)");
  private static final Pattern FILE_MARKER = Pattern.compile("<!-- file: ([\\w.-]+) -->");

  /** A file block named {@code broken-...} is an invalid configuration a page shows refused. */
  private static final String BROKEN = "broken-";

  /** One documented command line: where it is, and the words after {@code anteroom}. */
  record Documented(String where, List<String> words) {
    String subcommand() {
      String first = words.isEmpty() ? "" : strip(words.get(0));
      return first.startsWith("-") || first.isEmpty() ? "" : first;
    }

    List<String> options() {
      List<String> options = new ArrayList<>();
      for (String w : words) {
        Matcher m = OPTION.matcher(w);
        if (m.find()) {
          options.add(m.group(1));
        }
      }
      return options;
    }

    String value(String option) {
      for (int i = 0; i < words.size(); i++) {
        String w = words.get(i);
        if (w.equals(option) && i + 1 < words.size()) {
          return words.get(i + 1);
        }
        if (w.startsWith(option + "=")) {
          return w.substring(option.length() + 1);
        }
      }
      return null;
    }
  }

  /** A YAML block of the docs. */
  record YamlBlock(String where, String fileName, String text) {}

  private Path home;
  private Path work;
  private final List<Documented> commands = new ArrayList<>();
  private final List<YamlBlock> yamlBlocks = new ArrayList<>();
  private final Map<String, String> helpBySubcommand = new HashMap<>();

  @BeforeAll
  void unpackAndReadTheDocs(@TempDir Path dir) throws Exception {
    Path tarball = Path.of(System.getProperty("dist.tarball"));
    Process tar =
        new ProcessBuilder("tar", "-xzf", tarball.toString(), "-C", dir.toString())
            .redirectErrorStream(true)
            .start();
    assertThat(tar.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(tar.exitValue()).isZero();
    home = dir.resolve("anteroom-" + System.getProperty("dist.version"));
    work = Files.createDirectories(dir.resolve("work"));
    Files.copy(home.resolve("anteroom.yaml"), work.resolve("anteroom.yaml"));

    List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
    pages.add(ROOT.resolve("CHANGELOG.md"));
    try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    for (Path page : pages) {
      read(page);
    }
    for (YamlBlock y : yamlBlocks) {
      if (y.fileName() != null) {
        Files.writeString(work.resolve(y.fileName()), y.text());
      }
    }
  }

  /** Collects the commands and YAML blocks of one Markdown page. */
  private void read(Path page) throws IOException {
    String name = ROOT.relativize(page).toString();
    List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
    StringBuilder prose = new StringBuilder();
    int proseStart = 1;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (!line.strip().startsWith("```")) {
        prose.append(line).append(' ');
        continue;
      }
      inlineCommands(name + ":" + proseStart, prose.toString());
      prose.setLength(0);
      String lang = line.strip().substring(3).strip();
      String marker = null;
      for (int back = i - 1; back >= 0 && back >= i - 2; back--) {
        Matcher m = FILE_MARKER.matcher(lines.get(back));
        if (m.find()) {
          marker = m.group(1);
        }
      }
      StringBuilder block = new StringBuilder();
      int start = i + 1;
      for (i = i + 1; i < lines.size() && !lines.get(i).strip().startsWith("```"); i++) {
        block.append(lines.get(i)).append('\n');
      }
      proseStart = i + 2;
      String where = name + ":" + start;
      if (lang.equals("yaml")) {
        yamlBlocks.add(new YamlBlock(where, marker, block.toString()));
      } else if (!lang.equals("java") && !lang.equals("xml") && !lang.equals("text")) {
        String joined = block.toString().replaceAll("\\\\\\n\\s*", " ");
        for (String l : joined.split("\n")) {
          Matcher m = INVOCATION.matcher(l);
          while (m.find()) {
            add(where, m.group(1));
          }
        }
      }
    }
    inlineCommands(name + ":" + proseStart, prose.toString());
  }

  private void inlineCommands(String where, String text) {
    Matcher code = INLINE_CODE.matcher(text);
    while (code.find()) {
      Matcher m = INVOCATION.matcher(code.group(1));
      if (m.find()) {
        add(where, m.group(1));
      }
    }
  }

  /** The words of a command line, up to a comment, pipe, redirection or the next command. */
  private void add(String where, String rest) {
    List<String> words = new ArrayList<>();
    for (String w : shellWords(rest)) {
      if (w.startsWith("#")
          || w.equals("|")
          || w.equals("&&")
          || w.equals("||")
          || w.equals(";")
          || w.equals(">")
          || w.startsWith(">")
          || w.startsWith("2>")) {
        break;
      }
      words.add(w);
    }
    commands.add(new Documented(where, words));
  }

  /** Splits like a shell: blanks separate words; single and double quotes group. */
  static List<String> shellWords(String line) {
    List<String> words = new ArrayList<>();
    StringBuilder w = new StringBuilder();
    boolean inWord = false;
    char quote = 0;
    for (char c : line.toCharArray()) {
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        } else {
          w.append(c);
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
        inWord = true;
      } else if (Character.isWhitespace(c)) {
        if (inWord) {
          words.add(w.toString());
          w.setLength(0);
          inWord = false;
        }
      } else {
        w.append(c);
        inWord = true;
      }
    }
    if (inWord) {
      words.add(w.toString());
    }
    return words;
  }

  /** An upper-case word such as COMMAND or FILE stands for what the reader fills in. */
  private static boolean placeholder(String word) {
    return !word.isEmpty() && word.equals(word.toUpperCase());
  }

  private static String strip(String word) {
    return word.replaceAll("^\\[|]$", "");
  }

  private record Result(int code, String out) {}

  private Result anteroom(List<String> args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(home.resolve("bin/anteroom").toString());
    cmd.addAll(args);
    ProcessBuilder b = new ProcessBuilder(cmd).directory(work.toFile()).redirectErrorStream(true);
    b.environment().put("ANTEROOM_AOT", "off");
    Process p = b.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(5, TimeUnit.MINUTES)).as("%s finished", args).isTrue();
    return new Result(p.exitValue(), out);
  }

  private String help(String subcommand) throws Exception {
    if (!helpBySubcommand.containsKey(subcommand)) {
      List<String> args = new ArrayList<>();
      if (!subcommand.isEmpty()) args.addAll(List.of(subcommand.split(" ")));
      args.add("--help");
      Result r = anteroom(args);
      assertThat(r.code()).as("anteroom %s --help: %s", subcommand, r.out()).isZero();
      helpBySubcommand.put(subcommand, r.out());
    }
    return helpBySubcommand.get(subcommand);
  }

  /** The commands listed by {@code anteroom --help}. */
  private Set<String> subcommands() throws Exception {
    return subcommands("");
  }

  /** The commands listed by {@code anteroom COMMAND --help} (those of a command of commands). */
  private Set<String> subcommands(String command) throws Exception {
    Set<String> names = new TreeSet<>();
    boolean inCommands = false;
    for (String line : help(command).split("\n")) {
      if (line.startsWith("Commands:")) {
        inCommands = true;
      } else if (inCommands) {
        Matcher m = Pattern.compile("^  ([a-z][a-z-]*)\\s").matcher(line);
        if (m.find()) {
          names.add(m.group(1));
        } else if (line.isBlank()) {
          inCommands = false;
        }
      }
    }
    return names;
  }

  @Test
  void theDocsAreReadAtAll() {
    assertThat(commands).as("documented command lines").hasSizeGreaterThan(30);
    assertThat(commands)
        .extracting(Documented::subcommand)
        .contains("run", "demo", "coordinator", "gateway", "check", "simulate");
    assertThat(yamlBlocks).extracting(YamlBlock::fileName).contains("sale.yaml");
  }

  @Test
  void everyDocumentedCommandAndOptionIsInTheHelp() throws Exception {
    Set<String> known = subcommands();
    assertThat(known).contains("run", "demo", "coordinator", "gateway", "check", "simulate");
    Map<String, List<String>> problems = new LinkedHashMap<>();
    for (Documented d : commands) {
      String sub = d.subcommand();
      List<String> wrong = new ArrayList<>();
      if (sub.equals("help")) {
        String of = d.words().size() > 1 ? strip(d.words().get(1)) : "";
        if (!of.isEmpty() && !placeholder(of) && !known.contains(of)) {
          wrong.add("no command " + of);
        }
      } else if (!sub.isEmpty() && !placeholder(sub) && !known.contains(sub)) {
        wrong.add("no command " + sub);
      } else if (!placeholder(sub)) {
        // a command of commands (pass-keys rotate, cluster add): the options are its command's
        String second = d.words().size() > 1 ? strip(d.words().get(1)) : "";
        String help =
            !second.isEmpty() && subcommands(sub).contains(second)
                ? help(sub + " " + second)
                : help(sub);
        for (String option : d.options()) {
          if (!Pattern.compile("(?<![\\w-])" + Pattern.quote(option) + "(?![\\w-])")
              .matcher(help)
              .find()) {
            wrong.add(option + " is not an option of 'anteroom " + sub + "'");
          }
        }
      }
      if (!wrong.isEmpty()) {
        problems.put(d.where() + " `anteroom " + String.join(" ", d.words()) + "`", wrong);
      }
    }
    assertThat(problems).as("documented commands that do not exist").isEmpty();
  }

  @Test
  void theSafeDocumentedCommandsRun() throws Exception {
    Map<String, Integer> ran = new java.util.TreeMap<>();
    Set<List<String>> done = new java.util.HashSet<>();
    for (Documented d : commands) {
      List<String> args = d.words();
      if (!done.add(args)) {
        continue; // the same command documented twice runs once
      }
      String sub = d.subcommand();
      boolean helpOnly =
          args.contains("--help")
              && args.stream().allMatch(w -> w.equals("--help") || w.equals(sub))
              && !placeholder(sub);
      boolean helpOf = sub.equals("help") && args.size() == 2 && !placeholder(strip(args.get(1)));
      boolean checkOfAFile = sub.equals("check") && existing(d.value("--config"));
      boolean list = sub.equals("simulate") && args.equals(List.of("simulate", "--list"));
      if (helpOnly || helpOf || checkOfAFile || list) {
        Result r = anteroom(args);
        boolean broken = checkOfAFile && d.value("--config").startsWith(BROKEN);
        assertThat(r.code())
            .as("%s: anteroom %s\n%s", d.where(), args, r.out())
            .isEqualTo(broken ? 2 : 0);
        ran.merge(helpOnly || helpOf ? "help" : sub, 1, Integer::sum);
      }
    }
    assertThat(ran)
        .as("documented commands run, by kind")
        .containsKeys("help", "check", "simulate");
  }

  /** Runs the documented simulations of a room of a documented configuration (a few minutes). */
  @Tag("slow")
  @Test
  void theDocumentedSimulationsOfAConfigurationRun() throws Exception {
    int ran = 0;
    for (Documented d : commands) {
      if (d.subcommand().equals("simulate") && existing(d.value("--config"))) {
        Result r = anteroom(d.words());
        assertThat(r.code()).as("%s: anteroom %s\n%s", d.where(), d.words(), r.out()).isZero();
        assertThat(r.out()).contains("scenario room-", "wait p50");
        ran++;
      }
    }
    assertThat(ran).as("documented simulations of a configuration").isGreaterThanOrEqualTo(2);
  }

  /**
   * The configuration with each key or secret file it names that this host lacks ({@code keyFile:
   * /etc/anteroom/monitor.key}, {@code hs256SecretFile: ...}: the operator makes those) replaced by
   * one made here, holding 32 random bytes in base64 as the docs say to make them.
   */
  private String withOperatorsKeyFiles(String yaml) throws IOException {
    Matcher m = Pattern.compile("(\\w*(?:keyFile|[sS]ecretFile)):\\s*([^\\s,}]+)").matcher(yaml);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      Path named = work.resolve(m.group(2)); // a relative one: from where check runs
      String path = m.group(2);
      if (!Files.exists(named)) {
        Path made =
            Files.createDirectories(work.resolve("operator-keys")).resolve(named.getFileName());
        byte[] key = new byte[32];
        new java.security.SecureRandom().nextBytes(key);
        Files.writeString(made, java.util.Base64.getEncoder().encodeToString(key) + "\n");
        path = made.toString();
      }
      m.appendReplacement(out, Matcher.quoteReplacement(m.group(1) + ": " + path));
    }
    m.appendTail(out);
    return out.toString();
  }

  @Test
  void everyWholeConfigurationInTheDocsPassesCheck() throws Exception {
    int checked = 0;
    Set<String> done = new java.util.HashSet<>();
    for (YamlBlock y : yamlBlocks) {
      if (!done.add(y.text())) {
        continue; // the same example on two pages is checked once
      }
      if (y.fileName() != null && y.fileName().startsWith(BROKEN)) {
        continue; // a documented invalid configuration: refused by check, above
      }
      boolean clusterFile = Pattern.compile("(?m)^peers:").matcher(y.text()).find();
      boolean configuration =
          Pattern.compile("(?m)^(rooms|origin|listen):").matcher(y.text()).find();
      if (clusterFile || !configuration) {
        continue;
      }
      Path file = work.resolve("doc-" + checked + ".yaml");
      Files.writeString(file, withOperatorsKeyFiles(y.text()));
      Result r = anteroom(List.of("check", "--config", file.toString()));
      assertThat(r.code()).as("%s:\n%s\n%s", y.where(), y.text(), r.out()).isZero();
      assertThat(r.out()).contains("configuration OK");
      checked++;
    }
    assertThat(checked).as("whole configurations in the docs").isGreaterThanOrEqualTo(3);
  }

  private boolean existing(String file) {
    return file != null && !file.contains("/") && Files.isRegularFile(work.resolve(file));
  }
}
