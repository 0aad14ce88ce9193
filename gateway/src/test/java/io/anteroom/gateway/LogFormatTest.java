package io.anteroom.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The shipped logback configurations: dated text lines, or one JSON object per line. */
class LogFormatTest {

  @Test
  void textLinesCarryTheDateTimeAndOffset() throws Exception {
    String out = logWith("/logback.xml", "room shop: hello");

    assertThat(out.strip())
        .matches(
            "\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}(Z|[+-]\\d{2}:\\d{2}) INFO  probe - room"
                + " shop: hello");
  }

  @Test
  void jsonLinesAreOneObjectEach() throws Exception {
    String out = logWith("/logback-json.xml", "room \"shop\": hello");

    JsonNode line = new ObjectMapper().readTree(out.strip());
    assertThat(line.get("level").asText()).isEqualTo("INFO");
    assertThat(line.get("loggerName").asText()).isEqualTo("probe");
    assertThat(line.get("message").asText()).isEqualTo("room \"shop\": hello");
    assertThat(line.get("timestamp").asLong()).isPositive();
  }

  /** Configures a fresh logger context from the resource, logs one line, returns stdout. */
  private static String logWith(String resource, String message) throws Exception {
    PrintStream original = System.out;
    var captured = new ByteArrayOutputStream();
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    var context = new LoggerContext();
    context.setMDCAdapter(new ch.qos.logback.classic.util.LogbackMDCAdapter());
    try {
      var configurator = new JoranConfigurator();
      configurator.setContext(context);
      configurator.doConfigure(LogFormatTest.class.getResource(resource));
      context.getLogger("probe").info(message);
    } finally {
      context.stop();
      System.setOut(original);
    }
    return captured.toString(StandardCharsets.UTF_8);
  }
}
