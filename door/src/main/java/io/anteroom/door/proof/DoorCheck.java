package io.anteroom.door.proof;

import io.anteroom.door.config.GatewayConfig.OnRepeatedFailure;
import io.anteroom.door.config.GatewayConfig.ProofOfWork;
import io.anteroom.room.UsedChallenges;
import java.util.function.Consumer;

/**
 * The proof-of-work decision for one request of a new user (no valid ticket) in a room with {@code
 * proofOfWork} on: {@link Pass} (the room decides on the user as usual), {@link Challenge} (solve
 * this first; with the reason a given answer was refused), or {@link EndlessQueue} (the binding
 * failed too often: a queue page that never admits).
 *
 * <p>An answer ({@code <challenge>.<counter>}) passes when, in this order: the challenge is well
 * formed and its MAC holds for this room, generation and binding; it has not expired; its counter
 * meets the difficulty the challenge names ({@link Work}: one SHA-256); and it was not used before
 * ({@link UsedChallenges}). The cheap checks come first and the used-memory is written only for an
 * answer that did the work, so nobody can fill it without solving. Refused answers other than
 * expired ones count against the binding ({@link RepeatedFailures}); an expired answer is what an
 * honest but slow client sends.
 *
 * <p>Deterministic: time is given, randomness comes from {@code nonces}. Safe for concurrent use
 * (the memories serialize themselves). A settings change keeps the memories ({@link
 * #withSettings}).
 */
public final class DoorCheck {

  /**
   * Nonces remembered per room and gateway (about 30 MB when full): 2,000 solved challenges a
   * second at the default TTL of 120 s.
   */
  static final int USED_CAPACITY = 1 << 18;

  static final int FAILURES_CAPACITY = 1 << 16;

  /** Why a given answer was refused: the JSON's {@code proofOfWork.refused}. */
  public enum Refusal {
    MALFORMED("malformed"),
    FORGED("forged"),
    EXPIRED("expired"),
    INSUFFICIENT_WORK("insufficientWork"),
    REPLAYED("replayed"),
    BUSY("busy");

    private final String jsonName;

    Refusal(String jsonName) {
      this.jsonName = jsonName;
    }

    public String jsonName() {
      return jsonName;
    }
  }

  /** What to do with the request. */
  public sealed interface Decision permits Pass, Challenge, EndlessQueue {}

  /**
   * The answer holds on this gateway: the room decides on the user as on any new user, once the
   * challenge's {@code nonce} (base64url) is also unused deployment-wide (the edge claims it at the
   * room's coordinator, {@link io.anteroom.door.admission.RoomGate#claimChallenge}).
   */
  public record Pass(String nonce, long expiresAtMillis) implements Decision {}

  /**
   * Solve {@code challenge} first.
   *
   * @param refused why the request's answer was refused; null when it carried none
   */
  public record Challenge(ChallengeCodec.Challenge challenge, Refusal refused)
      implements Decision {}

  /** The binding failed too often: never admitted for now. */
  public record EndlessQueue() implements Decision {}

  private final String roomId;
  private final long generation;
  private final ProofOfWork settings;
  private final ChallengeCodec codec;
  private final UsedChallenges used;
  private final RepeatedFailures failures;
  private final PrefixActivity activity;
  private final Consumer<byte[]> nonces;

  /**
   * @param nonces fills a 12-byte array with fresh random bytes
   */
  public DoorCheck(
      String roomId,
      long generation,
      ProofOfWork settings,
      ChallengeCodec codec,
      Consumer<byte[]> nonces) {
    this(
        roomId,
        generation,
        settings,
        codec,
        new UsedChallenges(USED_CAPACITY),
        new RepeatedFailures(FAILURES_CAPACITY),
        new PrefixActivity(FAILURES_CAPACITY),
        nonces);
  }

  DoorCheck(
      String roomId,
      long generation,
      ProofOfWork settings,
      ChallengeCodec codec,
      UsedChallenges used,
      RepeatedFailures failures,
      PrefixActivity activity,
      Consumer<byte[]> nonces) {
    this.roomId = roomId;
    this.generation = generation;
    this.settings = settings;
    this.codec = codec;
    this.used = used;
    this.failures = failures;
    this.activity = activity;
    this.nonces = nonces;
  }

  /**
   * Fresh nonces from a DRBG per thread (the default {@code NativePRNG} takes a process-wide lock
   * per call).
   */
  public static Consumer<byte[]> secureNonces() {
    ThreadLocal<java.security.SecureRandom> random =
        ThreadLocal.withInitial(
            () -> {
              try {
                return java.security.SecureRandom.getInstance("DRBG");
              } catch (java.security.NoSuchAlgorithmException e) {
                return new java.security.SecureRandom();
              }
            });
    return bytes -> random.get().nextBytes(bytes);
  }

  /** The settings this check applies (difficulty, lifetime, the repeated-failure action). */
  public ProofOfWork settings() {
    return settings;
  }

  /** The same memories under new settings (a live settings change). */
  public DoorCheck withSettings(String newRoomId, long newGeneration, ProofOfWork newSettings) {
    return new DoorCheck(
        newRoomId, newGeneration, newSettings, codec, used, failures, activity, nonces);
  }

  /**
   * Decides on one request.
   *
   * @param answer the request's {@code <challenge>.<counter>}, or null
   * @param binding the client's address ("" when unknown)
   */
  public Decision decide(String answer, String binding, long nowMillis) {
    if (settings.onRepeatedFailure() == OnRepeatedFailure.ENDLESS_QUEUE
        && failures.marked(binding, nowMillis)) {
      return new EndlessQueue();
    }
    if (answer == null) {
      return challenge(binding, nowMillis, null);
    }
    ChallengeCodec.Challenge[] opened = new ChallengeCodec.Challenge[1];
    Refusal refused = check(answer, binding, nowMillis, opened);
    if (refused == null) {
      recordActivity(binding, nowMillis); // a new identity about to be minted
      ChallengeCodec.Challenge c = opened[0];
      return new Pass(
          java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(c.nonce()),
          c.expiresAtSeconds() * 1000);
    }
    if (refused != Refusal.EXPIRED && refused != Refusal.BUSY) {
      failures.failed(binding, nowMillis);
      recordActivity(binding, nowMillis);
      if (settings.onRepeatedFailure() == OnRepeatedFailure.ENDLESS_QUEUE
          && failures.marked(binding, nowMillis)) {
        return new EndlessQueue();
      }
    }
    return challenge(binding, nowMillis, refused);
  }

  /**
   * An answer that held here but was already used on another gateway (the deployment-wide claim
   * refused it): counted as a failure of {@code binding} like any replay, and answered with a fresh
   * challenge (or the endless queue).
   */
  public Decision replayed(String binding, long nowMillis) {
    failures.failed(binding, nowMillis);
    recordActivity(binding, nowMillis);
    if (settings.onRepeatedFailure() == OnRepeatedFailure.ENDLESS_QUEUE
        && failures.marked(binding, nowMillis)) {
      return new EndlessQueue();
    }
    return challenge(binding, nowMillis, Refusal.REPLAYED);
  }

  private Refusal check(
      String answer, String binding, long nowMillis, ChallengeCodec.Challenge[] out) {
    int dot = answer.indexOf('.');
    if (dot != ChallengeCodec.CHARS) {
      return Refusal.MALFORMED;
    }
    String text = answer.substring(0, dot);
    String counter = answer.substring(dot + 1);
    if (!Work.wellFormedCounter(counter)) {
      return Refusal.MALFORMED;
    }
    var opened = codec.open(roomId, generation, binding, text);
    if (opened.isEmpty()) {
      return Refusal.FORGED;
    }
    ChallengeCodec.Challenge c = opened.get();
    out[0] = c;
    long expiresAtMillis = c.expiresAtSeconds() * 1000;
    if (nowMillis >= expiresAtMillis) {
      return Refusal.EXPIRED;
    }
    if (!Work.satisfies(text, counter, c.difficulty())) {
      return Refusal.INSUFFICIENT_WORK;
    }
    return switch (used.use(c.nonce(), expiresAtMillis, nowMillis)) {
      case FIRST -> null;
      case REPLAYED -> Refusal.REPLAYED;
      case FULL -> Refusal.BUSY;
    };
  }

  private Challenge challenge(String binding, long nowMillis, Refusal refused) {
    byte[] nonce = new byte[ChallengeCodec.NONCE_BYTES];
    nonces.accept(nonce);
    long expires = Math.floorDiv(nowMillis, 1000) + settings.challengeTtlSeconds();
    return new Challenge(
        codec.issue(roomId, generation, binding, difficulty(binding, nowMillis), expires, nonce),
        refused);
  }

  /**
   * The difficulty of a challenge for {@code binding} now: the room's, plus the extra bits its
   * prefix earned ({@code maxExtraBits}; IPv4 /32, IPv6 /64).
   */
  public int difficulty(String binding, long nowMillis) {
    if (settings.maxExtraBits() == 0) {
      return settings.difficulty();
    }
    return settings.difficultyFor(activity.events(prefix(binding), nowMillis));
  }

  private void recordActivity(String binding, long nowMillis) {
    if (settings.maxExtraBits() > 0) {
      activity.record(prefix(binding), nowMillis);
    }
  }

  private static String prefix(String binding) {
    String p = io.anteroom.door.match.Cidr.prefixOf(binding, 32, 64);
    return p == null ? "unknown" : p;
  }
}
