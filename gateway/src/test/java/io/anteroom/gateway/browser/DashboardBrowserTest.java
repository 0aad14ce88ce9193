package io.anteroom.gateway.browser;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.anteroom.gateway.Harness;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;

/**
 * The admin dashboard in a real headless Chromium: after a short run on virtual time, an operator
 * enters the token and sees the room with one chart point (or bar) per minute with data, on a
 * laptop and on a phone.
 */
class DashboardBrowserTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ROOM =
      "rooms: [ { id: shop, totalActiveUsers: 4, newUsersPerMinute: 3,"
          + " sessionDurationMinutes: 2, events: [ { name: launch,"
          + " eventStartTime: '2026-12-01T18:00:00Z', eventEndTime: '2026-12-01T20:00:00Z',"
          + " totalActiveUsers: 500 } ] } ]";
  private static final String ADMISSIONS =
      "section[data-room='shop'] figure[data-chart='Admissions per minute vs N'] rect.bar";
  private static final String ACTIVE =
      "section[data-room='shop'] figure[data-chart='Active users vs limit T']"
          + " g[data-series='activeUsers'] circle.pt";

  @TempDir Path dataDir;

  /**
   * Four minutes of arrivals, reported as the gateway's timer would, each step waiting until the
   * objects' due alarms have run at their virtual time; returns the API's series.
   */
  private static JsonNode shortRun(Harness h) throws Exception {
    for (int minute = 0; minute < 4; minute++) {
      for (int user = 0; user < 3; user++) {
        h.browser().get("/");
      }
      for (int step = 0; step < 10; step++) {
        h.report("shop");
        h.scheduler.advance(Duration.ofSeconds(6));
      }
    }
    h.report("shop");
    h.scheduler.advance(Duration.ofSeconds(6));
    var r = h.admin("GET", "/api/rooms/shop/analytics", null);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode minutes = JSON.readTree(r.body()).get("minutes");
    assertThat(minutes.size()).as("minutes with data: %s", minutes).isGreaterThanOrEqualTo(4);
    var again = JSON.readTree(h.admin("GET", "/api/rooms/shop/analytics", null).body());
    assertThat(again.get("minutes"))
        .as("nothing runs while virtual time stands")
        .isEqualTo(minutes);
    return minutes;
  }

  private static void signIn(WebDriver page, Harness h) {
    page.get(h.adminUrl() + "/");
    assertThat(page.getTitle()).isEqualTo("Anteroom dashboard");
    page.findElement(By.id("t")).sendKeys(h.token);
    page.findElement(By.cssSelector("#f button")).click();
  }

  @Test
  void theOperatorSeesTheRoomAndOneChartPointPerMinuteWithData() throws Exception {
    try (var h = new Harness(dataDir, ROOM)) {
      JsonNode minutes = shortRun(h);
      int withActive = 0;
      for (JsonNode m : minutes) {
        withActive += m.has("activeUsers") ? 1 : 0;
      }
      assertThat(minutes.size()).as("minutes with data: %s", minutes).isGreaterThanOrEqualTo(2);
      int expectedBars = minutes.size();
      int expectedPoints = withActive;

      try (var chromium = HeadlessChromium.start(1280, 1500)) {
        var page = chromium.driver();
        signIn(page, h);
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> page.findElements(By.cssSelector(ADMISSIONS)).size() == expectedBars);
        assertThat(page.findElements(By.cssSelector(ACTIVE))).hasSize(expectedPoints);
        assertThat(page.findElement(By.cssSelector("section[data-room='shop'] h2")).getText())
            .isEqualTo("shop");
        assertThat(page.findElements(By.cssSelector("section[data-room='shop'] figure.chart")))
            .hasSize(4);
        assertThat(
                page.findElement(
                        By.cssSelector("section[data-room='shop'] [data-switch='queueAll']"))
                    .getText())
            .isEqualTo("queueAll: off");
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    page.findElements(
                                By.cssSelector(
                                    "section[data-room='shop'] [data-events] tr[data-event='launch']"))
                            .size()
                        == 1);
        assertThat(
                page.findElement(
                        By.cssSelector(
                            "section[data-room='shop'] [data-events] tr[data-event='launch']"))
                    .getText())
            .contains("2026-12-01T18:00:00Z")
            .contains("totalActiveUsers 500");
        chromium.screenshot(Path.of("target", "screenshots", "dashboard.png"));
      }

      try (var phone = HeadlessChromium.start(390, 844)) {
        var page = phone.driver();
        signIn(page, h);
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> page.findElements(By.cssSelector(ADMISSIONS)).size() == expectedBars);
        Number overflow =
            (Number)
                page.executeScript(
                    "return document.documentElement.scrollWidth - window.innerWidth;");
        assertThat(overflow.intValue())
            .as("no sideways scrolling on a phone")
            .isLessThanOrEqualTo(0);
        page.executeScript(
            "document.querySelector(\"section[data-room='shop'] .charts\").scrollIntoView();");
        phone.screenshot(Path.of("target", "screenshots", "dashboard-phone.png"));
      }
    }
  }

  @Test
  void aWrongTokenIsSaidAndShowsNoRoom() throws Exception {
    try (var h = new Harness(dataDir, ROOM);
        var chromium = HeadlessChromium.start()) {
      var page = chromium.driver();
      page.get(h.adminUrl() + "/");
      page.findElement(By.id("t")).sendKeys("not-the-token");
      page.findElement(By.cssSelector("#f button")).click();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> page.findElement(By.id("msg")).getText().equals("wrong token"));
      assertThat(page.findElements(By.cssSelector("section.room"))).isEmpty();
    }
  }
}
