package io.anteroom.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.anteroom.gateway.Browser;
import io.anteroom.gateway.Harness;
import io.anteroom.gateway.TestOrigin;
import io.anteroom.objects.ManualScheduler;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /api/rooms/{id}/report} and {@code .csv}: a crowd's day and event totals from the
 * room's global object, the CSV's columns, the date rules, and who may read them.
 */
class ReportApiTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ROOM =
      "rooms: [ { id: shop, totalActiveUsers: 5, events: [ { name: launch, eventStartTime:"
          + " '2026-11-22T09:00:00Z', eventEndTime: '2026-11-22T12:00:00Z' } ] } ]";

  @TempDir Path dataDir;

  private static JsonNode report(Harness h) throws Exception {
    var r = h.admin("GET", "/api/rooms/shop/report?from=2026-11-22&to=2026-11-22", null);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  /** Report rounds while virtual time passes, until the report shows {@code admissions}. */
  private static JsonNode settled(Harness h, ManualScheduler time, long admissions)
      throws Exception {
    for (int i = 0; i < 10; i++) {
      h.report("shop");
      time.advance(Duration.ofSeconds(6));
      h.report("shop");
      JsonNode r = report(h);
      if (r.get("days").size() == 1
          && r.get("days").get(0).get("admissions").asLong() == admissions) {
        return r;
      }
    }
    throw new AssertionError("the report never showed " + admissions + " admissions");
  }

  @Test
  void aCrowdsDayAndEventShowArrivalsAdmissionsPassesUsedAndWaitsAsJsonAndCsv() throws Exception {
    var time = new ManualScheduler(Harness.START);
    try (var h = new Harness(dataDir, ROOM, new TestOrigin(), time, null, "dc1")) {
      long reached = 0;
      for (int i = 0; i < 12; i++) {
        if (Browser.reachedOrigin(h.browser().getAsync("/").join())) {
          reached++;
        }
      }
      assertThat(reached).isEqualTo(5);
      JsonNode r = settled(h, time, 5);
      JsonNode day = r.get("days").get(0);
      assertThat(day.get("day").asText()).isEqualTo("2026-11-22");
      assertThat(day.get("arrivals").asLong()).as("queued arrivals").isEqualTo(7);
      assertThat(day.get("admissions").asLong()).isEqualTo(5);
      assertThat(day.get("passesUsed").asLong())
          .as("each admitted request reached the origin with its pass")
          .isEqualTo(5);
      assertThat(day.get("noShows").asLong()).isZero();
      assertThat(day.get("realWaitP95Seconds").asLong()).as("let in at once").isZero();
      JsonNode event = r.get("events").get(0);
      assertThat(event.get("event").asText()).isEqualTo("launch");
      assertThat(event.get("from").asText()).isEqualTo("2026-11-22T09:00:00Z");
      assertThat(event.get("admissions").asLong()).isEqualTo(5);

      var csv = h.admin("GET", "/api/rooms/shop/report.csv?from=2026-11-22&to=2026-11-22", null);
      assertThat(csv.statusCode()).isEqualTo(200);
      assertThat(csv.headers().firstValue("Content-Type")).hasValue("text/csv; charset=utf-8");
      assertThat(csv.headers().firstValue("Content-Disposition"))
          .hasValue("attachment; filename=\"anteroom-report-shop-2026-11-22-2026-11-22.csv\"");
      String[] lines = csv.body().split("\r\n");
      assertThat(lines[0]).isEqualTo(String.join(",", ReportApi.CSV_COLUMNS));
      assertThat(lines).hasSize(3);
      assertThat(lines[1])
          .startsWith("day,2026-11-22,2026-11-22T00:00:00Z,2026-11-23T00:00:00Z,")
          .contains(",7,5,"); // arrivals, admissions
      assertThat(lines[2]).startsWith("event,launch,2026-11-22T09:00:00Z,2026-11-22T12:00:00Z,");
      String[] dayCells = lines[1].split(",", -1);
      assertThat(dayCells[ReportApi.CSV_COLUMNS.indexOf("passesUsed")]).isEqualTo("5");
      assertThat(dayCells[ReportApi.CSV_COLUMNS.indexOf("estimatedWaitP50Seconds")])
          .isEqualTo(
              day.get("estimatedWaitP50Seconds").isNull()
                  ? ""
                  : day.get("estimatedWaitP50Seconds").asText());
    }
  }

  @Test
  void datesThatAreNotDatesOrSpanMoreThanTheDaysKeptAre400NamingTheParameter() throws Exception {
    try (var h = new Harness(dataDir, ROOM)) {
      var bad = h.admin("GET", "/api/rooms/shop/report?from=yesterday", null);
      assertThat(bad.statusCode()).isEqualTo(400);
      assertThat(JSON.readTree(bad.body()).get("error").asText())
          .startsWith("from: expected a UTC date");
      var wide = h.admin("GET", "/api/rooms/shop/report.csv?from=2026-01-01&to=2026-11-22", null);
      assertThat(wide.statusCode()).isEqualTo(400);
      assertThat(wide.body()).contains("at most 35 days");
      var backwards = h.admin("GET", "/api/rooms/shop/report?from=2026-11-22&to=2026-11-21", null);
      assertThat(backwards.statusCode()).isEqualTo(400);
      assertThat(h.admin("GET", "/api/rooms/nope/report", null).statusCode()).isEqualTo(404);
    }
  }

  @Test
  void aReaderMayDownloadTheReportAndNobodyWithoutAToken() throws Exception {
    try (var h = AdminRolesTest.roles(dataDir, ROOM)) {
      assertThat(
              h.admin(AdminRolesTest.READ_TOKEN, "GET", "/api/rooms/shop/report.csv", null)
                  .statusCode())
          .isEqualTo(200);
      assertThat(
              h.admin("not-a-token-0123456789", "GET", "/api/rooms/shop/report", null).statusCode())
          .isEqualTo(401);
    }
  }

  @Test
  void aCellThatASpreadsheetWouldRunIsDefusedAndCommasAreQuoted() {
    assertThat(ReportApi.cell("=HYPERLINK(\"x\")")).isEqualTo("\"'=HYPERLINK(\"\"x\"\")\"");
    assertThat(ReportApi.cell("a,b")).isEqualTo("\"a,b\"");
    assertThat(ReportApi.cell("launch")).isEqualTo("launch");
  }
}
