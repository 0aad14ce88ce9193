package io.anteroom.room.report;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Detects a room's state changes, once for the whole deployment: the room's global object (the one
 * place that sees every data center's counts) feeds it what it observes, stores its {@link Memory}
 * in the same atomic write as the changes it returned (an outbox), and hands those to the webhook
 * deliveries. Gateways never detect: each would see only its own part, and N gateways would send N
 * copies.
 *
 * <ul>
 *   <li>{@code queueing.began}: users are counted as waiting (or the room queues everyone) and it
 *       was not queueing; {@code queueing.ended}: nobody waits, and nobody has for {@link #QUIET}
 *       (so a room that queues a few users now and then does not flap).
 *   <li>{@code degraded}: a data center that reported stopped reporting (no aggregate with active
 *       workers for 30 s): its gateways cannot reach the coordinator, or were stopped; {@code
 *       recovered}: it reports again. A data center seen for the first time is neither.
 *   <li>{@code event.prequeue}, {@code event.start}, {@code event.end}: a known event's phase at
 *       {@code now} moved on (pre-queue from its {@code prequeueFrom}, started from {@code
 *       opensAt}, ended from {@code closesAt}); an event first seen in a phase announces that phase
 *       only, and phases are never announced backwards.
 *   <li>{@code config.changed}: the room's configuration changed ({@link #configChanged}: a new
 *       version of its live overrides, or a new authoritative config file fingerprint).
 * </ul>
 *
 * <p>Invariants: pure and deterministic (time comes in the observation); not thread-safe; each
 * change gets the next number of {@link Memory#seq}, so its id is unique as long as the memory is
 * stored with it.
 *
 * <pre>{@code
 * StateChanges changes = new StateChanges(roomId, savedMemory);
 * List<StateChange> out = changes.observe(new Observation(now, waiting, queueAll, reporting, events));
 * storage.put(Map.of("changes", changes.memory(), "outbox/" + ..., out...)); // one atomic batch
 * }</pre>
 */
public final class StateChanges {

  /** How long nobody must wait before {@code queueing.ended}. */
  public static final Duration QUIET = Duration.ofSeconds(60);

  /**
   * What is stored between observations.
   *
   * @param seq the number of the last change
   * @param queueing whether the room was announced as queueing
   * @param quietSinceMillis since when nobody waits while announced as queueing; -1 when someone
   *     does
   * @param dataCenters each data center seen: true while it reports
   * @param eventPhases each event's last announced phase (0 none, 1 pre-queue, 2 started, 3 ended)
   * @param config the last configuration key seen (overrides version and fingerprint), or null
   */
  public record Memory(
      long seq,
      boolean queueing,
      long quietSinceMillis,
      Map<String, Boolean> dataCenters,
      Map<String, Integer> eventPhases,
      String config) {

    public static final Memory EMPTY = new Memory(0, false, -1, Map.of(), Map.of(), null);

    public Memory {
      dataCenters = dataCenters == null ? Map.of() : Map.copyOf(dataCenters);
      eventPhases = eventPhases == null ? Map.of() : Map.copyOf(eventPhases);
    }
  }

  /**
   * What the global object sees.
   *
   * @param now the time of the observation
   * @param waitingUsers users counted as waiting, over every data center
   * @param queueAll the room's queue-everyone switch
   * @param reporting the data centers that reported with active workers in the last 30 s
   * @param events the room's known events
   */
  public record Observation(
      Instant now,
      long waitingUsers,
      boolean queueAll,
      Set<String> reporting,
      Collection<EventReport.EventTotals> events) {}

  private final String room;
  private long seq;
  private boolean queueing;
  private long quietSince;
  private final TreeMap<String, Boolean> dataCenters = new TreeMap<>();
  private final TreeMap<String, Integer> phases = new TreeMap<>();
  private String config;

  public StateChanges(String room, Memory saved) {
    this.room = room;
    Memory m = saved == null ? Memory.EMPTY : saved;
    seq = m.seq();
    queueing = m.queueing();
    quietSince = m.quietSinceMillis();
    dataCenters.putAll(m.dataCenters());
    phases.putAll(m.eventPhases());
    config = m.config();
  }

  public Memory memory() {
    return new Memory(seq, queueing, quietSince, dataCenters, phases, config);
  }

  /** The changes since the last observation, in the order detected. */
  public List<StateChange> observe(Observation o) {
    List<StateChange> out = new ArrayList<>();
    long now = o.now().toEpochMilli();
    boolean waits = o.waitingUsers() > 0 || o.queueAll();
    if (waits) {
      quietSince = -1;
      if (!queueing) {
        queueing = true;
        out.add(
            change(
                "queueing.began",
                null,
                now,
                o.queueAll()
                    ? "the room queues everyone (queueAll)"
                    : o.waitingUsers() + " users are waiting"));
      }
    } else if (queueing) {
      if (quietSince < 0) {
        quietSince = now;
      } else if (now - quietSince >= QUIET.toMillis()) {
        queueing = false;
        quietSince = -1;
        out.add(
            change(
                "queueing.ended", null, now, "nobody has waited for " + QUIET.toSeconds() + " s"));
      }
    }
    for (String dc : o.reporting()) {
      Boolean was = dataCenters.put(dc, true);
      if (Boolean.FALSE.equals(was)) {
        out.add(change("recovered", dc, now, "data center " + dc + " reports again"));
      }
    }
    for (var e : dataCenters.entrySet()) {
      if (e.getValue() && !o.reporting().contains(e.getKey())) {
        e.setValue(false);
        out.add(
            change(
                "degraded",
                e.getKey(),
                now,
                "data center "
                    + e.getKey()
                    + " stopped reporting for 30 s: its gateways cannot reach the coordinator,"
                    + " or were stopped; they decide by their failMode"));
      }
    }
    for (EventReport.EventTotals e : o.events()) {
      int phase = phase(e, o.now());
      int was = phases.getOrDefault(e.name(), 0);
      if (phase > was) {
        phases.put(e.name(), phase);
        out.add(
            switch (phase) {
              case 1 ->
                  change(
                      "event.prequeue",
                      e.name(),
                      now,
                      "the pre-queue of event " + e.name() + " opened");
              case 2 -> change("event.start", e.name(), now, "event " + e.name() + " started");
              default -> change("event.end", e.name(), now, "event " + e.name() + " ended");
            });
      }
    }
    phases.keySet().retainAll(o.events().stream().map(EventReport.EventTotals::name).toList());
    return out;
  }

  /**
   * The room's configuration is now {@code key} (its overrides version and config fingerprint); a
   * change when it differs from the last one seen (the first one seen is not a change). {@code
   * detail} says what changed, for people.
   */
  public List<StateChange> configChanged(String key, String subject, String detail, Instant now) {
    if (key == null || key.equals(config)) {
      return List.of();
    }
    boolean first = config == null;
    config = key;
    return first
        ? List.of()
        : List.of(change("config.changed", subject, now.toEpochMilli(), detail));
  }

  private static int phase(EventReport.EventTotals e, Instant now) {
    if (!now.isBefore(e.closesAt())) {
      return 3;
    }
    if (!now.isBefore(e.opensAt())) {
      return 2;
    }
    return e.prequeueFrom() != null && !now.isBefore(e.prequeueFrom()) ? 1 : 0;
  }

  private StateChange change(String type, String subject, long atMillis, String detail) {
    seq++;
    return new StateChange(room + "/" + seq, room, type, subject, atMillis, detail);
  }
}
