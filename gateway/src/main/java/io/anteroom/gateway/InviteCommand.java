package io.anteroom.gateway;

import io.anteroom.door.config.ConfigLoader;
import io.anteroom.door.config.GatewayConfig;
import io.anteroom.door.config.GatewayConfig.EventSettings;
import io.anteroom.door.config.GatewayConfig.RoomSettings;
import io.anteroom.door.config.InvitationKey;
import io.anteroom.door.proof.Invitations;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code anteroom invite}: a batch of invitations to an invite-only room (or event) as CSV, for a
 * mailing list, signed with the room's {@code invitations.keyFile} as the operator's backend would
 * sign them ({@link Invitations#sign}); or, with {@code --new-key}, a fresh key file.
 */
@Command(
    name = "invite",
    mixinStandardHelpOptions = true,
    description =
        "Print a batch of invitations to a room (or one of its events) as CSV: id, room, event,"
            + " account, expiresAt, token (and link with --link). Each gives one place in line,"
            + " once in the whole deployment. With --new-key FILE, write a fresh invitation key"
            + " and exit.")
final class InviteCommand implements Callable<Integer> {

  /** The most invitations one run prints. */
  static final int MAX_COUNT = 1_000_000;

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description = "YAML configuration (default: ./anteroom.yaml)")
  Path config = Path.of("anteroom.yaml");

  @Option(names = "--room", paramLabel = "ID", description = "the room the invitations are for")
  String room;

  @Option(
      names = "--event",
      paramLabel = "NAME",
      description = "the event they are for: valid only while it applies (pre-queue included)")
  String event;

  @Option(
      names = "--count",
      paramLabel = "N",
      defaultValue = "1",
      description = "how many invitations (default 1; ignored with --accounts)")
  int count;

  @Option(
      names = "--accounts",
      paramLabel = "FILE",
      description = "one account id a line: one invitation naming each account")
  Path accounts;

  @Option(
      names = "--expires",
      paramLabel = "WHEN",
      description =
          "an ISO-8601 instant (2026-12-01T20:00:00Z) or a duration from now (PT48H, P7D);"
              + " default: the event's end, or 7 days from now without --event")
  String expires;

  @Option(
      names = "--link",
      paramLabel = "URL",
      description = "add a column with the invitation link: URL?anteroom-invite=TOKEN")
  String link;

  @Option(
      names = "--new-key",
      paramLabel = "FILE",
      description = "write a fresh random invitation key to FILE (owner-only; never over a file)")
  Path newKey;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** The clock the expiry defaults count from (tests set it). */
  Clock clock = Clock.systemUTC();

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    if (newKey != null) {
      if (!InvitationKey.create(newKey)) {
        throw new IllegalArgumentException(
            "--new-key: " + newKey + " exists; it was kept (remove it first to replace the key)");
      }
      out.println("invitation key written to " + newKey);
      out.flush();
      return 0;
    }
    if (room == null) {
      throw new IllegalArgumentException("--room: which room are the invitations for?");
    }
    GatewayConfig loaded = ConfigLoader.load(config);
    RoomSettings settings =
        loaded.rooms().stream()
            .filter(r -> r.id().equals(room))
            .findFirst()
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "--room "
                            + room
                            + ": no such room in the configuration (rooms: "
                            + String.join(
                                ", ", loaded.rooms().stream().map(RoomSettings::id).toList())
                            + ")"));
    Path keyFile =
        settings
            .protection()
            .invitations()
            .keyFile()
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "room "
                            + room
                            + " has no invitations.keyFile: set one (anteroom invite --new-key"
                            + " FILE writes a key)"));
    EventSettings ev = null;
    if (event != null) {
      ev =
          settings.events().stream()
              .filter(e -> e.window().name().equals(event))
              .findFirst()
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "--event " + event + ": room " + room + " has no such event"));
    }
    Instant now = clock.instant();
    Instant expiresAt = expiry(now, ev);
    if (!expiresAt.isAfter(now)) {
      throw new IllegalArgumentException(
          "the invitations would expire at " + expiresAt + ", which is not in the future");
    }
    List<String> names = new ArrayList<>();
    if (accounts != null) {
      for (String line : Files.readAllLines(accounts, StandardCharsets.UTF_8)) {
        if (!line.isBlank()) {
          names.add(line.strip());
        }
      }
    } else {
      if (count < 1 || count > MAX_COUNT) {
        throw new IllegalArgumentException(
            "--count " + count + ": give 1 to " + MAX_COUNT + " invitations");
      }
      for (int i = 0; i < count; i++) {
        names.add(null);
      }
    }
    byte[] key = InvitationKey.read(keyFile);
    var random = new SecureRandom();
    out.println("id,room,event,account,expiresAt,token" + (link != null ? ",link" : ""));
    for (String account : names) {
      byte[] idBytes = new byte[16];
      random.nextBytes(idBytes);
      String id = Base64.getUrlEncoder().withoutPadding().encodeToString(idBytes);
      String token = Invitations.sign(key, room, event, account, id, expiresAt);
      var row = new StringBuilder();
      row.append(id)
          .append(',')
          .append(csv(room))
          .append(',')
          .append(csv(event))
          .append(',')
          .append(csv(account))
          .append(',')
          .append(expiresAt)
          .append(',')
          .append(token);
      if (link != null) {
        row.append(',')
            .append(
                csv(
                    link
                        + (link.contains("?") ? "&" : "?")
                        + Invitations.QUERY_PARAMETER
                        + "="
                        + token));
      }
      out.println(row);
    }
    out.flush();
    return 0;
  }

  private Instant expiry(Instant now, EventSettings ev) {
    if (expires == null) {
      return ev != null ? ev.window().closesAt() : now.plus(Duration.ofDays(7));
    }
    try {
      return OffsetDateTime.parse(expires).toInstant();
    } catch (DateTimeParseException notInstant) {
      try {
        return now.plus(Duration.parse(expires));
      } catch (DateTimeParseException notDuration) {
        throw new IllegalArgumentException(
            "--expires "
                + expires
                + ": give an ISO-8601 instant (2026-12-01T20:00:00Z) or a duration (PT48H, P7D)");
      }
    }
  }

  /** One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. */
  static String csv(String value) {
    if (value == null) {
      return "";
    }
    if (value.indexOf(',') < 0
        && value.indexOf('"') < 0
        && value.indexOf('\n') < 0
        && value.indexOf('\r') < 0) {
      return value;
    }
    return '"' + value.replace("\"", "\"\"") + '"';
  }
}
