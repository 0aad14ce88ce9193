package io.anteroom.door.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.anteroom.door.config.GatewayConfig.RoomSettings;
import io.anteroom.room.QueueOrder;
import io.anteroom.room.RoomConfig;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The room key {@code events}: read, validated, and the settings in force at each instant. */
class EventSettingsTest {
  static final String SHOP =
      """
      rooms:
        - id: shop
          totalActiveUsers: 100
          newUsersPerMinute: 10
          sessionDurationMinutes: 5
          template: shop.html
          events:
            - name: launch
              prequeueStartTime: 2026-12-01T17:30:00Z
              eventStartTime: 2026-12-01T18:00:00Z
              eventEndTime: 2026-12-01T20:00:00Z
              shuffleAtEventStart: true
              totalActiveUsers: 5000
              newUsersPerMinute: 800
              sessionDurationMinutes: 15
              queueingMethod: random
              disableSessionRenewal: true
              template: launch.html
            - name: encore
              eventStartTime: 2026-12-02T18:00:00+01:00
              eventEndTime: 2026-12-02T19:00:00+01:00
      """;

  @org.junit.jupiter.api.io.TempDir static java.nio.file.Path templates;

  static RoomSettings shop() {
    try {
      java.nio.file.Files.writeString(templates.resolve("shop.html"), "shop {{waitTime}}");
      java.nio.file.Files.writeString(templates.resolve("launch.html"), "launch {{eventName}}");
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return ConfigLoader.parse("templatesDir: " + templates + "\n" + SHOP, "anteroom.yaml")
        .rooms()
        .get(0);
  }

  @Test
  void anEventsTemplateMustExistInTheTemplatesDir() {
    shop();
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "templatesDir: "
                        + templates
                        + "\n"
                        + SHOP.replace("template: launch.html", "template: gone.html"),
                    "a.yaml"))
        .hasMessageContaining("rooms[0].events[0].template");
  }

  @Test
  void theEventsOverridesApplyFromThePrequeueToTheEnd() {
    RoomSettings s = shop();
    Instant before = Instant.parse("2026-12-01T17:29:59Z");
    Instant prequeue = Instant.parse("2026-12-01T17:30:00Z");
    Instant during = Instant.parse("2026-12-01T19:00:00Z");
    Instant end = Instant.parse("2026-12-01T20:00:00Z");

    assertThat(s.at(before)).isEqualTo(s);
    assertThat(s.roomConfigAt(before, 10).event()).isNull();
    for (Instant t : new Instant[] {prequeue, during}) {
      RoomSettings in = s.at(t);
      assertThat(in.limits().totalActiveUsers()).isEqualTo(5000);
      assertThat(in.limits().newUsersPerMinute()).isEqualTo(800);
      assertThat(in.limits().sessionDurationMinutes()).isEqualTo(15);
      assertThat(in.limits().queueingMethod()).isEqualTo(QueueingMethod.RANDOM);
      assertThat(in.limits().disableSessionRenewal()).isTrue();
      assertThat(in.queuePage().template()).contains("launch.html");
      RoomConfig c = s.roomConfigAt(t, 10);
      assertThat(c.totalActiveUsers()).isEqualTo(5000);
      assertThat(c.newUsersPerMinute()).isEqualTo(800);
      assertThat(c.sessionRenewal()).isFalse();
      assertThat(c.queueOrder()).isEqualTo(QueueOrder.RANDOM);
      assertThat(c.event().name()).isEqualTo("launch");
      assertThat(c.event().shuffle()).isTrue();
    }
    // the end: the room's own settings again
    assertThat(s.at(end)).isEqualTo(s);
    assertThat(s.roomConfigAt(end, 10)).isEqualTo(s.roomConfig(10));
    assertThat(s.roomConfigAt(end, 10).queueOrder()).isEqualTo(QueueOrder.FIFO);
    assertThat(s.nextEventChange(before)).isEqualTo(prequeue);
    assertThat(s.nextEventChange(prequeue)).isEqualTo(end);
    assertThat(s.nextEventChange(end)).isEqualTo(Instant.parse("2026-12-02T17:00:00Z"));
  }

  @Test
  void anEventWithoutOverridesKeepsTheRoomsValuesAndTimesKeepTheirOffset() {
    RoomSettings s = shop();
    RoomSettings in = s.at(Instant.parse("2026-12-02T17:30:00Z"));
    assertThat(in.limits().totalActiveUsers()).isEqualTo(100);
    assertThat(in.queuePage().template()).contains("shop.html");
    assertThat(s.roomConfigAt(Instant.parse("2026-12-02T17:30:00Z"), 10).event().opensAt())
        .isEqualTo(Instant.parse("2026-12-02T17:00:00Z"));
  }

  @Test
  void originProtectionHoldsAnEventsRateBackToo() {
    RoomSettings s = shop();
    Instant during = Instant.parse("2026-12-01T19:00:00Z");
    assertThat(s.roomConfigAt(during, 10).newUsersPerMinute()).isEqualTo(800);
    assertThat(s.roomConfigAt(during, 4).newUsersPerMinute()).isEqualTo(4);
  }

  @Test
  void theEventsWriteBackAsTheyWereRead() {
    RoomSettings s = shop();
    assertThat(ConfigLoader.parseRoom(ConfigLoader.toJson(s).toString())).isEqualTo(s);
  }

  static String oneEvent(String fields) {
    return "rooms:\n  - id: shop\n    events:\n      - { name: x, " + fields + " }\n";
  }

  @Test
  void badEventsAreErrorsNamingTheKey() {
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    oneEvent(
                        "eventStartTime: 2026-12-01T18:00:00Z, eventEndTime: 2026-12-01T17:00:00Z"),
                    "a.yaml"))
        .hasMessageContaining("rooms[0].events[0]: event 'x': eventEndTime 2026-12-01T17:00:00Z")
        .hasMessageContaining("is not after eventStartTime");
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    oneEvent(
                        "prequeueStartTime: 2026-12-01T18:30:00Z, eventStartTime:"
                            + " 2026-12-01T18:00:00Z, eventEndTime: 2026-12-01T19:00:00Z"),
                    "a.yaml"))
        .hasMessageContaining("event 'x': prequeueStartTime 2026-12-01T18:30:00Z is after");
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    oneEvent("eventStartTime: tomorrow, eventEndTime: 2026-12-01T19:00:00Z"),
                    "a.yaml"))
        .hasMessageContaining(
            "rooms[0].events[0].eventStartTime: \"tomorrow\" is not an ISO-8601 instant");
    assertThatThrownBy(
            () -> ConfigLoader.parse(oneEvent("eventEndTime: 2026-12-01T19:00:00Z"), "a.yaml"))
        .hasMessageContaining("rooms[0].events[0].eventStartTime: missing");
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    oneEvent(
                        "eventStartTime: 2026-12-01T18:00:00Z, eventEndTime: 2026-12-01T19:00:00Z,"
                            + " totalActiveUsers: 0, queueingMethod: lotto, shufle: true"),
                    "a.yaml"))
        .hasMessageContaining("rooms[0].events[0].totalActiveUsers")
        .hasMessageContaining("rooms[0].events[0].queueingMethod: \"lotto\"")
        .hasMessageContaining("rooms[0].events[0].shufle");
  }

  @Test
  void overlappingEventsAreAnErrorNamingBoth() {
    String yaml =
        """
        rooms:
          - id: shop
            events:
              - { name: a, eventStartTime: 2026-12-01T18:00:00Z, eventEndTime: 2026-12-01T20:00:00Z }
              - { name: b, prequeueStartTime: 2026-12-01T19:30:00Z,
                  eventStartTime: 2026-12-01T21:00:00Z, eventEndTime: 2026-12-01T22:00:00Z }
        """;
    assertThatThrownBy(() -> ConfigLoader.parse(yaml, "a.yaml"))
        .hasMessageContaining(
            "rooms[0].events: event 'b' (from 2026-12-01T19:30:00Z) overlaps event 'a' (until"
                + " 2026-12-01T20:00:00Z)");
  }
}
