package io.anteroom.door.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.anteroom.door.config.GatewayConfig.Invitations;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The room key {@code invitations} and the event key of the same name. */
class InvitationsConfigTest {

  @TempDir Path dir;

  private Path key(int bytes) throws Exception {
    Path f = dir.resolve("invite-" + bytes + ".key");
    Files.writeString(f, Base64.getEncoder().encodeToString(new byte[bytes]) + "\n");
    return f;
  }

  @Test
  void offByDefault() {
    var room = ConfigLoader.parse("rooms: [ { id: shop } ]", "test").rooms().getFirst();
    assertThat(room.protection().invitations()).isEqualTo(new Invitations(false, Optional.empty()));
  }

  @Test
  void anInviteOnlyRoomReadsAndRoundTripsThroughTheAdminJson() throws Exception {
    Path key = key(32);
    var room =
        ConfigLoader.parse(
                "rooms: [ { id: shop, invitations: { required: true, keyFile: " + key + " } } ]",
                "test")
            .rooms()
            .getFirst();
    assertThat(room.protection().invitations()).isEqualTo(new Invitations(true, Optional.of(key)));
    assertThat(ConfigLoader.parseRoom(ConfigLoader.toJson(room).toString())).isEqualTo(room);
  }

  @Test
  void anEventRequiresInvitationsForItsOwnTimeWithTheRoomsKey() throws Exception {
    Path key = key(48);
    var room =
        ConfigLoader.parse(
                """
        rooms:
          - id: shop
            invitations: { keyFile: %s }
            events:
              - name: drop
                eventStartTime: 2026-12-01T18:00:00Z
                eventEndTime: 2026-12-01T20:00:00Z
                invitations: { required: true }
        """
                    .formatted(key),
                "test")
            .rooms()
            .getFirst();
    assertThat(room.protection().invitations().required()).isFalse();
    assertThat(room.at(Instant.parse("2026-12-01T19:00:00Z")).protection().invitations())
        .isEqualTo(new Invitations(true, Optional.of(key)));
    assertThat(room.at(Instant.parse("2026-12-01T21:00:00Z")).protection().invitations().required())
        .isFalse();
    assertThat(ConfigLoader.parseRoom(ConfigLoader.toJson(room).toString())).isEqualTo(room);
  }

  @Test
  void aRequiredInvitationWithoutAUsableKeyIsAnErrorNamingTheKey() throws Exception {
    Path shortKey = key(16);
    Path notBase64 = dir.resolve("bad.key");
    Files.writeString(notBase64, "not base64 at all!");
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    """
        rooms:
          - id: a
            invitations: { required: true }
          - id: b
            invitations: { keyFile: %s }
          - id: c
            invitations: { keyFile: %s, requierd: true }
          - id: d
            invitations: { keyFile: %s }
          - id: e
            events:
              - name: drop
                eventStartTime: 2026-12-01T18:00:00Z
                eventEndTime: 2026-12-01T20:00:00Z
                invitations: { required: true, keyFile: x }
        """
                        .formatted(shortKey, notBase64, dir.resolve("missing.key")),
                    "anteroom.yaml"))
        .hasMessageContaining("rooms[0].invitations.keyFile: missing")
        .hasMessageContaining("rooms[1].invitations.keyFile")
        .hasMessageContaining("holds a key of 16 bytes; an invitation key needs at least 32")
        .hasMessageContaining("rooms[2].invitations.keyFile")
        .hasMessageContaining("does not hold a base64 key")
        .hasMessageContaining("rooms[2].invitations.requierd: unknown key")
        .hasMessageContaining("rooms[3].invitations.keyFile: cannot read")
        .hasMessageContaining(
            "rooms[4].events[0].invitations.keyFile: the room's invitations.keyFile signs every"
                + " event's invitations")
        .hasMessageContaining("rooms[4].events[0].invitations.required: needs the room's");
  }

  @Test
  void aNewKeyIsWrittenOwnerOnlyAndNeverOverAnExistingFile() throws Exception {
    Path f = dir.resolve("new.key");
    assertThat(InvitationKey.create(f)).isTrue();
    assertThat(InvitationKey.read(f)).hasSize(InvitationKey.MIN_BYTES);
    assertThat(SecretFile.exposure(f)).isEmpty();
    byte[] before = Files.readAllBytes(f);
    assertThat(InvitationKey.create(f)).isFalse();
    assertThat(Files.readAllBytes(f)).isEqualTo(before);
  }
}
