package io.anteroom.gateway.browser;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.anteroom.gateway.Browser;
import io.anteroom.gateway.Harness;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;

/**
 * The proof-of-work check in a real headless Chromium at the default difficulty: the page's own
 * script solves the challenge, the gateway checks the answer (SHA-256 in Java, so the script's
 * SHA-256 must agree with it), and the user goes on to the room's usual decision: in if there is
 * room, in line otherwise. Without JavaScript the page says what is needed.
 */
class ProofOfWorkBrowserTest {

  static final String ROOM =
      "rooms: [ { id: shop, totalActiveUsers: %d, proofOfWork: { enabled: true } } ]";

  @TempDir Path dataDir;

  @Test
  void theScriptSolvesTheChallengeAndTheUserIsLetIn() throws Exception {
    try (var h = new Harness(dataDir, ROOM.formatted(100));
        var chromium = HeadlessChromium.start()) {
      var page = chromium.driver();
      page.get(h.url() + "/tickets");
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> page.getPageSource().contains("origin:"));
      assertThat(page.manage().getCookieNamed("__anteroom_shop")).isNotNull();
      assertThat(page.manage().getCookieNamed("__anteroom-proof_shop"))
          .as("the used answer is cleared")
          .isNull();
      assertThat(page.getCurrentUrl()).endsWith("/tickets");
    }
  }

  @Test
  void inAFullRoomTheSolvedUserIsQueuedWithATicket() throws Exception {
    try (var h = new Harness(dataDir, ROOM.formatted(1));
        var chromium = HeadlessChromium.start(390, 844)) {
      var first = h.browser();
      String pow = first.get("/", "Accept", "application/json").body();
      String challenge = pow.replaceAll(".*\"challenge\":\"([^\"]+)\".*", "$1");
      String answer =
          challenge + "." + io.anteroom.door.proof.Work.solve(challenge, 18); // the default
      assertThat(Browser.reachedOrigin(first.get("/", "Anteroom-Proof", answer)))
          .as("takes the only place")
          .isTrue();

      var page = chromium.driver();
      page.get(h.url() + "/");
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> "You are in line".equals(page.getTitle()));
      assertThat(page.manage().getCookieNamed("__anteroom_shop"))
          .as("the waiting user holds a ticket")
          .isNotNull();
    }
  }

  @Test
  void withoutJavaScriptThePageSaysTheCheckNeedsIt() throws Exception {
    try (var h = new Harness(dataDir, ROOM.formatted(100));
        var chromium = HeadlessChromium.start(1280, 900, Map.of("javascript", 2))) {
      var page = chromium.driver();
      page.get(h.url() + "/");
      assertThat(page.getTitle()).isEqualTo("One moment");
      assertThat(page.getPageSource())
          .as(
              "no favicon request through the room: it could carry the answer the script just"
                  + " set and use it up before the page's own reload")
          .contains("<link rel=\"icon\" href=\"data:,\">");
      assertThat(page.findElement(By.id("needs-javascript")).getText())
          .contains("This check needs JavaScript");
      chromium.screenshot(Path.of("target", "screenshots", "proof-of-work-no-javascript.png"));
    }
  }
}
