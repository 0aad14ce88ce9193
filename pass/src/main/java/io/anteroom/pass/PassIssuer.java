package io.anteroom.pass;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.util.Base64URL;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Duration;
import java.util.Date;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs the pass the door adds to every request it lets through to the origin, as the header
 * {@value PassVerifier#HEADER}: a compact JWS (ES256, header {@code kid} and {@code typ:
 * anteroom-pass+jwt}) whose claims name the room ({@code room}), the event if any ({@code event}),
 * the admitted user ({@code sub}, the pass id), when the user was admitted ({@code admitted_at}),
 * when the pass was signed ({@code iat}) and when it expires ({@code exp}).
 *
 * <p>One call per admitted request, from any thread:
 *
 * <pre>{@code
 * PassIssuer issuer = PassIssuer.builder(PassKeys.openOrCreate(dataDir)).build();
 * String pass = issuer.passFor("shop", "launch", ticketId, admittedAtMillis, sessionEndsAtMillis);
 * proxiedRequest.headers().set(PassVerifier.HEADER, pass);
 * }</pre>
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>The pass id is stable for one admitted user (one ticket id in one room) across requests,
 *       gateways and key rotations, and reveals nothing of the ticket: the first 128 bits of
 *       HMAC-SHA256 under the key file's pass-id secret, base64url.
 *   <li>A pass never outlives the session: {@code exp} is the session's end or {@code ttl} after
 *       signing, whichever is first (whole seconds, rounded down).
 *   <li>Reuse: signing costs hundreds of microseconds, so a pass signed for a user is handed out
 *       again to the same user (same room, event, ticket id and admission time) for as long as it
 *       expires at most {@code reuse} before a freshly signed one would, no later than the session
 *       ends, and is not yet expired. A renewal that moves the session's end further than {@code
 *       reuse} therefore gets a new pass; a session that ends sooner than the pass gets a new one.
 *   <li>Thread safety: the reuse cache is a fixed array of immutable entries, one slot per ticket
 *       id's hash, written and read without locks. A racing thread may see an older entry, or sign
 *       again; an entry is used only when all of its identity matches, so one user never gets
 *       another's pass. Memory is bounded by the slots ({@code cacheSlots}, default 4,096).
 * </ul>
 */
public final class PassIssuer {

  private static final byte[] PASS_ID_CONTEXT =
      "anteroom pass id v1\0".getBytes(StandardCharsets.US_ASCII);

  private final JWSSigner signer;
  private final JWSHeader header;
  private final SecretKeySpec passIdKey;
  private final Clock clock;
  private final long ttlSeconds;
  private final long reuseSeconds;
  private final Entry[] cache;
  private final int mask;

  private PassIssuer(Builder b) {
    try {
      this.signer = new ECDSASigner(b.keys.signingKey());
    } catch (JOSEException e) {
      throw new IllegalArgumentException("the signing key cannot sign ES256: " + e, e);
    }
    this.header =
        new JWSHeader.Builder(JWSAlgorithm.ES256)
            .keyID(b.keys.currentKeyId())
            .type(new JOSEObjectType(PassClaims.TYPE))
            .build();
    this.passIdKey = new SecretKeySpec(b.keys.passIdSecret(), "HmacSHA256");
    this.clock = b.clock;
    this.ttlSeconds = b.ttl.toSeconds();
    this.reuseSeconds = b.reuse.toSeconds();
    this.cache = new Entry[b.cacheSlots];
    this.mask = b.cacheSlots - 1;
  }

  /**
   * A builder over {@code keys} (the first key signs), with the defaults: {@code ttl} 5 minutes,
   * {@code reuse} 2 minutes, the system clock, 4,096 cache slots.
   */
  public static Builder builder(PassKeys keys) {
    return new Builder(keys);
  }

  /**
   * The {@value PassVerifier#HEADER} header value for one admitted request: a signed pass, or the
   * same one as a request of this user shortly before (see the class comment).
   *
   * @param room the room's id
   * @param event the event's id, or null when the room has none
   * @param ticketId the ticket's random id (never sent: only its HMAC is, as the pass id)
   * @param admittedAtMillis when the user was admitted, epoch milliseconds
   * @param sessionEndsAtMillis when the admitted session ends unless renewed, epoch milliseconds
   * @throws IllegalArgumentException when the session ends before the admission
   */
  public String passFor(
      String room, String event, long ticketId, long admittedAtMillis, long sessionEndsAtMillis) {
    return passFor(room, event, null, ticketId, admittedAtMillis, sessionEndsAtMillis);
  }

  /**
   * The {@value PassVerifier#HEADER} header value for one admitted request of a room that knows its
   * users' accounts: as {@link #passFor(String, String, long, long, long)}, and the pass names
   * {@code account} (claim {@code account}), so that checkout can allow one order per account.
   *
   * @param account the account the application asserted for this request's user, or null
   */
  public String passFor(
      String room,
      String event,
      String account,
      long ticketId,
      long admittedAtMillis,
      long sessionEndsAtMillis) {
    return passFor(
        room, event, account, ticketId, admittedAtMillis, sessionEndsAtMillis, clock.millis());
  }

  /**
   * {@link #passFor(String, String, String, long, long, long)} dated {@code nowMillis} (epoch
   * milliseconds) instead of a reading of the issuer's clock: for a caller that has read the clock
   * for its request already (a gateway reads it once per request, not once per step).
   */
  public String passFor(
      String room,
      String event,
      String account,
      long ticketId,
      long admittedAtMillis,
      long sessionEndsAtMillis,
      long nowMillis) {
    Objects.requireNonNull(room, "room");
    if (sessionEndsAtMillis < admittedAtMillis) {
      throw new IllegalArgumentException(
          "a session ends ("
              + sessionEndsAtMillis
              + ") before its admission ("
              + admittedAtMillis
              + ")");
    }
    long now = Math.floorDiv(nowMillis, 1000);
    long sessionEnds = Math.floorDiv(sessionEndsAtMillis, 1000);
    long expires = Math.min(sessionEnds, now + ttlSeconds);
    int slot = slot(room, ticketId);
    Entry cached = cache[slot];
    if (cached != null
        && reuseSeconds > 0
        && cached.ticketId == ticketId
        && cached.admittedAtMillis == admittedAtMillis
        && cached.room.equals(room)
        && Objects.equals(cached.event, event)
        && Objects.equals(cached.account, account)
        && cached.expires <= sessionEnds
        && cached.expires >= expires - reuseSeconds
        && cached.expires > now) {
      return cached.pass;
    }
    String pass =
        sign(
            room,
            event,
            account,
            passId(room, ticketId),
            Math.floorDiv(admittedAtMillis, 1000),
            now,
            expires);
    cache[slot] = new Entry(room, event, account, ticketId, admittedAtMillis, expires, pass);
    return pass;
  }

  /**
   * The pass id of a ticket in a room: what {@code sub} says in its passes (for a gateway's logs;
   * the origin reads it from the verified {@link Pass}).
   */
  public String passId(String room, long ticketId) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(passIdKey);
      mac.update(PASS_ID_CONTEXT);
      mac.update(room.getBytes(StandardCharsets.UTF_8));
      mac.update((byte) 0);
      mac.update(ByteBuffer.allocate(Long.BYTES).putLong(ticketId).array());
      byte[] id = new byte[16];
      System.arraycopy(mac.doFinal(), 0, id, 0, id.length);
      return Base64URL.encode(id).toString();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JDK has no HmacSHA256: " + e, e);
    }
  }

  private String sign(
      String room,
      String event,
      String account,
      String passId,
      long admittedAt,
      long now,
      long expires) {
    var claims =
        new JWTClaimsSet.Builder()
            .claim(PassClaims.ROOM, room)
            .subject(passId)
            .claim(PassClaims.ADMITTED_AT, admittedAt)
            .issueTime(new Date(now * 1000))
            .expirationTime(new Date(expires * 1000));
    if (event != null) {
      claims.claim(PassClaims.EVENT, event);
    }
    if (account != null) {
      claims.claim(PassClaims.ACCOUNT, account);
    }
    var jwt = new SignedJWT(header, claims.build());
    try {
      jwt.sign(signer);
    } catch (JOSEException e) {
      throw new IllegalStateException("signing a pass failed: " + e, e);
    }
    return jwt.serialize();
  }

  private int slot(String room, long ticketId) {
    long h = (ticketId ^ room.hashCode()) * 0x9E3779B97F4A7C15L;
    return (int) (h >>> 32) & mask;
  }

  private record Entry(
      String room,
      String event,
      String account,
      long ticketId,
      long admittedAtMillis,
      long expires,
      String pass) {}

  /** Settings of a {@link PassIssuer}, each with its default. */
  public static final class Builder {
    private final PassKeys keys;
    private Duration ttl = Duration.ofMinutes(5);
    private Duration reuse = Duration.ofMinutes(2);
    private Clock clock = Clock.systemUTC();
    private int cacheSlots = 4096;

    private Builder(PassKeys keys) {
      this.keys = Objects.requireNonNull(keys, "keys");
    }

    /**
     * How long a pass is valid after it is signed, at most (never beyond the session's end);
     * default 5 minutes, from 10 seconds to 1 day. It bounds how long a pass that leaked from the
     * origin side could be replayed to an origin reachable around the gateway.
     */
    public Builder ttl(Duration ttl) {
      if (ttl.compareTo(Duration.ofSeconds(10)) < 0 || ttl.compareTo(Duration.ofDays(1)) > 0) {
        throw new IllegalArgumentException("pass ttl " + ttl + ": must be from 10 s to 1 day");
      }
      this.ttl = ttl;
      return this;
    }

    /**
     * How much earlier than a fresh pass a reused one may expire; default 2 minutes, 0 to sign
     * every request again, below half the {@code ttl}. A signature costs hundreds of microseconds
     * of CPU on the JDK's P-256 (docs/benchmarks.md), a reused pass tens of nanoseconds: with the
     * defaults a user costs at most one signature per 2 minutes.
     */
    public Builder reuse(Duration reuse) {
      if (reuse.isNegative()) {
        throw new IllegalArgumentException("pass reuse " + reuse + ": must not be negative");
      }
      this.reuse = reuse;
      return this;
    }

    /** The clock that dates passes (tests pass a fixed or virtual one). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Slots of the reuse cache, a power of two from 1 to 2^20; default 4,096. */
    public Builder cacheSlots(int slots) {
      this.cacheSlots = PassClaims.cacheSlots("pass cacheSlots", slots);
      return this;
    }

    /**
     * The issuer.
     *
     * @throws IllegalArgumentException when {@code reuse} is not below half the {@code ttl}
     */
    public PassIssuer build() {
      if (reuse.multipliedBy(2).compareTo(ttl) >= 0) {
        throw new IllegalArgumentException(
            "pass reuse " + reuse + " must be below half the ttl " + ttl);
      }
      return new PassIssuer(this);
    }
  }
}
