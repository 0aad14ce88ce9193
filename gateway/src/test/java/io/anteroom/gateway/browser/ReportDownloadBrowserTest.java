package io.anteroom.gateway.browser;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.anteroom.gateway.Harness;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;

/**
 * The dashboard's report download in a real headless Chromium: a reader presses a room's "report
 * (CSV)" button and gets the room's report as a CSV file named after the room and the dates.
 */
class ReportDownloadBrowserTest {

  @TempDir Path dataDir;

  @Test
  void aReaderDownloadsARoomsReportAsCsvFromTheDashboard() throws Exception {
    try (var h =
            new Harness(
                dataDir,
                "rooms: [ { id: shop, totalActiveUsers: 2 } ]",
                new io.anteroom.gateway.TestOrigin(),
                new io.anteroom.objects.ManualScheduler(Harness.START),
                null,
                "dc1",
                1,
                "tokens: [ { name: desk, scope: read, token: read-token-0123456789 } ]");
        var chromium = HeadlessChromium.start(1280, 1000)) {
      for (int i = 0; i < 3; i++) {
        h.browser().get("/");
      }
      for (int step = 0;
          step < 10
              && !h.admin("GET", "/api/rooms/shop/report", null)
                  .body()
                  .contains("\"day\":\"2026-11-22\"");
          step++) {
        h.report("shop");
        h.scheduler.advance(Duration.ofSeconds(6));
        h.report("shop");
      }
      var page = chromium.driver();
      page.get(h.adminUrl() + "/");
      page.findElement(By.id("t")).sendKeys("read-token-0123456789");
      page.findElement(By.cssSelector("#f button")).click();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> !page.findElements(By.cssSelector("button[data-report='shop']")).isEmpty());
      page.findElement(By.cssSelector("button[data-report='shop']")).click();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> page.findElement(By.id("msg")).getText().startsWith("Report of shop"));
      var link = page.findElement(By.id("report-link"));
      assertThat(link.getDomAttribute("download"))
          .matches("anteroom-report-shop-\\d{4}-\\d{2}-\\d{2}-2026-11-22\\.csv");
      Object csv =
          page.executeAsyncScript(
              "var done = arguments[arguments.length - 1];"
                  + " fetch(document.getElementById('report-link').href)"
                  + ".then(function (r) { return r.text(); }).then(done, function (e) { done('' + e); });");
      System.out.println(
          "REPORT " + h.admin("GET", "/api/rooms/shop/report", null).body() + " CSV " + csv);
      String[] lines = csv.toString().split("\r?\n"); // the driver may drop the \r
      assertThat(lines[0]).startsWith("kind,key,from,to,minutes,arrivals,admissions,");
      assertThat(lines).as("the day of the run").hasSize(2);
      assertThat(lines[1]).startsWith("day,2026-11-22,");
      chromium.screenshot(Path.of("target", "screenshots", "dashboard-report.png"));
    }
  }

  /** Clicks a download button and answers the file's name and its lines. */
  private static String[] downloaded(org.openqa.selenium.WebDriver page, String button, String name)
      throws Exception {
    page.findElement(By.cssSelector(button)).click();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                page.findElement(By.id("msg"))
                    .getText()
                    .equals("Report of shop downloaded: " + name));
    Object csv =
        ((org.openqa.selenium.JavascriptExecutor) page)
            .executeAsyncScript(
                "var done = arguments[arguments.length - 1];"
                    + " fetch(document.getElementById('report-link').href)"
                    + ".then(function (r) { return r.text(); }).then(done, function (e) { done('' + e); });");
    return csv.toString().split("\r?\n");
  }

  @Test
  void theReportTableShowsEachDayAndEventAndDownloadsEachAsCsv() throws Exception {
    try (var h =
            new Harness(
                dataDir,
                "rooms: [ { id: shop, totalActiveUsers: 2, events: [ { name: launch,"
                    + " eventStartTime: '2026-11-22T09:00:00Z', eventEndTime:"
                    + " '2026-11-22T12:00:00Z' } ] } ]",
                new io.anteroom.gateway.TestOrigin(),
                new io.anteroom.objects.ManualScheduler(Harness.START),
                null,
                "dc1",
                1,
                "tokens: [ { name: desk, scope: read, token: read-token-0123456789 } ]");
        var chromium = HeadlessChromium.start(1280, 1400)) {
      for (int i = 0; i < 3; i++) {
        h.browser().get("/");
      }
      for (int step = 0;
          step < 10
              && !h.admin("GET", "/api/rooms/shop/report", null)
                  .body()
                  .contains("\"event\":\"launch\"");
          step++) {
        h.report("shop");
        h.scheduler.advance(Duration.ofSeconds(6));
        h.report("shop");
      }
      var page = chromium.driver();
      page.get(h.adminUrl() + "/");
      page.findElement(By.id("t")).sendKeys("read-token-0123456789");
      page.findElement(By.cssSelector("#f button")).click();
      String table = "div[data-report-table='shop'] ";
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  page.findElements(By.cssSelector(table + "tr[data-line='event:launch']")).size()
                      == 1);
      var day = page.findElement(By.cssSelector(table + "tr[data-line='day:2026-11-22']"));
      assertThat(day.findElements(By.tagName("td")).get(0).getText()).isEqualTo("2026-11-22");
      assertThat(day.findElements(By.tagName("td")).get(2).getText())
          .as("admissions")
          .isEqualTo("2");

      String[] dayCsv =
          downloaded(
              page,
              table + "button[data-csv='day:2026-11-22']",
              "anteroom-report-shop-2026-11-22-2026-11-22.csv");
      assertThat(dayCsv[0]).startsWith("kind,key,from,to,minutes,arrivals,admissions,");
      assertThat(dayCsv).hasSize(3);
      assertThat(dayCsv[1]).startsWith("day,2026-11-22,");
      assertThat(dayCsv[2]).startsWith("event,launch,");

      String[] eventCsv =
          downloaded(
              page,
              table + "button[data-csv='event:launch']",
              "anteroom-report-shop-event-launch.csv");
      assertThat(eventCsv).as("the event's line alone").hasSize(2);
      assertThat(eventCsv[1]).startsWith("event,launch,2026-11-22T09:00:00Z,2026-11-22T12:00:00Z,");
      chromium.screenshot(Path.of("target", "screenshots", "dashboard-report-table.png"));
    }
  }
}
