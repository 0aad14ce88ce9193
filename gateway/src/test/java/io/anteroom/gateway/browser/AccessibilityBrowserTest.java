package io.anteroom.gateway.browser;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.anteroom.gateway.Browser;
import io.anteroom.gateway.Harness;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.interactions.Actions;

/**
 * The queue, challenge and dashboard pages checked with axe-core in a real headless Chromium at a
 * phone's and a laptop's width: no violation of its WCAG 2 A/AA and best-practice rules; and the
 * dashboard used with the keyboard alone.
 */
class AccessibilityBrowserTest {
  private static final String QUEUE =
      "rooms: [ { id: shop, totalActiveUsers: 1, sessionDurationMinutes: 1 } ]";

  /** The hardest puzzle there is: the page is still working on it when axe looks. */
  private static final String CHALLENGE =
      "rooms: [ { id: shop, totalActiveUsers: 100,"
          + " proofOfWork: { enabled: true, difficulty: 32 } } ]";

  @TempDir Path dataDir;

  private static List<HeadlessChromium> phoneAndLaptop() {
    return List.of(HeadlessChromium.phone(390, 844), HeadlessChromium.start(1280, 900));
  }

  private static void language(ChromeDriver page, String acceptLanguage) {
    page.executeCdpCommand(
        "Emulation.setUserAgentOverride",
        Map.of(
            "userAgent",
            String.valueOf(page.executeScript("return navigator.userAgent;")),
            "acceptLanguage",
            acceptLanguage));
  }

  @Test
  void theQueuePageHasNoViolationsOnAPhoneAndALaptopLeftToRightAndRightToLeft() throws Exception {
    try (var h = new Harness(dataDir, QUEUE)) {
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue(); // takes the only place
      for (var chromium : phoneAndLaptop()) {
        try (chromium) {
          var page = chromium.driver();
          for (String lang : List.of("en", "ar")) {
            language(page, lang);
            page.get(h.url() + "/");
            assertThat(page.findElement(By.tagName("html")).getAttribute("lang")).isEqualTo(lang);
            assertThat(Axe.violations(page)).as("%s queue page", lang).isEmpty();
          }
        }
      }
    }
  }

  @Test
  void theChallengePageHasNoViolationsOnAPhoneAndALaptop() throws Exception {
    try (var h = new Harness(dataDir, CHALLENGE)) {
      for (var chromium : phoneAndLaptop()) {
        try (chromium) {
          var page = chromium.driver();
          for (String lang : List.of("en", "ar")) {
            language(page, lang);
            page.get(h.url() + "/");
            assertThat(page.findElement(By.id("state")).getText()).isNotBlank(); // working
            assertThat(Axe.violations(page)).as("%s challenge page", lang).isEmpty();
          }
        }
      }
    }
  }

  @Test
  void theDashboardHasNoViolationsOnAPhoneAndALaptop() throws Exception {
    try (var h = new Harness(dataDir, QUEUE)) {
      h.browser().get("/");
      h.browser().get("/");
      h.report("shop");
      h.admin("PUT", "/api/rooms/shop/queueAll", "false");
      for (var chromium : phoneAndLaptop()) {
        try (chromium) {
          var page = chromium.driver();
          page.get(h.adminUrl() + "/");
          assertThat(Axe.violations(page)).as("signed out").isEmpty();
          page.findElement(By.id("t")).sendKeys(h.token, Keys.ENTER);
          await()
              .atMost(Duration.ofSeconds(30))
              .until(() -> !page.findElements(By.cssSelector("#rows tr")).isEmpty());
          await()
              .atMost(Duration.ofSeconds(30))
              .until(
                  () -> !page.findElements(By.cssSelector("section[data-room='shop']")).isEmpty());
          // the recent changes too (the audit log's table), with one change in it
          await()
              .atMost(Duration.ofSeconds(30))
              .until(() -> page.findElement(By.id("changes")).isDisplayed());
          assertThat(Axe.violations(page)).as("signed in").isEmpty();
        }
      }
    }
  }

  /** What has the focus: its tag and text (or id). */
  private static String focused(ChromeDriver page) {
    return String.valueOf(
        page.executeScript(
            "var e = document.activeElement;"
                + " return e.tagName.toLowerCase() + ':' + (e.id || e.textContent.trim());"));
  }

  @Test
  void anOperatorSignsInAndSwitchesARoomWithTheKeyboardAlone() throws Exception {
    try (var h = new Harness(dataDir, QUEUE);
        var chromium = HeadlessChromium.start(1280, 900)) {
      var page = chromium.driver();
      page.get(h.adminUrl() + "/");
      var keys = new Actions(page);
      keys.sendKeys(Keys.TAB).perform();
      assertThat(focused(page)).as("the first stop is the token").isEqualTo("input:t");
      keys.sendKeys(h.token).sendKeys(Keys.ENTER).perform();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  !page.findElements(
                          By.xpath("//tbody[@id='rows']//button[normalize-space()='queue all']"))
                      .isEmpty());

      var stops = new ArrayList<String>();
      for (int i = 0; i < 12 && !focused(page).equals("button:queue all"); i++) {
        keys.sendKeys(Keys.TAB).perform();
        stops.add(focused(page));
      }
      assertThat(focused(page))
          .as("Tab reaches the switch; stops: %s", stops)
          .isEqualTo("button:queue all");
      assertThat(stops).as("in reading order").containsSubsequence("button:Show", "select:range");
      assertThat(
              page.executeScript("return getComputedStyle(document.activeElement).outlineStyle;"))
          .as("the focus is visible")
          .isNotEqualTo("none");

      keys.sendKeys(Keys.ENTER).perform();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                List<WebElement> s =
                    page.findElements(
                        By.cssSelector("section[data-room='shop'] [data-switch='queueAll']"));
                return !s.isEmpty() && s.getFirst().getText().equals("queueAll: on");
              });
      assertThat(h.room("shop").settings().switches().queueAll())
          .as("the switch took effect")
          .isTrue();
    }
  }
}
