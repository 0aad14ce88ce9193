package io.anteroom.gateway.browser;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.anteroom.door.proof.Invitations;
import io.anteroom.gateway.Harness;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;

/**
 * Invitations in a real headless Chromium: the invitation link gets the guest through the
 * proof-of-work page (whose reload keeps the link, so the invitation is used with the answer), and
 * the same link in a second browser, or no link at all, gets a page that says why.
 */
class InvitationBrowserTest {

  @TempDir Path dataDir;

  @Test
  void theInvitationLinkGetsTheGuestThroughTheChallengeAndASecondBrowserIsToldItWasUsed()
      throws Exception {
    byte[] key = new byte[32];
    new java.security.SecureRandom().nextBytes(key);
    Path keyFile = dataDir.resolve("invite.key");
    Files.writeString(keyFile, Base64.getEncoder().encodeToString(key));
    String rooms =
        "rooms: [ { id: shop, totalActiveUsers: 100, proofOfWork: { enabled: true, difficulty: 12"
            + " }, invitations: { required: true, keyFile: "
            + keyFile
            + " } } ]";
    String link =
        "/tickets?anteroom-invite="
            + Invitations.sign(
                key, "shop", null, null, "guest-1", Harness.START.plus(Duration.ofDays(1)));
    try (var h = new Harness(dataDir, rooms);
        var guest = HeadlessChromium.start();
        var friend = HeadlessChromium.start(390, 844)) {
      var page = guest.driver();
      page.get(h.url() + "/tickets");
      assertThat(page.getTitle()).isEqualTo("By invitation only");
      assertThat(page.findElement(By.id("reason")).getText())
          .contains("open the link from your invitation");

      page.get(h.url() + link);
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> page.getPageSource().contains("origin:"));
      assertThat(page.manage().getCookieNamed("__anteroom_shop")).isNotNull();

      var other = friend.driver();
      other.get(h.url() + link);
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> "Invitation not accepted".equals(other.getTitle()));
      assertThat(other.findElement(By.id("reason")).getText())
          .contains("This invitation has already been used");
      assertThat(other.manage().getCookieNamed("__anteroom_shop")).isNull();
      friend.screenshot(Path.of("target", "screenshots", "invitation-used.png"));
    }
  }
}
