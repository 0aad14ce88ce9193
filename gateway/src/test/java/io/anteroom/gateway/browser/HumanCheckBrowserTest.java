package io.anteroom.gateway.browser;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.anteroom.gateway.Harness;
import io.anteroom.gateway.SiteVerifyStandIn;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;

/**
 * The human check's page in a real headless Chromium: the page loads the provider's widget script
 * (a local stand-in, never the real CDN), the widget hands its token to the page's callback, the
 * page puts it in the answer cookie and reloads, the gateway verifies it with the (stand-in)
 * siteverify endpoint, and the user goes on to the room: in, with a ticket, the used token cleared.
 */
class HumanCheckBrowserTest {

  @TempDir Path dataDir;

  @Test
  void theWidgetsTokenIsVerifiedAndTheUserIsLetIn() throws Exception {
    Path secret = dataDir.resolve("turnstile.secret");
    Files.writeString(secret, "s3cret\n");
    try (var provider = new SiteVerifyStandIn("s3cret");
        var h =
            new Harness(
                dataDir,
                """
                rooms:
                  - id: shop
                    humanCheck: { enabled: true, provider: turnstile, siteKey: site-7,
                                  secretFile: %s, verifyUrl: "%s", scriptUrl: "%s" }"""
                    .formatted(secret, provider.verifyUrl(), provider.scriptUrl()));
        var chromium = HeadlessChromium.start()) {
      var page = chromium.driver();
      page.get(h.url() + "/tickets");
      assertThat(page.getTitle()).isIn("One moment", "");
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> page.getPageSource().contains("origin:"));
      assertThat(page.manage().getCookieNamed("__anteroom_shop")).isNotNull();
      assertThat(page.manage().getCookieNamed("__anteroom-human_shop"))
          .as("the used token is cleared")
          .isNull();
      assertThat(page.getCurrentUrl()).endsWith("/tickets");
      assertThat(provider.calls).hasSize(1);
      assertThat(provider.calls.getFirst().get("response")).startsWith("good-site-7-");
    }
  }

  @Test
  void theWidgetIsRenderedIntoItsProvidersElement() throws Exception {
    Path secret = dataDir.resolve("hcaptcha.secret");
    Files.writeString(secret, "s3cret\n");
    try (var provider = new SiteVerifyStandIn("s3cret");
        var h =
            new Harness(
                dataDir,
                """
                rooms:
                  - id: shop
                    humanCheck: { enabled: true, provider: recaptcha, siteKey: site-8,
                                  secretFile: %s, verifyUrl: "%s", scriptUrl: "%s" }"""
                    .formatted(secret, provider.verifyUrl(), provider.scriptUrl()));
        var chromium = HeadlessChromium.start(390, 844)) {
      provider.down = true; // the page stays: every token is "unavailable" (closed)
      var page = chromium.driver();
      page.get(h.url() + "/");
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> page.getPageSource().contains("id=\"refused\""));
      String source = page.getPageSource();
      assertThat(source)
          .contains("id=\"human-check\" class=\"g-recaptcha\" data-sitekey=\"site-8\"");
      assertThat(page.findElement(By.id("refused")).getText()).contains("unavailable");
      chromium.screenshot(Path.of("target", "screenshots", "human-check-unavailable.png"));
    }
  }
}
