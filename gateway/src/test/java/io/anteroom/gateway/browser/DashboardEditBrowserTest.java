package io.anteroom.gateway.browser;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.anteroom.door.config.ConfigLoader;
import io.anteroom.gateway.Harness;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

/**
 * The dashboard edits a room's scheduled events and its templates in a real headless Chromium: a
 * refused change shows the config file's own messages and changes nothing; a preview shows the
 * queue page (HTML and JSON) the change would give, before it applies; a saved change is served and
 * recorded in the audit log.
 */
class DashboardEditBrowserTest {

  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dataDir;

  private static void signIn(WebDriver page, Harness h) {
    page.get(h.adminUrl() + "/");
    page.findElement(By.id("t")).sendKeys(h.token);
    page.findElement(By.cssSelector("#f button")).click();
  }

  /** Sets a text field's value at once (typing a long JSON text key by key is slow). */
  private static void type(WebDriver page, WebElement field, String text) {
    ((JavascriptExecutor) page)
        .executeScript(
            "arguments[0].value = arguments[1];"
                + " arguments[0].dispatchEvent(new Event('input', { bubbles: true }));",
            field,
            text);
  }

  private static String problems(WebElement form) {
    await()
        .atMost(WAIT)
        .until(() -> !form.findElement(By.cssSelector(".problems")).getText().isEmpty());
    return form.findElement(By.cssSelector(".problems")).getText();
  }

  @Test
  void theOperatorEditsEventsSeesTheConfigFilesMessagesPreviewsThePageAndSaves() throws Exception {
    try (var h =
            new Harness(
                dataDir,
                "rooms: [ { id: shop, totalActiveUsers: 5, events: [ { name: launch,"
                    + " eventStartTime: '2026-12-01T18:00:00Z', eventEndTime:"
                    + " '2026-12-01T20:00:00Z' } ] } ]");
        var chromium = HeadlessChromium.start(1280, 1400)) {
      var page = chromium.driver();
      signIn(page, h);
      await()
          .atMost(WAIT)
          .until(
              () ->
                  page
                      .findElements(By.cssSelector("form[data-events-edit='shop'] textarea"))
                      .stream()
                      .anyMatch(t -> t.getDomProperty("value").contains("launch")));
      var form = page.findElement(By.cssSelector("form[data-events-edit='shop']"));
      var text = form.findElement(By.name("events"));

      String bad =
          "[{\"name\":\"sale\",\"eventStartTime\":\"2026-12-02T18:00:00Z\","
              + "\"eventEndTime\":\"2026-12-02T17:00:00Z\",\"totalActiveUsers\":0}]";
      type(page, text, bad);
      form.findElement(By.cssSelector("button[type='submit']")).click();
      String shown = problems(form);
      // the config file's check of the same events, as an operator would see it from `check`
      String file;
      try {
        ConfigLoader.parse(
            "rooms: [ { id: shop, totalActiveUsers: 5, events: " + bad + " } ]", "anteroom.yaml");
        throw new AssertionError("the config file accepted the events");
      } catch (IllegalArgumentException e) {
        file = e.getMessage();
      }
      for (String key : new String[] {"events[0].totalActiveUsers", "events[0]: event 'sale'"}) {
        String line = file.lines().filter(l -> l.contains(key)).findFirst().orElseThrow().trim();
        String message = line.substring(line.indexOf(key));
        assertThat(shown).as("the config file's message for " + key).contains(message);
      }
      assertThat(h.room("shop").settings().events())
          .extracting(e -> e.window().name())
          .as("refused: nothing changed")
          .containsExactly("launch");

      String good =
          "[{\"name\":\"sale\",\"eventStartTime\":\"2026-12-02T18:00:00Z\","
              + "\"eventEndTime\":\"2026-12-02T20:00:00Z\",\"totalActiveUsers\":50}]";
      type(page, text, good);
      form.findElement(By.cssSelector("button.preview")).click();
      await()
          .atMost(WAIT)
          .until(() -> !form.findElements(By.cssSelector(".page-preview iframe")).isEmpty());
      assertThat(form.findElement(By.cssSelector(".page-preview iframe")).getDomAttribute("srcdoc"))
          .contains("<html");
      assertThat(form.findElement(By.cssSelector(".json-preview")).getText())
          .as("the page at the event's start, by default")
          .contains("\"eventName\": \"sale\"");
      assertThat(h.room("shop").settings().events())
          .extracting(e -> e.window().name())
          .as("a preview applies nothing")
          .containsExactly("launch");

      form.findElement(By.cssSelector("button[type='submit']")).click();
      await()
          .atMost(WAIT)
          .until(
              () ->
                  h.room("shop").settings().events().stream()
                      .anyMatch(e -> e.window().name().equals("sale")));
      await()
          .atMost(WAIT)
          .until(() -> page.findElement(By.id("audit-rows")).getText().contains("set events"));
      assertThat(form.findElement(By.cssSelector(".problems")).getText()).isEmpty();
      chromium.screenshot(Path.of("target", "screenshots", "dashboard-events.png"));
    }
  }

  @Test
  void theAdminWritesATemplatePreviewsItAndTheRoomServesIt() throws Exception {
    try (var h = new Harness(dataDir, "rooms: [ { id: shop, queueAll: true } ]");
        var chromium = HeadlessChromium.start(1280, 1600)) {
      var page = chromium.driver();
      signIn(page, h);
      await()
          .atMost(WAIT)
          .until(() -> !page.findElements(By.cssSelector("form[data-templates='shop']")).isEmpty());
      var form = page.findElement(By.cssSelector("form[data-templates='shop']"));
      form.findElement(By.name("name")).sendKeys("queue.html");
      form.findElement(By.name("use")).click();
      var text = form.findElement(By.name("text"));

      type(page, text, "<html><body>{{#open}} never closed</body></html>");
      form.findElement(By.cssSelector("button[type='submit']")).click();
      assertThat(problems(form)).contains("templates.\"queue.html\"", "not a valid Mustache");
      assertThat(h.rooms().keptTemplates("shop")).as("refused: nothing kept").isEmpty();

      type(
          page,
          text,
          "<html><body><h1>DASHBOARD-PAGE</h1> wait {{estimatedWaitMinutes}}</body></html>");
      form.findElement(By.cssSelector("button.preview")).click();
      await()
          .atMost(WAIT)
          .until(() -> !form.findElements(By.cssSelector(".page-preview iframe")).isEmpty());
      assertThat(form.findElement(By.cssSelector(".page-preview iframe")).getDomAttribute("srcdoc"))
          .contains("DASHBOARD-PAGE");
      assertThat(h.room("shop").settings().queuePage().template())
          .as("a preview applies nothing")
          .isEmpty();
      assertThat(h.browser().get("/", "Accept", "text/html").body())
          .doesNotContain("DASHBOARD-PAGE");

      form.findElement(By.cssSelector("button[type='submit']")).click();
      await()
          .atMost(WAIT)
          .until(
              () -> h.browser().get("/", "Accept", "text/html").body().contains("DASHBOARD-PAGE"));
      assertThat(h.room("shop").settings().queuePage().template()).contains("queue.html");
      await()
          .atMost(WAIT)
          .until(() -> page.findElement(By.id("audit-rows")).getText().contains("update room"));

      // a second change of the same template: the templates alone
      await()
          .atMost(WAIT)
          .until(
              () ->
                  form.findElements(By.cssSelector("select[name='pick'] option")).stream()
                      .anyMatch(o -> o.getText().equals("queue.html")));
      type(page, text, "<html><body>SECOND-VERSION</body></html>");
      form.findElement(By.cssSelector("button[type='submit']")).click();
      await()
          .atMost(WAIT)
          .until(
              () -> h.browser().get("/", "Accept", "text/html").body().contains("SECOND-VERSION"));
      await()
          .atMost(WAIT)
          .until(() -> page.findElement(By.id("audit-rows")).getText().contains("set templates"));
      chromium.screenshot(Path.of("target", "screenshots", "dashboard-templates.png"));
    }
  }

  @Test
  void anOperatorMayPreviewATemplateButSavingItIsRefusedNamingTheScopeNeeded() throws Exception {
    try (var h =
            new Harness(
                dataDir,
                "rooms: [ { id: shop } ]",
                new io.anteroom.gateway.TestOrigin(),
                new io.anteroom.objects.ManualScheduler(Harness.START),
                null,
                "dc1",
                1,
                "tokens: [ { name: ops, scope: operate, token: operate-token-0123456789 } ]");
        var chromium = HeadlessChromium.start(1280, 1600)) {
      var page = chromium.driver();
      page.get(h.adminUrl() + "/");
      page.findElement(By.id("t")).sendKeys("operate-token-0123456789");
      page.findElement(By.cssSelector("#f button")).click();
      await()
          .atMost(WAIT)
          .until(() -> !page.findElements(By.cssSelector("form[data-templates='shop']")).isEmpty());
      var form = page.findElement(By.cssSelector("form[data-templates='shop']"));
      form.findElement(By.name("name")).sendKeys("queue.html");
      form.findElement(By.name("use")).click();
      type(page, form.findElement(By.name("text")), "<p>OPERATOR-DRAFT</p>");
      form.findElement(By.cssSelector("button.preview")).click();
      await()
          .atMost(WAIT)
          .until(() -> !form.findElements(By.cssSelector(".page-preview iframe")).isEmpty());
      assertThat(form.findElement(By.cssSelector(".page-preview iframe")).getDomAttribute("srcdoc"))
          .as("a preview needs scope operate")
          .contains("OPERATOR-DRAFT");

      form.findElement(By.cssSelector("button[type='submit']")).click();
      assertThat(problems(form)).contains("token \"ops\" has scope operate", "needs scope admin");
      assertThat(h.rooms().keptTemplates("shop")).isEmpty();
      assertThat(h.room("shop").settings().queuePage().template()).isEmpty();
    }
  }
}
