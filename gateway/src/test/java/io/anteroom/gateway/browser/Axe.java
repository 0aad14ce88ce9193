package io.anteroom.gateway.browser;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * axe-core (the webjar {@code org.webjars.npm:axe-core}, fetched by the build) run on the page a
 * real Chromium shows: every violation of its WCAG 2 A/AA and best-practice rules, one line each
 * (rule, impact, help, the elements).
 */
final class Axe {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SOURCE = load();

  private Axe() {}

  private static String load() {
    String path = "/META-INF/resources/webjars/axe-core/" + version() + "/axe.min.js";
    try (InputStream in = Axe.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("axe-core is not on the test class path: " + path);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String version() {
    try (InputStream in =
        Axe.class.getResourceAsStream("/META-INF/maven/org.webjars.npm/axe-core/pom.properties")) {
      var p = new java.util.Properties();
      p.load(in);
      return p.getProperty("version");
    } catch (IOException | NullPointerException e) {
      throw new IllegalStateException("axe-core's webjar has no pom.properties", e);
    }
  }

  /** The violations on the current page, one line each; empty when there is none. */
  static List<String> violations(ChromeDriver page) throws IOException {
    page.executeScript(SOURCE);
    Object result =
        page.executeAsyncScript(
            "var done = arguments[arguments.length - 1];"
                + "axe.run(document, { resultTypes: ['violations'] })"
                + ".then(function (r) { done(JSON.stringify(r.violations)); })"
                + ".catch(function (e) { done('error: ' + e); });");
    String text = String.valueOf(result);
    if (text.startsWith("error: ")) {
      throw new AssertionError("axe.run failed: " + text);
    }
    var lines = new ArrayList<String>();
    for (JsonNode v : JSON.readTree(text)) {
      var targets = new ArrayList<String>();
      v.get("nodes").forEach(n -> targets.add(n.get("target").toString()));
      lines.add(
          v.get("id").asText()
              + " ("
              + v.get("impact").asText()
              + "): "
              + v.get("help").asText()
              + " at "
              + targets);
    }
    return lines;
  }
}
