package io.anteroom.spring;

import io.anteroom.door.RoomRuntime;
import io.anteroom.door.config.GatewayConfig.RoomSettings;
import io.anteroom.host.RoomHost;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.function.Function;

/**
 * The rooms' meters for Micrometer, read from the door's own meters when scraped: {@code
 * anteroom.requests} (counter; tags {@code room} and {@code outcome}: {@code admitted_new}, {@code
 * admitted_returning}, {@code queued}, {@code rejected}, {@code bypassed}, {@code revoked}) and
 * {@code anteroom.users} (gauge; tags {@code room} and {@code state}: {@code queued}, {@code
 * active}, as the room last knew them) and {@code anteroom.push.held.polls} (gauge: the queue
 * pages' push polls held now).
 */
final class AnteroomMeters implements MeterBinder {
  private final RoomHost rooms;

  AnteroomMeters(RoomHost rooms) {
    this.rooms = rooms;
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Gauge.builder("anteroom.push.held.polls", rooms, h -> h.door().heldPolls().held())
        .description("the queue pages' push polls held now (at most maxHeldPolls)")
        .register(registry);
    for (RoomSettings s : rooms.rooms().list()) {
      String id = s.id();
      counter(registry, id, "admitted_new", m -> m.meters().admittedNew());
      counter(registry, id, "admitted_returning", m -> m.meters().admittedReturning());
      counter(registry, id, "queued", m -> m.meters().queued());
      counter(registry, id, "rejected", m -> m.meters().rejected());
      counter(registry, id, "bypassed", m -> m.meters().bypassed());
      counter(registry, id, "revoked", m -> m.meters().revoked());
      Gauge.builder(
              "anteroom.users", rooms, h -> status(h, id, st -> (double) st.estimatedQueuedUsers()))
          .tag("room", id)
          .tag("state", "queued")
          .description("users waiting in the room's queue")
          .register(registry);
      Gauge.builder(
              "anteroom.users",
              rooms,
              h -> status(h, id, st -> (double) st.estimatedTotalActiveUsers()))
          .tag("room", id)
          .tag("state", "active")
          .description("users admitted to the site whose session is running")
          .register(registry);
    }
  }

  private void counter(
      MeterRegistry registry,
      String id,
      String outcome,
      Function<RoomRuntime, com.codahale.metrics.Counter> meter) {
    FunctionCounter.builder(
            "anteroom.requests",
            rooms,
            h -> h.rooms().get(id).map(r -> (double) meter.apply(r).getCount()).orElse(0.0))
        .tag("room", id)
        .tag("outcome", outcome)
        .description("requests the room decided, by outcome")
        .register(registry);
  }

  private static double status(
      RoomHost h,
      String id,
      Function<io.anteroom.door.admission.RoomGate.RoomStatus, Double> value) {
    return h.rooms()
        .get(id)
        .map(r -> value.apply(r.control().status(System.currentTimeMillis())))
        .orElse(Double.NaN);
  }
}
