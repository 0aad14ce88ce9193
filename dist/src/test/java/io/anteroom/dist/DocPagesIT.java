package io.anteroom.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.anteroom.testkit.FreePorts;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs the {@code <!-- doc-test: run -->} blocks of README.md and docs/*.md against the built
 * distribution, one bash session per page, and compares their {@code <!-- doc-test: output -->}
 * blocks with what they printed (the convention: {@link DocPages}). Every process a page starts is
 * a child of its session: whatever happens, each one still running is stopped (TERM, then KILL)
 * before the test ends.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DocPagesIT {
  /** The longest one block may take (a simulation on a busy machine, a cluster's elections). */
  private static final Duration BLOCK_PATIENCE = Duration.ofMinutes(5);

  private static final Pattern LOOPBACK_PORT = Pattern.compile("127\\.0\\.0\\.1:(\\d+)");
  private static final String DONE = "@@doc-test block done ";

  private Path home;
  private Path dir;

  @BeforeAll
  void unpack(@TempDir Path tmp) throws Exception {
    dir = tmp;
    Path tarball = Path.of(System.getProperty("dist.tarball"));
    Process tar =
        new ProcessBuilder("tar", "-xzf", tarball.toString(), "-C", dir.toString())
            .redirectErrorStream(true)
            .start();
    assertThat(tar.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(tar.exitValue()).isZero();
    home = dir.resolve("anteroom-" + System.getProperty("dist.version"));
  }

  static Stream<DocPages.Page> quickPages() {
    return runnable().filter(p -> !p.slow());
  }

  static Stream<DocPages.Page> slowPages() {
    return runnable().filter(DocPages.Page::slow);
  }

  /** The pages with run blocks; {@code -Ddoc.pages=docs/sizing.md,...} runs only those. */
  private static Stream<DocPages.Page> runnable() {
    String only = System.getProperty("doc.pages", "");
    return DocPages.all().stream()
        .filter(p -> !p.runBlocks().isEmpty())
        .filter(p -> only.isBlank() || List.of(only.split(",")).contains(p.name()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("quickPages")
  void aPageRunsAsDocumented(DocPages.Page page) throws Exception {
    run(page);
  }

  /** Pages marked {@code <!-- doc-test: slow -->}: sizing.md's simulation, cluster.md's walk. */
  @Tag("slow")
  @ParameterizedTest(name = "{0}")
  @MethodSource("slowPages")
  void aSlowPageRunsAsDocumented(DocPages.Page page) throws Exception {
    run(page);
  }

  /** Documented port to the free port it runs on. */
  private static Map<Integer, Integer> portsOf(DocPages.Page page) {
    Map<Integer, Integer> ports = new LinkedHashMap<>();
    List<String> texts = new ArrayList<>(page.files().values());
    page.runBlocks().forEach(b -> texts.add(b.text()));
    for (String t : texts) {
      Matcher m = LOOPBACK_PORT.matcher(t);
      while (m.find()) {
        ports.computeIfAbsent(Integer.parseInt(m.group(1)), p -> FreePorts.take());
      }
    }
    return ports;
  }

  private void run(DocPages.Page page) throws Exception {
    Path work = Files.createDirectories(dir.resolve(page.name().replace('/', '-')));
    Files.createSymbolicLink(work.resolve("anteroom"), home.resolve("bin/anteroom"));
    Path outputs = Files.createDirectories(dir.resolve(page.name().replace('/', '-') + ".out"));
    Map<Integer, Integer> ports = portsOf(page);
    Map<Integer, Integer> back = new HashMap<>();
    ports.forEach((doc, actual) -> back.put(actual, doc));
    for (var f : page.files().entrySet()) {
      Files.writeString(work.resolve(f.getKey()), DocOutput.movePorts(f.getValue(), ports));
    }
    ProcessBuilder pb =
        new ProcessBuilder("setsid", "bash", "--noprofile", "--norc", "-s")
            .directory(work.toFile())
            .redirectErrorStream(true);
    pb.environment().put("PATH", home.resolve("bin") + ":" + System.getenv("PATH"));
    pb.environment().put("ANTEROOM_AOT", "off");
    Process bash = pb.start();
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    Thread reader =
        new Thread(
            () -> {
              try (var r =
                  new BufferedReader(
                      new InputStreamReader(bash.getInputStream(), StandardCharsets.UTF_8))) {
                for (String l; (l = r.readLine()) != null; ) {
                  lines.add(l);
                }
              } catch (IOException e) {
                // the session ended
              }
              lines.add(DONE + "eof");
            },
            "doc-test " + page.name());
    reader.setDaemon(true);
    reader.start();
    try (Writer in =
        new java.io.OutputStreamWriter(bash.getOutputStream(), StandardCharsets.UTF_8)) {
      in.write("set -e -o pipefail\n");
      int n = 0;
      String lastOutput = null;
      Path lastWork = work;
      List<DocPages.Block> blocks = page.blocks();
      for (DocPages.Block b : blocks) {
        if (b.marker() == null) {
          continue;
        }
        if (b.marker().kind() == DocPages.Kind.RUN) {
          n++;
          Path out = outputs.resolve("block-" + n + ".txt");
          Path pwd = outputs.resolve("block-" + n + ".pwd");
          in.write(
              "{\n"
                  + DocOutput.movePorts(b.text(), ports)
                  + "\n} > '"
                  + out
                  + "' 2>&1 < /dev/null\n");
          in.write("pwd > '" + pwd + "'\necho '" + DONE + n + "'\n");
          in.flush();
          String done = awaitDone(lines, b, out);
          if (!done.equals(DONE + n)) {
            String printed = Files.exists(out) ? Files.readString(out) : "";
            fail("%s: the block failed (the session ended); it printed:%n%s", b.where(), printed);
          }
          lastOutput = Files.readString(out);
          lastWork = Path.of(Files.readString(pwd).strip());
        } else if (b.marker().kind() == DocPages.Kind.OUTPUT) {
          assertThat(lastOutput).as("%s: output of no run block before it", b.where()).isNotNull();
          String actual =
              b.marker().argument().isEmpty()
                  ? lastOutput
                  : Files.readString(lastWork.resolve(b.marker().argument()));
          assertThat(DocOutput.unmatched(b.text(), actual, back))
              .as("%s: documented lines not printed; printed:%n%s", b.where(), actual)
              .isEmpty();
        }
      }
    } finally {
      stopAll(bash);
    }
  }

  private static String awaitDone(BlockingQueue<String> lines, DocPages.Block b, Path out)
      throws InterruptedException, IOException {
    long deadline = System.nanoTime() + BLOCK_PATIENCE.toNanos();
    while (true) {
      String l = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      if (l == null) {
        fail(
            "%s: the block did not finish in %s; it printed:%n%s",
            b.where(), BLOCK_PATIENCE, Files.exists(out) ? Files.readString(out) : "");
      }
      if (l.startsWith(DONE)) {
        return l;
      }
    }
  }

  /** Stops the session's processes, TERM first (a clean stop), KILL what is left. */
  private static void stopAll(Process bash) throws InterruptedException {
    List<ProcessHandle> children = bash.descendants().toList();
    children.forEach(ProcessHandle::destroy);
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    for (ProcessHandle c : children) {
      try {
        c.onExit().get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        c.destroyForcibly();
      }
    }
    bash.descendants().forEach(ProcessHandle::destroyForcibly);
    bash.destroyForcibly();
    bash.waitFor(30, TimeUnit.SECONDS);
  }
}
