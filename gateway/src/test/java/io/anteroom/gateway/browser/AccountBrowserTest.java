package io.anteroom.gateway.browser;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.anteroom.door.proof.Accounts;
import io.anteroom.gateway.Harness;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Cookie;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * One place per account in a real headless Chromium, the application's assertion in a cookie it
 * sets: a visitor who is not signed in gets a page that says so and no place; signed in, it gets
 * the room's one place; the same account in a second browser (a phone) shares that place and
 * session; an expired assertion gets a page that asks to sign in again and changes nothing.
 */
class AccountBrowserTest {

  @TempDir Path dataDir;

  @Test
  void aVisitorSignsInForItsPlaceAndItsPhoneSharesItWhileAnExpiredSignInIsAskedAgain()
      throws Exception {
    byte[] key = new byte[32];
    new java.security.SecureRandom().nextBytes(key);
    Path keyFile = dataDir.resolve("identity.key");
    Files.writeString(keyFile, Base64.getEncoder().encodeToString(key));
    String rooms =
        "rooms: [ { id: shop, totalActiveUsers: 1, account: { required: true, cookie: app_identity,"
            + " hs256SecretFile: "
            + keyFile
            + " } } ]";
    String alice = Accounts.sign(key, "alice", Harness.START.plus(Duration.ofDays(1)), null);
    String expired = Accounts.sign(key, "alice", Harness.START.minus(Duration.ofHours(1)), null);
    try (var h = new Harness(dataDir, rooms);
        var laptop = HeadlessChromium.start();
        var phone = HeadlessChromium.start(390, 844)) {
      var page = laptop.driver();
      page.get(h.url() + "/tickets");
      assertThat(page.getTitle()).isEqualTo("Please sign in");
      assertThat(page.findElement(By.id("reason")).getText())
          .contains("Please sign in to the site to get your place in line");
      assertThat(page.manage().getCookieNamed("__anteroom_shop")).as("no place").isNull();

      signIn(page, alice);
      page.get(h.url() + "/tickets");
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> page.getPageSource().contains("origin:"));
      assertThat(page.manage().getCookieNamed("__anteroom_shop")).isNotNull();

      var other = phone.driver();
      other.get(h.url() + "/");
      signIn(other, alice);
      other.get(h.url() + "/tickets");
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> other.getPageSource().contains("origin:"));
      assertThat(other.manage().getCookieNamed("__anteroom_shop"))
          .as("the account's one place, in the phone too (T = 1)")
          .isNotNull();

      signIn(other, expired);
      other.get(h.url() + "/tickets");
      assertThat(other.getTitle()).isEqualTo("Please sign in again");
      assertThat(other.findElement(By.id("reason")).getAttribute("data-refused"))
          .isEqualTo("expired");
      assertThat(other.manage().getCookieNamed("__anteroom_shop"))
          .as("a refused sign-in changes nothing the browser holds")
          .isNotNull();
      phone.screenshot(Path.of("target", "screenshots", "account-expired.png"));
    }
  }

  /** The application's sign-in: its identity cookie, for the room to read. */
  private static void signIn(ChromeDriver browser, String token) {
    browser.manage().deleteCookieNamed("app_identity");
    browser.manage().addCookie(new Cookie("app_identity", token, "/"));
  }
}
