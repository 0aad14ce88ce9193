package io.anteroom.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.door.config.InvitationKey;
import io.anteroom.door.proof.Invitations;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code anteroom invite}: the CSV batch, its tokens, and the errors an operator can make. */
class InviteCommandTest {

  @TempDir Path dir;

  private record Outcome(int exit, String out, String err) {}

  private Outcome run(Instant now, String... args) {
    var out = new StringWriter();
    var err = new StringWriter();
    var cl = Main.commandLine(args);
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    ((InviteCommand) cl.getSubcommands().get("invite").getCommand()).clock =
        Clock.fixed(now, ZoneOffset.UTC);
    int exit = cl.execute(args);
    return new Outcome(exit, out.toString(), err.toString());
  }

  private Path config() throws Exception {
    Path key = dir.resolve("invite.key");
    InvitationKey.create(key);
    Path config = dir.resolve("anteroom.yaml");
    Files.writeString(
        config,
        """
        origin: http://127.0.0.1:3000
        rooms:
          - id: shop
            invitations: { required: true, keyFile: %s }
            events:
              - name: "drop, the first"
                eventStartTime: 2026-12-01T18:00:00Z
                eventEndTime: 2026-12-01T20:00:00Z
          - id: open
            path: /open/
        """
            .formatted(key));
    return config;
  }

  @Test
  void aBatchOfInvitationsIsCsvWithOneValidUniqueTokenPerRow() throws Exception {
    Path config = config();
    Instant now = Instant.parse("2026-11-30T12:00:00Z");
    var r =
        run(
            now,
            "invite",
            "--config",
            config.toString(),
            "--room",
            "shop",
            "--event",
            "drop, the first",
            "--count",
            "5",
            "--link",
            "https://shop.example/");

    assertThat(r.exit()).as(r.err()).isZero();
    List<String> lines = r.out().lines().toList();
    assertThat(lines).hasSize(6);
    assertThat(lines.getFirst()).isEqualTo("id,room,event,account,expiresAt,token,link");
    var verifier = new Invitations("shop", InvitationKey.read(dir.resolve("invite.key")));
    var ids = new HashSet<String>();
    for (String line : lines.subList(1, 6)) {
      // the event's name holds a comma: quoted
      assertThat(line).contains(",shop,\"drop, the first\",,2026-12-01T20:00:00Z,");
      String[] f = line.split(",");
      String token = f[6];
      ids.add(f[0]);
      assertThat(f[7]).isEqualTo("https://shop.example/?anteroom-invite=" + token);
      var v =
          verifier.verify(
              token, "drop, the first", Instant.parse("2026-12-01T19:00:00Z").toEpochMilli());
      assertThat(v).isInstanceOf(Invitations.Valid.class);
      assertThat(((Invitations.Valid) v).id()).isEqualTo(f[0]);
    }
    assertThat(ids).hasSize(5);
  }

  @Test
  void anAccountsFileGivesOneInvitationNamingEachAccount() throws Exception {
    Path config = config();
    Path accounts = dir.resolve("accounts.txt");
    Files.writeString(accounts, "alice\n\nbob\n");
    Instant now = Instant.parse("2026-11-30T12:00:00Z");
    var r =
        run(
            now,
            "invite",
            "--config",
            config.toString(),
            "--room",
            "shop",
            "--accounts",
            accounts.toString(),
            "--expires",
            "PT48H");

    assertThat(r.exit()).as(r.err()).isZero();
    List<String> lines = r.out().lines().toList();
    assertThat(lines).hasSize(3);
    assertThat(lines.get(1)).contains(",shop,,alice,2026-12-02T12:00:00Z,");
    assertThat(lines.get(2)).contains(",shop,,bob,2026-12-02T12:00:00Z,");
  }

  @Test
  void mistakesAreNamedAndExitTwo() throws Exception {
    Path config = config();
    Instant now = Instant.parse("2026-11-30T12:00:00Z");
    String c = config.toString();
    assertThat(run(now, "invite", "--config", c, "--room", "nope").err())
        .contains("--room nope: no such room in the configuration (rooms: shop, open)");
    assertThat(run(now, "invite", "--config", c, "--room", "open").err())
        .contains("room open has no invitations.keyFile");
    assertThat(run(now, "invite", "--config", c, "--room", "shop", "--event", "x").err())
        .contains("--event x: room shop has no such event");
    assertThat(run(now, "invite", "--config", c, "--room", "shop", "--count", "0").err())
        .contains("--count 0: give 1 to 1000000 invitations");
    assertThat(run(now, "invite", "--config", c, "--room", "shop", "--expires", "soon").err())
        .contains("--expires soon: give an ISO-8601 instant");
    var late =
        run(
            Instant.parse("2026-12-02T00:00:00Z"),
            "invite",
            "--config",
            c,
            "--room",
            "shop",
            "--event",
            "drop, the first");
    assertThat(late.exit()).isEqualTo(2);
    assertThat(late.err()).contains("is not in the future");
    var again = run(now, "invite", "--new-key", dir.resolve("invite.key").toString());
    assertThat(again.exit()).isEqualTo(2);
    assertThat(again.err()).contains("exists; it was kept");
  }
}
