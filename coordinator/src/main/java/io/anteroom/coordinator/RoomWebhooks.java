package io.anteroom.coordinator;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.anteroom.objects.ListOptions;
import io.anteroom.objects.ObjectContext;
import io.anteroom.objects.Storage;
import io.anteroom.room.report.StateChange;
import io.anteroom.room.report.StateChanges;
import io.anteroom.room.report.WebhookOutbox;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A room's webhooks, inside its global object: the {@link StateChanges} detector's memory and the
 * {@link WebhookOutbox} of deliveries owed, both in the object's storage, and the deliveries
 * themselves, made from the object's alarm with the runtime's HTTP client ({@link
 * ObjectContext#fetch}, which leaves the input gate open while the receiver answers, so a slow
 * receiver never holds the room's reports up).
 *
 * <p>Invariants: called only from the global object's events (one at a time). {@link #emit} writes
 * the detector's memory and the new deliveries in one confirmed batch before anything is sent, so a
 * change is either never detected (and is detected again after a restart, with the same number) or
 * durably owed; a delivery's key is deleted only once a receiver answered 2xx (or it is given up),
 * so a restart between a send and its deletion sends it again with the same id: at least once.
 */
final class RoomWebhooks {

  static final String MEMORY_KEY = "changes";
  static final String DELIVERY_PREFIX = "webhook/";

  /** How long one attempt may take. */
  static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(10);

  private static final Logger LOG = LoggerFactory.getLogger(RoomWebhooks.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ObjectContext ctx;
  private final Storage storage;
  private final WebhookTargets targets;
  private final StateChanges.Memory savedMemory;
  private StateChanges changes;
  private final WebhookOutbox outbox;

  /** Reads the memory and the deliveries owed (call inside the constructor's blocking section). */
  RoomWebhooks(ObjectContext ctx, WebhookTargets targets) {
    this.ctx = ctx;
    this.storage = ctx.storage();
    this.targets = targets;
    this.savedMemory = storage.get(MEMORY_KEY, StateChanges.Memory.class).orElse(null);
    this.outbox =
        new WebhookOutbox(
            storage
                .list(
                    ListOptions.builder().prefix(DELIVERY_PREFIX).build(),
                    WebhookOutbox.Delivery.class)
                .values());
  }

  /** The detector of room {@code roomId} (made on first use: the room's id comes with reports). */
  StateChanges changes(String roomId) {
    if (changes == null) {
      changes = new StateChanges(roomId, savedMemory);
    }
    return changes;
  }

  /**
   * Records {@code detected} (from {@link #changes}): one log line each, the detector's memory and
   * a delivery per URL stored in one batch. Returns whether deliveries are owed now.
   */
  boolean emit(List<StateChange> detected) {
    if (detected.isEmpty()) {
      return false;
    }
    long now = ctx.clock().millis();
    Map<String, Object> batch = new LinkedHashMap<>();
    batch.put(MEMORY_KEY, changes.memory());
    for (WebhookOutbox.Delivery d : outbox.add(detected, targets.urls(), now)) {
      batch.put(DELIVERY_PREFIX + d.key(), d);
    }
    for (StateChange c : detected) {
      LOG.info(
          "room {}: {} {}{}: {}{}",
          c.room(),
          c.id(),
          c.type(),
          c.subject() == null ? "" : " (" + c.subject() + ")",
          c.detail(),
          targets.urls().isEmpty() ? "" : "; webhook to " + targets.urls().size() + " URL(s)");
    }
    putAll(batch);
    for (WebhookOutbox.Delivery d : outbox.overflow()) {
      LOG.warn(
          "room {}: webhook {} {} to {} given up: more than {} deliveries owed",
          d.change().room(),
          d.change().id(),
          d.change().type(),
          d.url(),
          WebhookOutbox.MAX_PENDING);
      storage.delete(DELIVERY_PREFIX + d.key());
    }
    return outbox.size() > 0;
  }

  private void putAll(Map<String, Object> batch) {
    var entries = new java.util.ArrayList<>(batch.entrySet());
    for (int i = 0; i < entries.size(); i += Storage.MAX_KEYS_PER_CALL) {
      Map<String, Object> part = new LinkedHashMap<>();
      for (var e : entries.subList(i, Math.min(entries.size(), i + Storage.MAX_KEYS_PER_CALL))) {
        part.put(e.getKey(), e.getValue());
      }
      storage.put(part);
    }
  }

  /** Sends every delivery due now, once each; failures are rescheduled with back-off. */
  void deliverDue() {
    for (WebhookOutbox.Delivery d : outbox.due(ctx.clock().millis())) {
      deliver(d);
    }
  }

  /** When the next delivery is due. */
  OptionalLong nextDue() {
    return outbox.nextDue();
  }

  int owed() {
    return outbox.size();
  }

  private void deliver(WebhookOutbox.Delivery d) {
    String body = body(d.change());
    Instant now = ctx.clock().instant();
    String failure;
    try {
      HttpRequest request =
          HttpRequest.newBuilder(URI.create(d.url()))
              .timeout(ATTEMPT_TIMEOUT)
              .header("Content-Type", "application/json")
              .header("User-Agent", "anteroom-webhooks")
              .header(WebhookSignature.ID_HEADER, d.change().id())
              .header(
                  WebhookSignature.HEADER,
                  WebhookSignature.header(targets.secret(), body, now.getEpochSecond()))
              .POST(HttpRequest.BodyPublishers.ofString(body))
              .build();
      HttpResponse<Void> response = ctx.fetch(request, HttpResponse.BodyHandlers.discarding());
      if (response.statusCode() / 100 == 2) {
        outbox.delivered(d);
        storage.delete(DELIVERY_PREFIX + d.key());
        LOG.info(
            "room {}: webhook {} {} delivered to {} (attempt {})",
            d.change().room(),
            d.change().id(),
            d.change().type(),
            d.url(),
            d.attempts() + 1);
        return;
      }
      failure = "answered " + response.statusCode();
    } catch (RuntimeException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      failure =
          cause.getClass().getSimpleName()
              + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
    }
    long after = ctx.clock().millis();
    var next = outbox.failed(d, after);
    if (next.isPresent()) {
      storage.put(DELIVERY_PREFIX + d.key(), next.get());
      LOG.warn(
          "room {}: webhook {} {} to {} failed ({}); attempt {} in {} s",
          d.change().room(),
          d.change().id(),
          d.change().type(),
          d.url(),
          failure,
          next.get().attempts() + 1,
          (next.get().dueMillis() - after + 999) / 1000);
    } else {
      storage.delete(DELIVERY_PREFIX + d.key());
      LOG.warn(
          "room {}: webhook {} {} to {} given up after {} attempts over {}: {}",
          d.change().room(),
          d.change().id(),
          d.change().type(),
          d.url(),
          d.attempts() + 1,
          WebhookOutbox.GIVE_UP_AFTER,
          failure);
    }
  }

  /** The body of a change's webhook. */
  static String body(StateChange c) {
    ObjectNode o = JSON.createObjectNode();
    o.put("id", c.id());
    o.put("type", c.type());
    o.put("room", c.room());
    if (c.subject() != null) {
      o.put("subject", c.subject());
    } else {
      o.putNull("subject");
    }
    o.put("at", Instant.ofEpochMilli(c.atMillis()).toString());
    o.put("detail", c.detail());
    return o.toString();
  }
}
