package io.anteroom.gateway.browser;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.anteroom.gateway.Browser;
import io.anteroom.gateway.Harness;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;

/**
 * The queue page in a real headless Chromium: what a waiting user sees, and that the page lets the
 * user in by itself, with and without JavaScript. The gateway runs on virtual time; only the page's
 * own refresh timer runs in real time (the room refreshes every second here).
 */
class QueuePageBrowserTest {
  private static final String ROOM =
      "rooms: [ { id: shop, totalActiveUsers: 1, sessionDurationMinutes: 1,"
          + " queueRefreshSeconds: 1 } ]";

  @TempDir Path dataDir;

  @Test
  void aWaitingUserSeesTheLineAndIsLetInByThePageItselfWhenASlotFrees() throws Exception {
    try (var h = new Harness(dataDir, ROOM);
        var chromium = HeadlessChromium.phone(390, 844)) {
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue(); // takes the only place
      var page = chromium.driver();
      page.get(h.url() + "/tickets");
      assertThat(page.getTitle()).isEqualTo("You are in line");
      assertThat(page.findElement(By.id("wait")).getText()).isNotBlank();
      assertThat(page.manage().getCookieNamed("__anteroom_shop"))
          .as("the waiting user holds a ticket")
          .isNotNull();
      chromium.screenshot(Path.of("target", "screenshots", "queue-page-phone.png"));

      freeThePlace(h);
      awaitAdmission(h, () -> page.getPageSource().contains("origin:"));
      assertThat(page.getCurrentUrl()).endsWith("/tickets");
    }
  }

  @Test
  void thePushLetsTheWaitingUserInWithoutWaitingForTheNextRefresh() throws Exception {
    String slowRefresh =
        "rooms: [ { id: shop, totalActiveUsers: 1, sessionDurationMinutes: 1,"
            + " queueRefreshSeconds: 300 } ]";
    try (var h = new Harness(dataDir, slowRefresh);
        var chromium = HeadlessChromium.phone(390, 844)) {
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue(); // takes the only place
      var page = chromium.driver();
      page.get(h.url() + "/tickets");
      assertThat(page.getTitle()).isEqualTo("You are in line");
      String refresh =
          page.findElement(By.cssSelector("noscript"))
              .getAttribute("innerHTML")
              .replaceAll("\\D", "");
      assertThat(Integer.parseInt(refresh))
          .as("the page's own refresh is minutes away")
          .isGreaterThanOrEqualTo(240);
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> h.gateway.heldPolls().held() == 1); // the page's push poll is held

      for (int step = 0; step < 6; step++) { // virtual time: the first session ends
        h.scheduler.advance(Duration.ofSeconds(20));
        h.report("shop");
      }
      // no more reports: only the push can tell the page, minutes before its own refresh
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> page.getPageSource().contains("origin:"));

      assertThat(page.getCurrentUrl()).endsWith("/tickets");
    }
  }

  @Test
  void theLastUpdateStaysInUtcWhenThePageRefreshesItself() throws Exception {
    try (var h = new Harness(dataDir, ROOM);
        var chromium = HeadlessChromium.phone(390, 844)) {
      var page = chromium.driver();
      page.executeCdpCommand("Emulation.setTimezoneOverride", Map.of("timezoneId", "Asia/Kolkata"));
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue(); // takes the only place
      page.get(h.url() + "/tickets");
      assertThat(page.getTitle()).isEqualTo("You are in line");
      assertThat(page.executeScript("return new Date().getTimezoneOffset();"))
          .as("the browser's clock is 5:30 ahead of UTC")
          .isEqualTo(-330L);
      var updated = By.id("updated");
      String rendered = page.findElement(updated).getAttribute("datetime");
      assertThat(page.findElement(updated).getText()).isEqualTo(utc(rendered));

      h.scheduler.advance(Duration.ofSeconds(20)); // the first user's minute is not over
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(250))
          .until(
              () -> {
                h.report("shop");
                return !rendered.equals(page.findElement(updated).getAttribute("datetime"));
              });
      String polled = page.findElement(updated).getAttribute("datetime");
      assertThat(page.findElement(updated).getText())
          .as("the time the page's own poll wrote, %s", polled)
          .isEqualTo(utc(polled));
      assertThat(page.getTitle()).as("still in line").isEqualTo("You are in line");
      chromium.screenshot(Path.of("target", "screenshots", "queue-page-phone-refreshed.png"));
    }
  }

  @Test
  void aPrequeuedUserCanOpenItsDrawReceiptOnThePage() throws Exception {
    String room =
        """
        rooms:
          - id: shop
            events:
              - name: launch
                prequeueStartTime: 2026-11-22T09:00:00Z
                eventStartTime: 2026-11-22T11:00:00Z
                eventEndTime: 2026-11-22T12:00:00Z
                shuffleAtEventStart: true
        """;
    try (var h = new Harness(dataDir, room);
        var chromium = HeadlessChromium.phone(390, 844)) {
      var page = chromium.driver();
      page.get(h.url() + "/");
      assertThat(page.findElement(By.tagName("h1")).getText())
          .isEqualTo("launch opens at 11:00:00 UTC");
      var receipt = page.findElement(By.id("receipt"));
      assertThat(page.findElement(By.id("receipt-json")).isDisplayed()).as("folded").isFalse();
      receipt.findElement(By.tagName("summary")).click();
      var json =
          new com.fasterxml.jackson.databind.ObjectMapper()
              .readTree(page.findElement(By.id("receipt-json")).getText());
      assertThat(json.get("event").asText()).isEqualTo("launch");
      assertThat(json.get("ticket").asText()).matches("[0-9]+");
      assertThat(json.has("place")).as("no place before the draw").isFalse();
      var listed =
          new com.fasterxml.jackson.databind.ObjectMapper()
              .readTree(h.browser().get("/.well-known/anteroom/draws.json").body())
              .get("draws")
              .get(0);
      assertThat(json.get("commitment")).isEqualTo(listed.get("commitment"));
      assertThat(receipt.getText()).contains(listed.get("commitment").asText());
      chromium.screenshot(Path.of("target", "screenshots", "queue-page-draw-receipt.png"));
    }
  }

  /** HH:mm:ss UTC, as the gateway renders the page's time. */
  private static String utc(String isoInstant) {
    return DateTimeFormatter.ofPattern("HH:mm:ss 'UTC'")
        .withZone(ZoneOffset.UTC)
        .format(Instant.parse(isoInstant));
  }

  @Test
  void withoutJavaScriptThePageStillRefreshesAndLetsTheUserIn() throws Exception {
    try (var h = new Harness(dataDir, ROOM);
        var chromium = HeadlessChromium.start(1280, 900, Map.of("javascript", 2))) {
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue();
      var page = chromium.driver();
      page.get(h.url() + "/");
      assertThat(page.getTitle()).isEqualTo("You are in line");

      freeThePlace(h);
      awaitAdmission(h, () -> page.getPageSource().contains("origin:"));
    }
  }

  /**
   * Waits (real time) for the page's own refresh to get the user in; meanwhile the gateway keeps
   * reporting to the room, as its timer does outside tests, so the room sees the waiting user.
   */
  private static void awaitAdmission(Harness h, java.util.concurrent.Callable<Boolean> in) {
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> {
              h.report("shop");
              return in.call();
            });
  }

  /** Virtual minutes pass: the first user's session ends and the room hands its place on. */
  private static void freeThePlace(Harness h) throws Exception {
    for (int step = 0; step < 9; step++) {
      h.scheduler.advance(Duration.ofSeconds(20));
      h.report("shop");
    }
  }
}
