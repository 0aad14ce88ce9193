package io.anteroom.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.anteroom.gateway.Harness;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Grafana dashboard shipped in the distribution ({@code dist/src/dist/grafana}) asks only for
 * metrics a running gateway exports, always per room, so a renamed metric breaks this test instead
 * of leaving an empty panel.
 */
class GrafanaDashboardTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path DASHBOARD =
      Path.of("..", "dist", "src", "dist", "grafana", "anteroom-dashboard.json");

  /** PromQL words that are not metric names. */
  private static final Set<String> KEYWORDS =
      Set.of(
          "by",
          "without",
          "on",
          "ignoring",
          "group_left",
          "group_right",
          "bool",
          "and",
          "or",
          "unless",
          "offset");

  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_:][A-Za-z0-9_:]*");

  @TempDir Path dataDir;

  @Test
  void everyQueryOfTheDashboardNamesOnlyMetricsTheGatewayExports() throws Exception {
    JsonNode dashboard = JSON.readTree(Files.readString(DASHBOARD));
    var expressions = new ArrayList<String>();
    for (JsonNode panel : dashboard.get("panels")) {
      assertThat(panel.path("targets").isEmpty()).as(panel.path("title").asText()).isFalse();
      for (JsonNode target : panel.get("targets")) {
        String expr = target.get("expr").asText();
        assertThat(expr).as("%s is per room", panel.path("title").asText()).contains("$room");
        expressions.add(expr);
      }
    }
    JsonNode room = null;
    for (JsonNode v : dashboard.at("/templating/list")) {
      if (v.path("name").asText().equals("room")) {
        room = v;
      }
    }
    assertThat(room).as("a room template variable").isNotNull();
    expressions.add(room.at("/query/query").asText());

    var used = new TreeSet<String>();
    expressions.forEach(e -> used.addAll(metricNames(e)));

    Set<String> exported;
    try (var h =
        new Harness(
            dataDir,
            """
        rooms:
          - { id: shop, totalActiveUsers: 1 }
          - { id: blog, path: /blog/ }""")) {
      h.browser().get("/"); // admitted
      h.browser().get("/"); // queued
      h.report("shop");
      HttpResponse<String> metrics =
          h.client.send(
              HttpRequest.newBuilder(URI.create(h.adminUrl() + "/metrics")).build(),
              HttpResponse.BodyHandlers.ofString());
      exported = sampleNames(metrics.body());
    }
    assertThat(used)
        .contains(
            "anteroom_room_active_users",
            "anteroom_room_total_active_users_limit",
            "anteroom_room_waiting_users",
            "anteroom_room_admitted_new_total",
            "anteroom_room_effective_new_users_per_minute",
            "anteroom_room_max_wait_minutes",
            "anteroom_room_degraded",
            "anteroom_room_origin_latency_seconds");
    assertThat(exported).containsAll(used);
  }

  @Test
  void metricNamesAreToldFromFunctionsLabelsAndRanges() {
    assertThat(
            metricNames(
                "sum by (room) (rate(a_total{room=~\"$room\", quantile=\"0.99\"}[$__rate_interval]))"
                    + " * 60 / on(room) group_left b"))
        .containsExactlyInAnyOrder("a_total", "b");
    assertThat(metricNames("label_values(c_gauge, room)")).containsExactly("c_gauge");
  }

  /** The metric names of a PromQL expression (or a Grafana {@code label_values} query). */
  static List<String> metricNames(String expr) {
    String e =
        expr.replaceAll("label_values\\(\\s*([A-Za-z_:][A-Za-z0-9_:]*)\\s*,[^)]*\\)", "$1")
            .replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", "\"\"") // string literals
            .replaceAll("\\{[^}]*}", "") // label matchers
            .replaceAll("\\[[^]]*]", "") // ranges
            .replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", "")
            .replaceAll("\\$\\w+", ""); // Grafana variables
    var names = new ArrayList<String>();
    Matcher m = IDENTIFIER.matcher(e);
    while (m.find()) {
      String name = m.group();
      int next = m.end();
      while (next < e.length() && Character.isWhitespace(e.charAt(next))) {
        next++;
      }
      boolean function = next < e.length() && e.charAt(next) == '(';
      boolean number = m.start() > 0 && Character.isDigit(e.charAt(m.start() - 1));
      if (!function && !number && !KEYWORDS.contains(name)) {
        names.add(name);
      }
    }
    return names;
  }

  /** The names of the samples of a Prometheus text exposition. */
  private static Set<String> sampleNames(String exposition) {
    var names = new TreeSet<String>();
    for (String line : exposition.split("\n")) {
      Matcher m = IDENTIFIER.matcher(line);
      if (!line.startsWith("#") && m.lookingAt()) {
        names.add(m.group());
      }
    }
    return names;
  }
}
