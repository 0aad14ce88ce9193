package io.anteroom.gateway.edge;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.anteroom.gateway.Browser;
import io.anteroom.gateway.Harness;
import io.anteroom.gateway.RawHttp;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** The optional access log: one line per public request, no forged lines, nothing when off. */
class AccessLogTest {

  private static final String ROOM = "rooms: [ { id: shop, totalActiveUsers: 1 } ]";

  @TempDir Path dataDir;

  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private final Logger logger = (Logger) LoggerFactory.getLogger(AccessLog.LOGGER);

  @BeforeEach
  void capture() {
    lines.start();
    logger.addAppender(lines);
  }

  @AfterEach
  void release() {
    logger.detachAppender(lines);
  }

  /** The lines written so far, waiting for {@code count} (a line is written after the response). */
  private List<ILoggingEvent> lines(int count) {
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(10))
        .until(() -> lines.list.size() >= count);
    return List.copyOf(lines.list);
  }

  private static Map<String, Object> fields(ILoggingEvent e) {
    return e.getKeyValuePairs().stream().collect(Collectors.toMap(kv -> kv.key, kv -> kv.value));
  }

  @Test
  void eachRequestGetsOneLineWithClientPathStatusRoomDecisionAndTicketPrefix() throws Exception {
    try (var h = new Harness(dataDir, "accessLog: true\n" + ROOM)) {
      Browser first = h.browser();
      assertThat(Browser.reachedOrigin(first.get("/cart?item=1"))).isTrue();
      assertThat(Browser.reachedOrigin(first.get("/cart"))).isTrue();
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).as("the room is full").isFalse();

      var written = lines(3);
      assertThat(written).hasSize(3);
      String admitted = written.get(0).getFormattedMessage();
      assertThat(admitted)
          .matches(
              "client=127\\.0\\.0\\.1 method=GET path=\"/cart\" status=200 bytes=\\d+ micros=\\d+"
                  + " room=shop decision=admitted ticket=[0-9a-f]{6}");
      var f = fields(written.get(0));
      assertThat(f)
          .containsEntry("client", "127.0.0.1")
          .containsEntry("path", "/cart")
          .containsEntry("status", 200)
          .containsEntry("room", "shop")
          .containsEntry("decision", "admitted");
      assertThat((Long) f.get("bytes")).isPositive();
      assertThat(written.get(1).getFormattedMessage())
          .contains("decision=session")
          .endsWith("ticket=" + f.get("ticket"));
      assertThat(written.get(2).getFormattedMessage())
          .contains("status=200")
          .contains("decision=queued")
          .doesNotEndWith("ticket=" + f.get("ticket"));
      for (ILoggingEvent e : written) {
        assertThat(e.getFormattedMessage()).as("never the cookie").doesNotContain("anteroom");
      }
    }
  }

  @Test
  void hostileRequestsCannotForgeLinesOrFields() throws Exception {
    try (var h =
        new Harness(dataDir, "accessLog: true\ntrustedProxies: [ 127.0.0.0/8 ]\n" + ROOM)) {
      String longPath = "/" + "x".repeat(3000);
      String garbage = "6.6.6.6 decision=admitted\" ".repeat(50);
      for (String target :
          List.of(
              "/a%0d%0aclient=6.6.6.6%20decision=admitted%22",
              "/caf%C3%A9%E2%80%A8%0A/x%22%20client=6.6.6.6", longPath)) {
        var r =
            RawHttp.send(
                h.gateway.port(),
                "GET "
                    + target
                    + " HTTP/1.1\nHost: localhost\nX-Forwarded-For: "
                    + garbage
                    + ", 127.0.0.1\nConnection: close\n");
        assertThat(r.status()).as(target).isPositive();
      }
      var written = lines(3);
      for (ILoggingEvent e : written) {
        String line = e.getFormattedMessage();
        assertThat(line).doesNotContain("\r").doesNotContain("\n").doesNotContain("\u2028");
        assertThat(line.split(" client=", -1)).as(line).hasSize(1);
        assertThat(line.split(" decision=", -1)).as(line).hasSize(2);
        assertThat(line)
            .as("the proxy wrote garbage: an unknown client")
            .startsWith("client=- method=GET path=\"");
        assertThat(line.length()).as("values are cut").isLessThan(1000);
        // the path is one quoted value: no quote inside it
        String path = line.substring(line.indexOf("path=\"") + 6);
        assertThat(path.substring(0, path.indexOf('"'))).doesNotContain(" ");
      }
    }
  }

  @Test
  void escapingKeepsEveryValuePrintableAsciiWithoutSeparators() {
    assertThat(AccessLog.safe("/a\r\nb \"c\"\\d\u00e9"))
        .isEqualTo("/a\\u000d\\u000ab\\u0020\\u0022c\\u0022\\u005cd\\u00e9");
    assertThat(AccessLog.safe("y".repeat(AccessLog.MAX_VALUE + 50)))
        .hasSize(AccessLog.MAX_VALUE + 3)
        .endsWith("...");
    assertThat(AccessLog.safe(null)).isEqualTo("-");
  }

  @Test
  void offByDefaultNothingIsWritten() throws Exception {
    try (var h = new Harness(dataDir, ROOM)) {
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isTrue();
      assertThat(Browser.reachedOrigin(h.browser().get("/"))).isFalse();
      assertThat(lines.list).isEmpty();
    }
  }
}
