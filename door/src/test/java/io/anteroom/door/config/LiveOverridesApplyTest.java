package io.anteroom.door.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.anteroom.door.config.GatewayConfig.RoomSettings;
import io.anteroom.room.RoomOverrides;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link LiveOverrides}: which override wins over the configured settings, in what order, and what
 * a gateway does with a value it cannot read. (End to end across gateways: {@code
 * LiveOverridesTest}.)
 */
class LiveOverridesApplyTest {
  private static final RoomSettings SHOP =
      ConfigLoader.parseRoom(
          "{\"id\":\"shop\",\"totalActiveUsers\":100,\"newUsersPerMinute\":10,"
              + "\"events\":[{\"name\":\"launch\",\"eventStartTime\":\"2026-12-01T18:00:00Z\","
              + "\"eventEndTime\":\"2026-12-01T20:00:00Z\"}]}");

  private static final String EVENTS =
      "[{\"name\":\"encore\",\"eventStartTime\":\"2026-12-02T18:00:00Z\","
          + "\"eventEndTime\":\"2026-12-02T19:00:00Z\"}]";

  private static RoomOverrides overrides(Map<String, String> values) {
    return RoomOverrides.NONE.with(values);
  }

  @Test
  void withoutOverridesTheConfiguredSettingsAreInForce() {
    assertThat(LiveOverrides.apply(SHOP, null)).isSameAs(SHOP);
    assertThat(LiveOverrides.apply(SHOP, RoomOverrides.NONE)).isSameAs(SHOP);
  }

  @Test
  void theSwitchesOverrideTheFilesValuesBothWays() {
    RoomSettings on = LiveOverrides.apply(SHOP, overrides(Map.of("queueAll", "true")));
    assertThat(on.switches().queueAll()).isTrue();
    assertThat(on.switches().suspended()).isFalse();
    assertThat(on.limits().totalActiveUsers()).isEqualTo(100);

    RoomSettings suspendedInFile = SHOP.withSwitches(true, true);
    RoomSettings off =
        LiveOverrides.apply(
            suspendedInFile, overrides(Map.of("suspended", "false", "queueAll", "false")));
    assertThat(off.switches().suspended()).isFalse();
    assertThat(off.switches().queueAll()).isFalse();
  }

  @Test
  void theRoomOverrideReplacesTheSettingsThenEventsAndSwitchesApplyOverIt() {
    String room =
        LiveOverrides.roomChange(
                ConfigLoader.parseRoom(
                    "{\"id\":\"shop\",\"totalActiveUsers\":50,\"newUsersPerMinute\":5}"))
            .get("room");
    RoomSettings s =
        LiveOverrides.apply(
            SHOP, overrides(Map.of("room", room, "events", EVENTS, "suspended", "true")));
    assertThat(s.limits().totalActiveUsers()).isEqualTo(50);
    assertThat(s.limits().newUsersPerMinute()).isEqualTo(5);
    assertThat(s.events())
        .singleElement()
        .satisfies(e -> assertThat(e.window().name()).isEqualTo("encore"));
    assertThat(s.switches().suspended()).isTrue();
  }

  @Test
  void aRoomOverrideOfAnotherRoomOrAValueThisGatewayCannotReadIsSkipped() {
    String other =
        LiveOverrides.roomChange(
                ConfigLoader.parseRoom("{\"id\":\"other\",\"totalActiveUsers\":1}"))
            .get("room");
    assertThat(
            LiveOverrides.apply(SHOP, overrides(Map.of("room", other))).limits().totalActiveUsers())
        .isEqualTo(100);
    RoomSettings s =
        LiveOverrides.apply(
            SHOP,
            overrides(
                Map.of(
                    "room", "{\"id\":\"shop\",\"totalActiveUsers\":\"many\"}",
                    "events", "not json",
                    "queueAll", "maybe")));
    assertThat(s.limits().totalActiveUsers()).isEqualTo(100);
    assertThat(s.events())
        .singleElement()
        .satisfies(e -> assertThat(e.window().name()).isEqualTo("launch"));
    assertThat(s.switches().queueAll()).isFalse();
  }

  @Test
  void aWholeRoomChangeClearsTheOtherOverridesAndATooLargeRoomIsRefused() {
    Map<String, String> change = LiveOverrides.roomChange(SHOP);
    assertThat(change).containsOnlyKeys(LiveOverrides.KEYS);
    assertThat(change.get("room")).contains("\"totalActiveUsers\":100");
    assertThat(change.get("suspended")).isNull();
    assertThat(change.get("events")).isNull();

    StringBuilder bypass = new StringBuilder();
    for (int i = 0; i < 2_000; i++) {
      bypass.append(i == 0 ? "" : ",").append("{\"path\":\"/static-").append(i).append("/**\"}");
    }
    RoomSettings big =
        ConfigLoader.parseRoom(
            "{\"id\":\"shop\",\"totalActiveUsers\":1,\"bypass\":[" + bypass + "]}");
    assertThatThrownBy(() -> LiveOverrides.roomChange(big))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at most " + RoomOverrides.MAX_VALUE_LENGTH);
  }

  @Test
  void onlyTheListedKeysAreSwitches() {
    assertThat(LiveOverrides.switchChange("queueAll", true)).containsEntry("queueAll", "true");
    assertThatThrownBy(() -> LiveOverrides.switchChange("totalActiveUsers", true))
        .hasMessageContaining("not a live switch");
  }

  @Test
  void theFingerprintIgnoresTheOverridableKeysAndSeesTheOthers() {
    assertThat(LiveOverrides.fingerprint(SHOP.withSwitches(true, true)))
        .isEqualTo(LiveOverrides.fingerprint(SHOP));
    RoomSettings otherEvents = LiveOverrides.apply(SHOP, overrides(Map.of("events", EVENTS)));
    assertThat(LiveOverrides.fingerprint(otherEvents)).isEqualTo(LiveOverrides.fingerprint(SHOP));
    RoomSettings otherLimit =
        ConfigLoader.parseRoom(
            "{\"id\":\"shop\",\"totalActiveUsers\":101,\"newUsersPerMinute\":10}");
    assertThat(LiveOverrides.fingerprint(otherLimit)).isNotEqualTo(LiveOverrides.fingerprint(SHOP));
  }
}
