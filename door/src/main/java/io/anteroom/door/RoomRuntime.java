package io.anteroom.door;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.LockFreeExponentiallyDecayingReservoir;
import com.codahale.metrics.MetricRegistry;
import io.anteroom.door.admission.OriginProtection;
import io.anteroom.door.admission.RoomControl;
import io.anteroom.door.admission.RoomGate;
import io.anteroom.door.config.GatewayConfig.RoomSettings;
import io.anteroom.door.proof.DoorCheck;
import io.anteroom.door.proof.Invitations;
import io.anteroom.door.queue.QueuePacing;
import io.anteroom.door.queue.QueueResponder;
import io.anteroom.door.route.RuleMatcher;
import io.anteroom.door.ticket.TicketCookie;

/**
 * One configured room as the door runs it: its settings, its admission (request path {@link
 * #gate()}, control {@link #control()}), its ticket cookie, compiled rules, queue renderer, pacing
 * and meters, and its chain of stages. Immutable; a settings change builds a new runtime around the
 * same {@link RoomControl} (so counts survive) and swaps it into {@link Rooms}. {@code protection}
 * is null unless the room's origin protection is enabled; {@code door} is null unless its {@code
 * proofOfWork} (or an event's) is; {@code invitations} is null unless the room or an event requires
 * invitations.
 */
public final class RoomRuntime {
  private final RoomSettings settings;
  private final RoomControl control;
  private final RoomGate gate;
  private final TicketCookie cookie;
  private final RuleMatcher rules;
  private final QueueResponder responder;
  private final QueuePacing pacing;
  private final Meters meters;
  private final OriginProtection protection;
  private final DoorCheck door;
  private final io.anteroom.door.proof.NewIdentityLimit limit;
  private final io.anteroom.door.proof.HumanVerifier human;
  private final io.anteroom.door.proof.RepeatedFailures humanFailures;
  private final Invitations invitations;
  private final RoomAccounts accounts;
  private final Step entrance;
  private final boolean draws;

  RoomRuntime(
      RoomSettings settings,
      RoomControl control,
      TicketCookie cookie,
      RuleMatcher rules,
      QueueResponder responder,
      QueuePacing pacing,
      Meters meters,
      OriginProtection protection,
      DoorCheck door,
      io.anteroom.door.proof.NewIdentityLimit limit,
      io.anteroom.door.proof.HumanVerifier human,
      io.anteroom.door.proof.RepeatedFailures humanFailures,
      Invitations invitations,
      RoomAccounts accounts,
      Answers answers) {
    this.settings = settings;
    this.control = control;
    this.gate = control.gate();
    this.cookie = cookie;
    this.rules = rules;
    this.responder = responder;
    this.pacing = pacing;
    this.meters = meters;
    this.protection = protection;
    this.door = door;
    this.limit = limit;
    this.human = human;
    this.humanFailures = humanFailures;
    this.invitations = invitations;
    this.accounts = accounts;
    this.entrance = Stages.chain(this, answers);
    this.draws = gate.draws() != null && io.anteroom.door.queue.DrawResponder.draws(settings);
  }

  /**
   * Whether the room draws anything a user can audit (a shuffled event, random queueing) with a
   * gate that has draws: its queued users get receipts.
   */
  public boolean draws() {
    return draws;
  }

  public RoomSettings settings() {
    return settings;
  }

  /** The room's request-path API. */
  public RoomGate gate() {
    return gate;
  }

  /** The room's control: status, history, reports, overrides. */
  public RoomControl control() {
    return control;
  }

  public TicketCookie cookie() {
    return cookie;
  }

  /**
   * The room's limit of new identities per address prefix; null when {@code addressLimit} is off.
   */
  public io.anteroom.door.proof.NewIdentityLimit limit() {
    return limit;
  }

  /** The room's human-check verifier; null when {@code humanCheck} is off. */
  public io.anteroom.door.proof.HumanVerifier human() {
    return human;
  }

  /** Client addresses whose human-check token the provider refused lately. */
  io.anteroom.door.proof.RepeatedFailures humanFailures() {
    return humanFailures;
  }

  public RuleMatcher rules() {
    return rules;
  }

  public QueueResponder responder() {
    return responder;
  }

  public QueuePacing pacing() {
    return pacing;
  }

  public Meters meters() {
    return meters;
  }

  /** Origin protection, or null when off. */
  public OriginProtection protection() {
    return protection;
  }

  /** The proof-of-work check, or null when neither the room nor an event turns it on. */
  public DoorCheck door() {
    return door;
  }

  /**
   * The room's invitations, or null when neither the room nor an event requires them (see {@code
   * invitations}).
   */
  public Invitations invitations() {
    return invitations;
  }

  /** The room's accounts, or null when it does not know its users' accounts ({@code account}). */
  RoomAccounts accounts() {
    return accounts;
  }

  /** The first stage of the room's chain. */
  Step entrance() {
    return entrance;
  }

  /**
   * Dropwizard metrics of one room, named {@code anteroom.room.<id>.<what>}: counters (one {@code
   * LongAdder} each; no rates, which scrapers compute) and the origin's latency in nanoseconds.
   */
  public record Meters(
      Counter admittedNew,
      Counter admittedReturning,
      Counter queued,
      Counter rejected,
      Counter bypassed,
      Counter revoked,
      Histogram origin) {

    static Meters register(MetricRegistry registry, String roomId) {
      String p = "anteroom.room." + roomId + ".";
      return new Meters(
          registry.counter(p + "admitted_new"),
          registry.counter(p + "admitted_returning"),
          registry.counter(p + "queued"),
          registry.counter(p + "rejected"),
          registry.counter(p + "bypassed"),
          registry.counter(p + "revoked"),
          registry.histogram(p + "origin_latency", Meters::originLatency));
    }

    /**
     * The origin's latency in nanoseconds: the default exponentially decaying reservoir's sampling
     * (1,028 samples, alpha 0.015), without its lock, and without a timer's rates; it is updated on
     * every passed request, so after its first 1,028 values it is handed one in 16 ({@link
     * ThinnedReservoir}); the count stays exact.
     */
    private static Histogram originLatency() {
      return new Histogram(
          new ThinnedReservoir(
              LockFreeExponentiallyDecayingReservoir.builder().build(),
              1028,
              16,
              bound -> java.util.concurrent.ThreadLocalRandom.current().nextInt(bound)));
    }

    static void unregister(MetricRegistry registry, String roomId) {
      registry.removeMatching((name, m) -> name.startsWith("anteroom.room." + roomId + "."));
    }
  }
}
