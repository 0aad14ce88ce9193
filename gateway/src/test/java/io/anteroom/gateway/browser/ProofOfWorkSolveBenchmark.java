package io.anteroom.gateway.browser;

import static org.awaitility.Awaitility.await;

import io.anteroom.gateway.Harness;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Measures, not asserts: how long a new user in headless Chromium takes to get through the
 * proof-of-work check, from asking for the page to holding a ticket (page load, the script's solve,
 * the reload with the answer), at each difficulty in {@code anteroom.pow.difficulties} (default
 * 16,18,20), over {@code anteroom.pow.solves} fresh users each (default 20). Writes the figures to
 * {@code target/pow-solve.txt}. Run:
 *
 * <pre>
 * ./mvnw -o -q -pl gateway -am test -Pslow -Dsurefire.groups=slow \
 *   -Dtest=ProofOfWorkSolveBenchmark -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 */
@Tag("slow")
class ProofOfWorkSolveBenchmark {

  @TempDir Path dataDir;

  @Test
  void medianTimeThroughTheDoor() throws Exception {
    int solves = Integer.getInteger("anteroom.pow.solves", 20);
    String difficulties = System.getProperty("anteroom.pow.difficulties", "16,18,20");
    var report = new StringBuilder();
    for (String d : difficulties.split(",")) {
      int bits = Integer.parseInt(d.strip());
      String room =
          "rooms: [ { id: shop, totalActiveUsers: 100000, proofOfWork: { enabled: true,"
              + " difficulty: "
              + bits
              + " } } ]";
      List<Double> millis = new ArrayList<>();
      try (var h = new Harness(dataDir.resolve("d" + bits), room);
          var chromium = HeadlessChromium.start()) {
        var page = chromium.driver();
        page.get(h.url() + "/warm-up"); // the browser's first page load is not the door's cost
        awaitTicket(page);
        for (int i = 0; i < solves; i++) {
          page.manage().deleteAllCookies();
          long start = System.nanoTime();
          page.get(h.url() + "/n" + i);
          awaitTicket(page);
          millis.add((System.nanoTime() - start) / 1e6);
        }
      }
      Collections.sort(millis);
      String line =
          String.format(
              "difficulty %d bits: median %.0f ms, p25 %.0f ms, p75 %.0f ms, max %.0f ms (%d"
                  + " solves)%n",
              bits,
              millis.get(millis.size() / 2),
              millis.get(millis.size() / 4),
              millis.get(millis.size() * 3 / 4),
              millis.getLast(),
              millis.size());
      System.out.print(line);
      report.append(line);
    }
    Files.writeString(Path.of("target", "pow-solve.txt"), report);
  }

  private static void awaitTicket(org.openqa.selenium.chrome.ChromeDriver page) {
    await()
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(5))
        .until(() -> page.manage().getCookieNamed("__anteroom_shop") != null);
  }
}
