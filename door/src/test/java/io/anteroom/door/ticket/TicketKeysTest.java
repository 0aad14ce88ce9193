package io.anteroom.door.ticket;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

class TicketKeysTest {
  @TempDir Path dataDir;
  private final Logger log = (Logger) LoggerFactory.getLogger(TicketKeys.class);
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

  @BeforeEach
  void captureLog() {
    logged.start();
    log.addAppender(logged);
  }

  @AfterEach
  void releaseLog() {
    log.detachAppender(logged);
  }

  @Test
  void aGeneratedKeyFileIsOwnerOnlyAndOpensTheSameKeysOnTheNextStart() throws Exception {
    var first = TicketKeys.resolve(List.of(), dataDir);
    Path file = dataDir.resolve(TicketKeys.FILE);

    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
    assertThat(text(TicketKeys.resolve(List.of(), dataDir))).isEqualTo(text(first));
    assertThat(logged.list).noneMatch(e -> e.getLevel() == Level.WARN);
  }

  private static List<String> text(List<io.anteroom.door.config.GatewayConfig.TicketKey> keys) {
    return keys.stream()
        .map(k -> k.id() + " " + java.util.Base64.getEncoder().encodeToString(k.secret()))
        .toList();
  }

  @Test
  void aKeyFileOthersMayReadIsWarnedAboutAtStart() throws Exception {
    TicketKeys.resolve(List.of(), dataDir);
    Path file = dataDir.resolve(TicketKeys.FILE);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));

    TicketKeys.resolve(List.of(), dataDir);

    assertThat(logged.list)
        .anySatisfy(
            e -> {
              assertThat(e.getLevel()).isEqualTo(Level.WARN);
              assertThat(e.getFormattedMessage()).contains(file.toString(), "chmod 600");
            });
  }
}
