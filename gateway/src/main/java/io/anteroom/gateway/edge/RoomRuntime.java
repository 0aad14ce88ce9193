package io.anteroom.gateway.edge;

import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import io.anteroom.gateway.admission.OriginProtection;
import io.anteroom.gateway.admission.RoomGate;
import io.anteroom.gateway.config.GatewayConfig.RoomSettings;
import io.anteroom.gateway.proof.DoorCheck;
import io.anteroom.gateway.queue.QueuePacing;
import io.anteroom.gateway.queue.QueueResponder;
import io.anteroom.gateway.ticket.TicketCookie;

/**
 * One configured room as the edge runs it: its settings, its admission gate, its ticket cookie,
 * compiled bypass rules, queue renderer, origin and meters. Immutable; a settings change builds a
 * new runtime around the same {@link RoomGate} (so counts survive) and swaps it into {@link Rooms}.
 * {@code protection} is null unless the room's origin protection is enabled; {@code door} is null
 * unless its {@code proofOfWork} is.
 */
public record RoomRuntime(
    RoomSettings settings,
    RoomGate gate,
    TicketCookie cookie,
    BypassMatcher bypass,
    QueueResponder responder,
    OriginProxy origin,
    QueuePacing pacing,
    Meters meters,
    OriginProtection protection,
    DoorCheck door) {

  /** Dropwizard meters of one room, named {@code anteroom.room.<id>.<what>}. */
  public record Meters(
      Meter admittedNew,
      Meter admittedReturning,
      Meter queued,
      Meter rejected,
      Meter bypassed,
      Meter revoked,
      Timer origin) {

    static Meters register(MetricRegistry registry, String roomId) {
      String p = "anteroom.room." + roomId + ".";
      return new Meters(
          registry.meter(p + "admitted_new"),
          registry.meter(p + "admitted_returning"),
          registry.meter(p + "queued"),
          registry.meter(p + "rejected"),
          registry.meter(p + "bypassed"),
          registry.meter(p + "revoked"),
          registry.timer(p + "origin_latency"));
    }

    static void unregister(MetricRegistry registry, String roomId) {
      registry.removeMatching((name, m) -> name.startsWith("anteroom.room." + roomId + "."));
    }
  }
}
