package io.anteroom.gateway.browser;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.anteroom.gateway.Harness;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

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

      try (var phone = HeadlessChromium.phone(390, 844)) {
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

  /** A room that is full from the first minute on: T = 2, and three new users every minute. */
  private static final String FULL =
      "rooms: [ { id: shop, totalActiveUsers: 2, newUsersPerMinute: 10,"
          + " sessionDurationMinutes: 30 } ]";

  /** A zone whose clock differs from UTC by hours and minutes: a time in it is never UTC's. */
  private static final String FAR_ZONE = "Asia/Kolkata";

  /** A phone whose clock runs in {@link #FAR_ZONE}. */
  private static HeadlessChromium phoneInFarZone() {
    var phone = HeadlessChromium.phone(390, 844);
    phone
        .driver()
        .executeCdpCommand("Emulation.setTimezoneOverride", Map.of("timezoneId", FAR_ZONE));
    return phone;
  }

  private static void awaitCharts(WebDriver page, int bars) {
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> page.findElements(By.cssSelector(ADMISSIONS)).size() == bars);
  }

  @Test
  void onAPhoneEveryCellOfTheStatusTableAndItsButtonsAreOnScreen() throws Exception {
    try (var h = new Harness(dataDir, ROOM);
        var phone = HeadlessChromium.phone(390, 844)) {
      JsonNode minutes = shortRun(h);
      var page = phone.driver();
      signIn(page, h);
      awaitCharts(page, minutes.size());
      phone.screenshot(Path.of("target", "screenshots", "dashboard-phone-status.png"));

      List<WebElement> cells = page.findElements(By.cssSelector("#rows td"));
      assertThat(cells).hasSizeGreaterThanOrEqualTo(8);
      long width = (Long) page.executeScript("return document.documentElement.clientWidth;");
      for (WebElement cell : cells) {
        Map<?, ?> box = box(page, cell);
        assertThat(((Number) box.get("right")).doubleValue())
            .as("the right edge of %s (%s) inside the %d px screen", cell.getText(), box, width)
            .isLessThanOrEqualTo(width);
        assertThat(((Number) box.get("left")).doubleValue()).isGreaterThanOrEqualTo(0);
      }
      for (String button : List.of("suspend", "queue all")) {
        WebElement b =
            page.findElement(
                By.xpath("//tbody[@id='rows']//button[normalize-space()='" + button + "']"));
        Map<?, ?> box = box(page, b);
        assertThat(((Number) box.get("right")).doubleValue())
            .as("%s button %s", button, box)
            .isLessThanOrEqualTo(width);
      }
      Number overflow =
          (Number)
              page.executeScript(
                  "return document.documentElement.scrollWidth - window.innerWidth;");
      assertThat(overflow.intValue()).as("no sideways scrolling").isLessThanOrEqualTo(0);
    }
  }

  /** The element's box in the viewport, in CSS pixels. */
  private static Map<?, ?> box(WebDriver page, WebElement e) {
    return (Map<?, ?>)
        ((org.openqa.selenium.JavascriptExecutor) page)
            .executeScript(
                "var r = arguments[0].getBoundingClientRect();"
                    + " return {left: r.left, right: r.right, top: r.top, bottom: r.bottom};",
                e);
  }

  @Test
  void timesAreShownInUtcAndSaySoWhateverTheBrowsersZone() throws Exception {
    try (var h = new Harness(dataDir, ROOM);
        var phone = phoneInFarZone()) {
      JsonNode minutes = shortRun(h);
      JsonNode range = JSON.readTree(h.admin("GET", "/api/rooms/shop/analytics", null).body());
      Instant from = Instant.parse(range.get("from").asText());
      var page = phone.driver();
      assertThat(page.executeScript("return new Date().getTimezoneOffset();"))
          .as("the browser's clock is 5:30 ahead of UTC")
          .isEqualTo(-330L);
      signIn(page, h);
      awaitCharts(page, minutes.size());
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> page.findElement(By.id("msg")).getText().startsWith("Updated"));

      var hhmm = DateTimeFormatter.ofPattern("HH:mm").withZone(ZoneOffset.UTC);
      List<String> ticks =
          page
              .findElements(
                  By.cssSelector(
                      "section[data-room='shop'] figure[data-chart='Active users vs limit T']"
                          + " svg text"))
              .stream()
              .map(WebElement::getText)
              .filter(t -> t.matches("\\d\\d:\\d\\d.*"))
              .toList();
      assertThat(ticks).as("the time axis").hasSize(3);
      assertThat(ticks.get(0)).isEqualTo(hhmm.format(from));
      assertThat(ticks.get(2)).endsWith(" UTC");
      assertThat(page.findElement(By.id("msg")).getText())
          .matches("Updated \\d\\d:\\d\\d:\\d\\d UTC");
      assertThat(
              page.findElement(By.cssSelector("section[data-room='shop'] .pt title"))
                  .getAttribute("textContent"))
          .as("a point's tooltip")
          .contains(" UTC ");
      phone.screenshot(Path.of("target", "screenshots", "dashboard-phone-utc.png"));
    }
  }

  @Test
  void theLimitLineStaysVisibleWhenTheRoomIsFull() throws Exception {
    try (var h = new Harness(dataDir, FULL);
        var phone = HeadlessChromium.phone(390, 844)) {
      for (int minute = 0; minute < 6; minute++) {
        for (int user = 0; user < 3; user++) {
          h.browser().get("/");
        }
        for (int step = 0; step < 10; step++) {
          h.report("shop");
          h.scheduler.advance(Duration.ofSeconds(6));
        }
      }
      h.report("shop");
      JsonNode minutes =
          JSON.readTree(h.admin("GET", "/api/rooms/shop/analytics", null).body()).get("minutes");
      long full = 0;
      for (JsonNode m : minutes) {
        full += m.path("activeUsers").asInt(-1) == 2 ? 1 : 0;
      }
      assertThat(full).as("minutes with the room full: %s", minutes).isGreaterThanOrEqualTo(4);

      var page = phone.driver();
      signIn(page, h);
      awaitCharts(page, minutes.size());
      WebElement figure =
          page.findElement(
              By.cssSelector(
                  "section[data-room='shop'] figure[data-chart='Active users vs limit T']"));
      ((org.openqa.selenium.JavascriptExecutor) page)
          .executeScript("arguments[0].scrollIntoView({block: 'center'});", figure);
      WebElement limit =
          figure.findElement(By.cssSelector("g[data-series='totalActiveUsers'] path"));
      Map<?, ?> line = box(page, limit);
      BufferedImage shot =
          ImageIO.read(new ByteArrayInputStream(phone.camera().getScreenshotAs(OutputType.BYTES)));
      Files.createDirectories(Path.of("target", "screenshots"));
      ImageIO.write(
          shot, "png", Path.of("target", "screenshots", "dashboard-phone-full.png").toFile());

      double dpr = ((Number) page.executeScript("return window.devicePixelRatio;")).doubleValue();
      int y =
          (int)
              Math.round(
                  (((Number) line.get("top")).doubleValue()
                          + ((Number) line.get("bottom")).doubleValue())
                      / 2
                      * dpr);
      int left = (int) Math.ceil(((Number) line.get("left")).doubleValue() * dpr);
      int right = (int) Math.floor(((Number) line.get("right")).doubleValue() * dpr);
      int limitColoured = 0;
      for (int row = y - 1; row <= y + 1; row++) { // the line's stroke straddles its y
        int inRow = 0;
        for (int x = left; x < right; x++) {
          inRow += limitColour(shot.getRGB(x, row)) ? 1 : 0;
        }
        limitColoured = Math.max(limitColoured, inRow);
      }
      assertThat(limitColoured)
          .as("pixels of the limit's colour along the limit, %d to %d at y = %d", left, right, y)
          .isGreaterThanOrEqualTo((right - left) / 3);
    }
  }

  /** The limit line's orange-red (#c2410c), give or take anti-aliasing. */
  private static boolean limitColour(int rgb) {
    int r = (rgb >> 16) & 0xff;
    int g = (rgb >> 8) & 0xff;
    int b = rgb & 0xff;
    return r > 150 && g < 120 && b < 90;
  }

  @Test
  void theAdminListenerAnswersFaviconIcoWithAnIconTheBrowserDraws() throws Exception {
    try (var h = new Harness(dataDir, ROOM);
        var chromium = HeadlessChromium.start()) {
      var page = chromium.driver();
      page.get(h.adminUrl() + "/");
      Object width =
          page.executeAsyncScript(
              "var done = arguments[arguments.length - 1], img = new Image();"
                  + " img.onload = function () { done(img.naturalWidth); };"
                  + " img.onerror = function () { done(-1); };"
                  + " img.src = '/favicon.ico';");
      assertThat(((Number) width).intValue()).as("the icon's width, -1: not drawn").isPositive();
      var r =
          h.client.send(
              java.net.http.HttpRequest.newBuilder(
                      java.net.URI.create(h.adminUrl() + "/favicon.ico"))
                  .build(),
              java.net.http.HttpResponse.BodyHandlers.ofByteArray());
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.headers().firstValue("Content-Type")).hasValue("image/x-icon");
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

  /**
   * An operator flips a switch from the dashboard and sees it in the recent changes, with the name
   * of the token; a reader who tries is told which scope it needs, and nothing is recorded.
   */
  @Test
  void theRecentChangesShowWhoChangedWhatAndAReaderIsToldWhatScopeItNeeds() throws Exception {
    try (var h =
        new Harness(
            dataDir,
            "rooms: [ { id: shop } ]",
            new io.anteroom.gateway.TestOrigin(),
            new io.anteroom.objects.ManualScheduler(Harness.START),
            null,
            "dc1",
            1,
            "tokens: [ { name: desk, scope: read, token: read-token-0123456789 },"
                + " { name: ops, scope: operate, token: operate-token-0123456789 } ]")) {
      try (var chromium = HeadlessChromium.start(1280, 1200)) {
        var page = chromium.driver();
        page.get(h.adminUrl() + "/");
        page.findElement(By.id("t")).sendKeys("read-token-0123456789");
        page.findElement(By.cssSelector("#f button")).click();
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> page.findElement(By.id("changes")).isDisplayed());
        assertThat(page.findElement(By.id("audit-rows")).getText())
            .isEqualTo("No changes recorded yet.");
        page.findElement(By.xpath("//button[text()='queue all']")).click();
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> page.findElement(By.id("msg")).getText().contains("needs scope operate"));
        assertThat(h.room("shop").settings().switches().queueAll()).isFalse();

        page.findElement(By.id("t")).clear();
        page.findElement(By.id("t")).sendKeys("operate-token-0123456789");
        page.findElement(By.cssSelector("#f button")).click();
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> !page.findElements(By.xpath("//button[text()='queue all']")).isEmpty());
        page.findElement(By.xpath("//button[text()='queue all']")).click();
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> page.findElements(By.cssSelector("#audit-rows tr[data-seq]")).size() == 1);
        String row = page.findElement(By.cssSelector("#audit-rows tr[data-seq='1']")).getText();
        assertThat(row)
            .contains("ops")
            .contains("set queueAll")
            .contains("shop")
            .contains("127.0.0.1")
            .contains("queueAll false → true")
            .contains("2026-11-22 10:00:05");
        assertThat(h.room("shop").settings().switches().queueAll()).isTrue();
        chromium.screenshot(Path.of("target", "screenshots", "dashboard-changes.png"));
      }
    }
  }

  @Test
  void theOperatorChangesARoomsLimitsAndIsShownTheSameProblemsAsTheConfigFile() throws Exception {
    try (var h = new Harness(dataDir, "rooms: [ { id: shop, totalActiveUsers: 5 } ]");
        var chromium = HeadlessChromium.start(1280, 1200)) {
      var page = chromium.driver();
      page.get(h.adminUrl() + "/");
      page.findElement(By.id("t")).sendKeys(h.token);
      page.findElement(By.cssSelector("#f button")).click();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> !page.findElements(By.cssSelector("form[data-limits='shop']")).isEmpty());
      var form = page.findElement(By.cssSelector("form[data-limits='shop']"));
      var users = form.findElement(By.name("totalActiveUsers"));
      assertThat(users.getAttribute("value")).isEqualTo("5");

      users.clear();
      users.sendKeys("0");
      form.findElement(By.cssSelector("button")).click();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> !form.findElement(By.cssSelector(".problems")).getText().isEmpty());
      assertThat(form.findElement(By.cssSelector(".problems")).getText())
          .contains("totalActiveUsers")
          .contains("0");
      assertThat(h.room("shop").settings().limits().totalActiveUsers())
          .as("refused: nothing changed")
          .isEqualTo(5);

      users.clear();
      users.sendKeys("42");
      form.findElement(By.cssSelector("button.preview")).click();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> !form.findElements(By.cssSelector(".page-preview iframe")).isEmpty());
      assertThat(form.findElement(By.cssSelector(".page-preview iframe")).getAttribute("srcdoc"))
          .as("the queue page the change would produce")
          .contains("<html");
      assertThat(form.findElement(By.cssSelector(".json-preview")).getText())
          .contains("\"inWaitingRoom\": true");
      assertThat(h.room("shop").settings().limits().totalActiveUsers())
          .as("a preview applies nothing")
          .isEqualTo(5);

      form.findElement(By.cssSelector("button[type='submit']")).click();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> h.room("shop").settings().limits().totalActiveUsers() == 42);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> page.findElement(By.id("audit-rows")).getText().contains("update room"));
      assertThat(form.findElement(By.cssSelector(".problems")).getText()).isEmpty();
      chromium.screenshot(Path.of("target", "screenshots", "dashboard-limits.png"));
    }
  }
}
