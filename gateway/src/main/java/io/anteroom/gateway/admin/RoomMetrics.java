package io.anteroom.gateway.admin;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.Snapshot;
import io.anteroom.door.RoomRuntime;
import io.anteroom.door.RoomRuntime.Meters;
import io.anteroom.door.Rooms;
import io.anteroom.door.admission.RoomGate.RoomStatus;
import io.anteroom.door.config.GatewayConfig.RoomSettings;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Quantile;
import io.prometheus.metrics.model.snapshots.Quantiles;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import io.prometheus.metrics.model.snapshots.SummarySnapshot.SummaryDataPointSnapshot;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The rooms' metrics for Prometheus, one series per room (label {@code room}): the state as gauges
 * read from each room's status at scrape time (what an operator alerts on during a sale), the
 * room's Dropwizard meters as counters and its origin latency as a summary.
 */
final class RoomMetrics implements MultiCollector {

  /** A gauge's value from a room's settings and status at {@code nowMillis}. */
  private interface Value {
    double of(RoomSettings settings, RoomStatus status, long nowMillis);
  }

  /** One gauge: its name, help text and value. */
  private record Gauge(String name, String help, Value value) {}

  static final List<Gauge> GAUGES =
      List.of(
          new Gauge(
              "anteroom_room_active_users",
              "users on the site (admitted, session running), as the room's state estimates",
              (s, st, now) -> st.estimatedTotalActiveUsers()),
          new Gauge(
              "anteroom_room_waiting_users",
              "users in the queue, as the room's state estimates",
              (s, st, now) -> st.estimatedQueuedUsers()),
          new Gauge(
              "anteroom_room_total_active_users_limit",
              "totalActiveUsers (T) in force",
              (s, st, now) -> s.limits().totalActiveUsers()),
          new Gauge(
              "anteroom_room_effective_new_users_per_minute",
              "newUsersPerMinute (N) in force (lower than configured while origin protection holds"
                  + " it back)",
              (s, st, now) -> st.effectiveNewUsersPerMinute()),
          new Gauge(
              "anteroom_room_max_wait_minutes",
              "estimated wait of the newest queued user",
              (s, st, now) -> st.maxEstimatedTimeMinutes()),
          new Gauge(
              "anteroom_room_degraded",
              "1 while the coordinator is unreachable (decisions follow failMode)",
              (s, st, now) -> st.degraded() ? 1 : 0),
          new Gauge(
              "anteroom_room_queue_all",
              "1 while the queue-all switch is on",
              (s, st, now) -> flag(s.switches().queueAll())),
          new Gauge(
              "anteroom_room_suspended",
              "1 while the room is suspended (everyone passes)",
              (s, st, now) -> flag(s.switches().suspended())),
          new Gauge(
              "anteroom_room_config_conflict",
              "gateways whose config of the room disagrees with the one the coordinator goes by"
                  + " (0 while all agree)",
              (s, st, now) -> st.agreement() == null ? 0 : st.agreement().disagreeing().size()),
          new Gauge(
              "anteroom_room_overrides_version",
              "version of the room's live overrides in force on this gateway (-1: none heard yet)",
              (s, st, now) -> st.overridesVersion()),
          new Gauge(
              "anteroom_room_state_age_seconds",
              "age of the room state the gateway decides with",
              (s, st, now) -> Math.max(0, now - st.lastUpdatedMillis()) / 1000.0));

  /** One counter: its name (without {@code _total}), help and the room's meter. */
  private record Counter(
      String name, String help, Function<Meters, com.codahale.metrics.Counter> meter) {}

  static final List<Counter> COUNTERS =
      List.of(
          new Counter("anteroom_room_admitted_new", "users let in", Meters::admittedNew),
          new Counter(
              "anteroom_room_admitted_returning",
              "requests of admitted users (sessions renewed)",
              Meters::admittedReturning),
          new Counter("anteroom_room_queued", "queue pages and JSON answers", Meters::queued),
          new Counter(
              "anteroom_room_rejected", "429 answers (queueingMethod reject)", Meters::rejected),
          new Counter(
              "anteroom_room_bypassed",
              "requests passed by bypass rules or a suspended room",
              Meters::bypassed),
          new Counter(
              "anteroom_room_revoked",
              "sessions ended by the origin (Anteroom-Command: revoke)",
              Meters::revoked));

  private static final String LATENCY = "anteroom_room_origin_latency_seconds";

  private final Rooms rooms;
  private final Clock clock;

  RoomMetrics(Rooms rooms, Clock clock) {
    this.rooms = rooms;
    this.clock = clock;
  }

  @Override
  public MetricSnapshots collect() {
    long now = clock.millis();
    var statuses = new ArrayList<RoomStatus>();
    var runtimes = new ArrayList<RoomRuntime>(rooms.snapshot().byId().values());
    for (RoomRuntime r : runtimes) {
      statuses.add(r.control().status(now));
    }
    var out = MetricSnapshots.builder();
    for (Gauge g : GAUGES) {
      var gauge = GaugeSnapshot.builder().name(g.name()).help(g.help());
      for (int i = 0; i < runtimes.size(); i++) {
        RoomSettings s = runtimes.get(i).settings();
        RoomStatus st = statuses.get(i);
        gauge.dataPoint(
            GaugeDataPointSnapshot.builder()
                .labels(Labels.of("room", s.id()))
                .value(g.value().of(s, st, now))
                .build());
      }
      out.metricSnapshot(gauge.build());
    }
    for (Counter c : COUNTERS) {
      var counter = CounterSnapshot.builder().name(c.name()).help(c.help());
      for (RoomRuntime r : runtimes) {
        counter.dataPoint(
            CounterDataPointSnapshot.builder()
                .labels(Labels.of("room", r.settings().id()))
                .value(c.meter().apply(r.meters()).getCount())
                .build());
      }
      out.metricSnapshot(counter.build());
    }
    var latency =
        SummarySnapshot.builder()
            .name(LATENCY)
            .help("time from forwarding a request to the origin's response head");
    for (RoomRuntime r : runtimes) {
      Histogram t = r.meters().origin();
      Snapshot q = t.getSnapshot();
      latency.dataPoint(
          SummaryDataPointSnapshot.builder()
              .labels(Labels.of("room", r.settings().id()))
              .count(t.getCount())
              .quantiles(
                  Quantiles.of(
                      new Quantile(0.5, q.getMedian() / 1e9),
                      new Quantile(0.95, q.get95thPercentile() / 1e9),
                      new Quantile(0.99, q.get99thPercentile() / 1e9)))
              .build());
    }
    out.metricSnapshot(latency.build());
    return out.build();
  }

  @Override
  public List<String> getPrometheusNames() {
    var names = new ArrayList<String>();
    GAUGES.forEach(g -> names.add(g.name()));
    COUNTERS.forEach(c -> names.add(c.name()));
    names.add(LATENCY);
    return names;
  }

  private static double flag(boolean on) {
    return on ? 1 : 0;
  }
}
