package io.anteroom.gateway.config;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.anteroom.gateway.config.GatewayConfig.RoomSettings;
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
 * <p>Today the overridable keys are the switches {@code suspended} and {@code queueAll} (values
 * {@code "true"}/{@code "false"}); another setting becomes overridable by adding its key here and
 * its reading to {@link #apply}. Overridable keys are left out of the fingerprint: they are meant
 * to differ from the file while an override is in force.
 */
public final class LiveOverrides {

  /** The keys an override may set, in the order the admin API documents them. */
  public static final List<String> KEYS = List.of("suspended", "queueAll");

  private LiveOverrides() {}

  /**
   * The settings in force: {@code configured} with {@code overrides} applied. A key this gateway
   * does not know, or a value it cannot read, is skipped (a newer gateway may have written it).
   */
  public static RoomSettings apply(RoomSettings configured, RoomOverrides overrides) {
    if (overrides == null || overrides.values().isEmpty()) {
      return configured;
    }
    boolean suspended = flag(overrides.value("suspended"), configured.suspended());
    boolean queueAll = flag(overrides.value("queueAll"), configured.queueAll());
    if (suspended == configured.suspended() && queueAll == configured.queueAll()) {
      return configured;
    }
    return configured.withSwitches(suspended, queueAll);
  }

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
