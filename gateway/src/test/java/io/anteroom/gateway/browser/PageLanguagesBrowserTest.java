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
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * The queue page in the browser's language in a real headless Chromium on a phone: English, French
 * and Arabic laid out right to left; the page's own refresh keeps the language. Takes the
 * screenshots of docs/queue-page.md (docs/img/queue-page-LANG.png), motion reduced so they are the
 * same on every run.
 */
class PageLanguagesBrowserTest {
  private static final String ROOM =
      "rooms: [ { id: shop, totalActiveUsers: 1, sessionDurationMinutes: 1,"
          + " queueRefreshSeconds: 1 } ]";

  /** Where the docs' screenshots live, seen from the gateway module. */
  private static final Path DOCS_IMG = Path.of("..", "docs", "img");

  @TempDir Path dataDir;

  private static HeadlessChromium phoneIn(String acceptLanguage) {
    var phone = HeadlessChromium.phone(390, 844);
    ChromeDriver page = phone.driver();
    page.executeCdpCommand(
        "Emulation.setUserAgentOverride",
        Map.of(
            "userAgent",
            String.valueOf(page.executeScript("return navigator.userAgent;")),
            "acceptLanguage",
            acceptLanguage));
    page.executeCdpCommand(
        "Emulation.setEmulatedMedia",
        Map.of(
            "features",
            java.util.List.of(Map.of("name", "prefers-reduced-motion", "value", "reduce"))));
    return phone;
  }

  private static double left(ChromeDriver page, String css) {
    return ((Number)
            page.executeScript(
                "return document.querySelector(arguments[0]).getBoundingClientRect().left;", css))
        .doubleValue();
  }

  private static double right(ChromeDriver page, String css) {
    return ((Number)
            page.executeScript(
                "return document.querySelector(arguments[0]).getBoundingClientRect().right;", css))
        .doubleValue();
  }

  /** The width of the text of the heading, which starts at the card's inline start. */
  private static double headingTextEdge(ChromeDriver page, boolean fromRight) {
    return ((Number)
            page.executeScript(
                "var r = document.createRange(); r.selectNodeContents(document.querySelector('h1'));"
                    + " var b = r.getBoundingClientRect(); return arguments[0] ? b.right : b.left;",
                fromRight))
        .doubleValue();
  }

  @Test
  void theQueuePageSpeaksTheBrowsersLanguageAndArabicReadsRightToLeft() throws Exception {
    try (var h = new Harness(dataDir, ROOM)) {
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue(); // takes the only place
      for (var lang :
          new String[][] {
            {"en-GB,en;q=0.9", "en", "You are in line", "ltr"},
            {"fr-FR,fr;q=0.9,en;q=0.5", "fr", "Vous êtes dans la file d’attente", "ltr"},
            {"ar-EG,ar;q=0.9,en;q=0.5", "ar", "أنت في قائمة الانتظار", "rtl"}
          }) {
        try (var phone = phoneIn(lang[0])) {
          var page = phone.driver();
          page.get(h.url() + "/");
          assertThat(page.getTitle()).isEqualTo(lang[2]);
          var html = page.findElement(By.tagName("html"));
          assertThat(html.getAttribute("lang")).isEqualTo(lang[1]);
          assertThat(html.getAttribute("dir")).isEqualTo(lang[3]);
          assertThat(page.findElement(By.tagName("h1")).getCssValue("direction"))
              .isEqualTo(lang[3]);
          // the heading's text starts at the card's start edge: the left in English and French,
          // the right in Arabic
          double card = lang[3].equals("rtl") ? right(page, ".card") : left(page, ".card");
          double text = headingTextEdge(page, lang[3].equals("rtl"));
          assertThat(Math.abs(card - text))
              .as("%s: heading text edge %s, card edge %s", lang[1], text, card)
              .isLessThan(40);
          Number overflow =
              (Number)
                  page.executeScript(
                      "return document.documentElement.scrollWidth - window.innerWidth;");
          assertThat(overflow.intValue()).as("no sideways scrolling").isLessThanOrEqualTo(0);
          phone.screenshot(DOCS_IMG.resolve("queue-page-" + lang[1] + ".png"));
        }
      }
    }
  }

  @Test
  void thePagesOwnRefreshKeepsItsLanguage() throws Exception {
    try (var h = new Harness(dataDir, ROOM);
        var phone = phoneIn("de-DE,de;q=0.9")) {
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue(); // takes the only place
      var page = phone.driver();
      page.get(h.url() + "/");
      assertThat(page.getTitle()).isEqualTo("Sie sind in der Warteschlange");
      var updated = By.id("updated");
      String rendered = page.findElement(updated).getAttribute("datetime");
      page.executeScript("document.getElementById('wait').textContent = '';");

      h.scheduler.advance(Duration.ofSeconds(20));
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(250))
          .until(
              () -> {
                h.report("shop");
                return !rendered.equals(page.findElement(updated).getAttribute("datetime"));
              });
      String wait = page.findElement(By.id("wait")).getText();
      assertThat(wait)
          .as("written by the page's poll, in German")
          .isIn(
              "Noch nicht bekannt",
              "Weniger als eine Minute",
              "1 Minute",
              "2 Minuten",
              "3 Minuten");
    }
  }
}
