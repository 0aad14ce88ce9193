package io.anteroom.door.config;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.anteroom.door.config.GatewayConfig.RoomSettings;
import io.anteroom.room.RoomOverrides;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * The room keys that can be overridden live for the whole deployment ({@link RoomOverrides}, kept
 * by the room's global object), how an override applies over the configured settings, and the
 * fingerprint of a room's configured settings that gateways compare through the coordinator.
 *
 * <p>The overridable keys are the whole {@code room} (its JSON, as {@code PUT /api/rooms/{id}}
 * takes it: it replaces the configured settings), the switches {@code suspended} and {@code
 * queueAll} (values {@code "true"}/{@code "false"}) and the scheduled {@code events} (a JSON array,
 * read exactly like the key in the config file), applied in that order; another setting becomes
 * overridable by adding its key here and its reading to {@link #apply}. Overridable keys are left
 * out of the fingerprint: they are meant to differ from the file while an override is in force.
 */
public final class LiveOverrides {

  /** The keys an override may set, in the order the admin API documents them. */
  public static final List<String> KEYS = List.of("room", "suspended", "queueAll", "events");

  private LiveOverrides() {}

  /**
   * The settings in force: {@code configured} with {@code overrides} applied. A key this gateway
   * does not know, or a value it cannot read, is skipped (a newer gateway may have written it).
   */
  public static RoomSettings apply(RoomSettings configured, RoomOverrides overrides) {
    if (overrides == null || overrides.values().isEmpty()) {
      return configured;
    }
    RoomSettings s =
        withEvents(withRoom(configured, overrides.value("room")), overrides.value("events"));
    boolean suspended = flag(overrides.value("suspended"), s.switches().suspended());
    boolean queueAll = flag(overrides.value("queueAll"), s.switches().queueAll());
    if (suspended == s.switches().suspended() && queueAll == s.switches().queueAll()) {
      return s;
    }
    return s.withSwitches(suspended, queueAll);
  }

  /**
   * The change that replaces a room's scheduled events: {@code events} (a JSON array) read as the
   * room's {@code events} key with its other settings as they are, so it is checked exactly like
   * the config file.
   *
   * @throws IllegalArgumentException naming the key, when the events are not valid
   */
  public static Map<String, String> eventsChange(RoomSettings configured, String events) {
    ObjectNode room = ConfigLoader.toJson(configured);
    try {
      room.set("events", JSON.readTree(events == null ? "" : events));
    } catch (java.io.IOException | RuntimeException e) {
      throw new IllegalArgumentException("body: not JSON: " + e.getMessage(), e);
    }
    if (room.get("events") == null || !room.get("events").isArray()) {
      throw new IllegalArgumentException("events: expected a JSON array of events");
    }
    RoomSettings checked = ConfigLoader.parseRoom(room.toString());
    return Map.of("events", ConfigLoader.toJson(checked).get("events").toString());
  }

  /**
   * The change that replaces a room's whole settings ({@code PUT /api/rooms/{id}}): {@code room},
   * already read and checked, becomes the room override, and the other overrides are cleared (the
   * body says what the switches and events are).
   *
   * @throws IllegalArgumentException when the room's JSON is too large to be kept as an override
   */
  public static Map<String, String> roomChange(RoomSettings room) {
    String json = ConfigLoader.toJson(room).toString();
    if (json.length() > RoomOverrides.MAX_VALUE_LENGTH) {
      throw new IllegalArgumentException(
          "room: its settings are "
              + json.length()
              + " characters as JSON; a room changed through the admin API may have at most "
              + RoomOverrides.MAX_VALUE_LENGTH
              + " (change the config file instead)");
    }
    var change = new java.util.HashMap<String, String>();
    KEYS.forEach(k -> change.put(k, null));
    change.put("room", json);
    return change;
  }

  private static RoomSettings withRoom(RoomSettings configured, String room) {
    if (room == null) {
      return configured;
    }
    try {
      RoomSettings s = ConfigLoader.parseRoom(room);
      return s.id().equals(configured.id()) ? s : configured;
    } catch (RuntimeException e) {
      return configured; // written by a gateway that reads rooms differently: keep the file's
    }
  }

  private static RoomSettings withEvents(RoomSettings configured, String events) {
    if (events == null) {
      return configured;
    }
    try {
      ObjectNode room = ConfigLoader.toJson(configured);
      room.set("events", JSON.readTree(events));
      return ConfigLoader.parseRoom(room.toString());
    } catch (java.io.IOException | RuntimeException e) {
      return configured; // written by a gateway that reads events differently: keep the file's
    }
  }

  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();

  /** The change of one switch: {@code key} (one of {@link #KEYS}) set to {@code on}. */
  public static Map<String, String> switchChange(String key, boolean on) {
    if (!KEYS.contains(key)) {
      throw new IllegalArgumentException(key + " is not a live switch; allowed: " + KEYS);
    }
    return Map.of(key, Boolean.toString(on));
  }

  private static boolean flag(String value, boolean otherwise) {
    return "true".equals(value) ? true : "false".equals(value) ? false : otherwise;
  }

  /**
   * The fingerprint of a room's configured settings: the first 16 hex digits of the SHA-256 of its
   * JSON form (as the admin API shows it) without the overridable keys. Gateways of the same
   * version with equal settings have equal fingerprints.
   */
  public static String fingerprint(RoomSettings configured) {
    ObjectNode json = ConfigLoader.toJson(configured);
    KEYS.forEach(json::remove);
    try {
      byte[] hash =
          MessageDigest.getInstance("SHA-256")
              .digest(json.toString().getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(hash, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JVM has no SHA-256", e);
    }
  }
}
