package io.anteroom.gateway.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * A room as the admin API takes it (JSON or YAML): the room's keys, as in the config file, and
 * optionally {@code templates}, the texts of its queue-page templates and partials by name, kept
 * with the room's document at the coordinator (not a room key: {@code GET
 * /api/rooms/{id}/templates} shows them).
 *
 * @param settings the body without {@code templates}, as JSON text
 * @param templates the templates given, or null when the body has none ({@code PUT}: the room keeps
 *     its own)
 */
record RoomBody(String settings, Map<String, String> templates) {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The templates given, or {@code fallback}. */
  Map<String, String> templatesOr(Map<String, String> fallback) {
    return templates != null ? templates : fallback;
  }

  /**
   * Reads a body; one that is not an object is passed on as it is (the room's check words it).
   *
   * @throws IllegalArgumentException when {@code templates} is not an object of texts
   */
  static RoomBody read(String text) {
    JsonNode node;
    try {
      node = YAML.readTree(text == null ? "" : text);
    } catch (JsonProcessingException e) {
      return new RoomBody(text, null);
    }
    if (node == null || !node.isObject() || !node.has("templates")) {
      return new RoomBody(text, null);
    }
    ObjectNode copy = ((ObjectNode) node).deepCopy();
    Map<String, String> t = templates(copy.remove("templates"), "room");
    return new RoomBody(copy.toString(), t);
  }

  /**
   * A {@code templates} object: template names to their texts.
   *
   * @throws IllegalArgumentException naming {@code where} when it is something else
   */
  static Map<String, String> templates(JsonNode node, String where) {
    if (node == null || !node.isObject()) {
      throw new IllegalArgumentException(
          where
              + ".templates: expected an object of template names to their texts, e.g."
              + " {\"queue.html\": \"<html>...\"}");
    }
    var out = new TreeMap<String, String>();
    var bad = new StringBuilder();
    node.properties()
        .forEach(
            e -> {
              if (e.getValue().isTextual()) {
                out.put(e.getKey(), e.getValue().asText());
              } else {
                bad.append(bad.isEmpty() ? "" : ", ").append('"').append(e.getKey()).append('"');
              }
            });
    if (!bad.isEmpty()) {
      throw new IllegalArgumentException(
          where + ".templates: " + bad + ": expected the template's text (a string)");
    }
    return out;
  }

  /**
   * What the audit log keeps of a room's templates: by name, its length and the start of its
   * SHA-256 (the texts themselves may be long; the room's document keeps them).
   */
  static ObjectNode summary(Map<String, String> templates) {
    ObjectNode o = JSON.createObjectNode();
    var sorted = new LinkedHashMap<String, String>(new TreeMap<>(templates));
    sorted.forEach(
        (name, text) -> o.putObject(name).put("chars", text.length()).put("sha256", sha256(text)));
    return o;
  }

  /** {@code roomJson} with the {@link #summary} of {@code templates} when there are any. */
  static String withSummary(String roomJson, Map<String, String> templates) {
    if (roomJson == null || templates == null || templates.isEmpty()) {
      return roomJson;
    }
    try {
      ObjectNode o = (ObjectNode) JSON.readTree(roomJson);
      o.set("templates", summary(templates));
      return o.toString();
    } catch (JsonProcessingException | ClassCastException e) {
      return roomJson;
    }
  }

  private static String sha256(String text) {
    try {
      byte[] h = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(h, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
