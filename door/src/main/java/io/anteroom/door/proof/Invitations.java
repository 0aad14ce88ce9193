package io.anteroom.door.proof;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.anteroom.room.UsedChallenges;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.text.ParseException;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.List;

/**
 * Invitations to an invite-only room: enqueue tokens the operator's backend signs, each good for
 * one place in line in the whole deployment.
 *
 * <p>A token is a compact JWS (JWT) signed with HS256 under the room's {@code invitations.keyFile}
 * key, with the claims {@code aud} (the room id), {@code jti} (the invitation's id, 1 to {@value
 * #MAX_ID_CHARS} characters, unique per room), {@code exp} (required), optionally {@code evt} (the
 * event it is for: valid only while that event applies, pre-queue included), {@code nbf} and {@code
 * sub} (an account id, at most {@value #MAX_ACCOUNT_CHARS} characters). {@link #verify} checks, in
 * this order: the size, the form, the algorithm (HS256 only) and MAC, the room, the times, the
 * event. A valid token is then used once: on this gateway ({@link #useHere}, a bounded memory of
 * used ids until they expire) and at the room's coordinator, which claims its {@link Valid#claim}
 * like a proof-of-work nonce.
 *
 * <p>Deterministic: time is given. Thread-safe.
 */
public final class Invitations {

  /** The query parameter a browser brings its invitation in (the link of the invitation). */
  public static final String QUERY_PARAMETER = "anteroom-invite";

  /** The request header an app sends its invitation in (wins over the query parameter). */
  public static final String HEADER = "Anteroom-Invite";

  /** Longest token looked at: anything longer is malformed without parsing. */
  static final int MAX_TOKEN_CHARS = 4096;

  static final int MAX_ID_CHARS = 128;
  static final int MAX_ACCOUNT_CHARS = 256;

  /** Used invitations remembered per room and gateway until they expire. */
  static final int USED_CAPACITY = 1 << 18;

  private static final byte[] CLAIM_CONTEXT =
      "anteroom invitation v1\0".getBytes(StandardCharsets.UTF_8);

  /** Why an invitation was not accepted: the JSON's {@code invitation.refused}. */
  public enum Refusal {
    MISSING("missing"),
    MALFORMED("malformed"),
    FORGED("forged"),
    EXPIRED("expired"),
    NOT_YET("notYet"),
    OTHER_ROOM("otherRoom"),
    OTHER_EVENT("otherEvent"),
    REPLAYED("replayed"),
    BUSY("busy"),
    /** It names an account ({@code sub}) and the room knows the request's: another one. */
    OTHER_ACCOUNT("otherAccount");

    private final String jsonName;

    Refusal(String jsonName) {
      this.jsonName = jsonName;
    }

    public String jsonName() {
      return jsonName;
    }
  }

  /** The outcome of {@link #verify}. */
  public sealed interface Verdict permits Valid, Refused {}

  /**
   * A token that holds for this room now.
   *
   * @param id the invitation's id ({@code jti})
   * @param claim the 12-byte single-use key of the invitation, base64url (what the coordinator
   *     claims)
   * @param expiresAtMillis when the token expires ({@code exp})
   * @param account the account the invitation names ({@code sub}), or null
   */
  public record Valid(String id, String claim, long expiresAtMillis, String account)
      implements Verdict {}

  /** A token refused, and why. */
  public record Refused(Refusal reason) implements Verdict {}

  private final String roomId;
  private final MACVerifier verifier;
  private final UsedChallenges used;

  /**
   * The invitations of room {@code roomId}, signed with {@code key} (at least 32 bytes).
   *
   * @throws IllegalArgumentException for a key HS256 cannot use
   */
  public Invitations(String roomId, byte[] key) {
    this(roomId, key, new UsedChallenges(USED_CAPACITY));
  }

  private Invitations(String roomId, byte[] key, UsedChallenges used) {
    this.roomId = roomId;
    try {
      this.verifier = new MACVerifier(key);
    } catch (JOSEException e) {
      throw new IllegalArgumentException("invitation key: " + e.getMessage(), e);
    }
    this.used = used;
  }

  /** The same memory of used invitations with another key (a settings change). */
  public Invitations withKey(String newRoomId, byte[] key) {
    return new Invitations(newRoomId, key, used);
  }

  /**
   * Checks {@code token} (null: none was sent) for this room at {@code nowMillis}, while {@code
   * event} applies (null: none).
   */
  public Verdict verify(String token, String event, long nowMillis) {
    SignedTokens.Parsed parsed = SignedTokens.parse(token, MAX_TOKEN_CHARS);
    if (parsed.problem() != null) {
      return new Refused(
          switch (parsed.problem()) {
            case MISSING -> Refusal.MISSING;
            case MALFORMED -> Refusal.MALFORMED;
            case NOT_SIGNED -> Refusal.FORGED; // unsigned (alg none) or encrypted: not ours
          });
    }
    SignedJWT jwt = parsed.jwt();
    JWTClaimsSet claims = parsed.claims();
    if (!JWSAlgorithm.HS256.equals(jwt.getHeader().getAlgorithm())) {
      return new Refused(Refusal.FORGED);
    }
    try {
      if (!jwt.verify(verifier)) {
        return new Refused(Refusal.FORGED);
      }
    } catch (JOSEException | IllegalStateException e) {
      return new Refused(Refusal.FORGED);
    }
    String id;
    String evt;
    String account;
    List<String> audience;
    try {
      id = claims.getJWTID();
      evt = claims.getStringClaim("evt");
      account = claims.getStringClaim("sub");
      audience = claims.getAudience();
    } catch (ParseException e) {
      return new Refused(Refusal.MALFORMED);
    }
    Date exp = claims.getExpirationTime();
    if (id == null
        || id.isEmpty()
        || id.length() > MAX_ID_CHARS
        || exp == null
        || account != null && (account.isEmpty() || account.length() > MAX_ACCOUNT_CHARS)) {
      return new Refused(Refusal.MALFORMED);
    }
    if (!audience.contains(roomId)) {
      return new Refused(Refusal.OTHER_ROOM);
    }
    if (nowMillis >= exp.getTime()) {
      return new Refused(Refusal.EXPIRED);
    }
    Date nbf = claims.getNotBeforeTime();
    if (nbf != null && nowMillis < nbf.getTime()) {
      return new Refused(Refusal.NOT_YET);
    }
    if (evt != null && !evt.equals(event)) {
      return new Refused(Refusal.OTHER_EVENT);
    }
    return new Valid(id, claimOf(roomId, id), exp.getTime(), account);
  }

  /**
   * Uses {@code invitation} on this gateway: null the first time, else {@link Refusal#REPLAYED}, or
   * {@link Refusal#BUSY} when the memory is full of unexpired invitations (never forgets one early,
   * which would let a copy in).
   */
  public Refusal useHere(Valid invitation, long nowMillis) {
    byte[] claim = Base64.getUrlDecoder().decode(invitation.claim());
    return switch (used.use(claim, invitation.expiresAtMillis(), nowMillis)) {
      case FIRST -> null;
      case REPLAYED -> Refusal.REPLAYED;
      case FULL -> Refusal.BUSY;
    };
  }

  /**
   * The single-use key of invitation {@code id} of room {@code roomId}: the first 12 bytes of
   * SHA-256 over a fixed context, the room and the id, so that it never meets a proof-of-work nonce
   * or another room's invitation in the coordinator's memory of claims.
   */
  static String claimOf(String roomId, String id) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(CLAIM_CONTEXT);
      sha.update(roomId.getBytes(StandardCharsets.UTF_8));
      sha.update((byte) 0);
      sha.update(id.getBytes(StandardCharsets.UTF_8));
      byte[] claim = java.util.Arrays.copyOf(sha.digest(), UsedChallenges.NONCE_BYTES);
      return Base64.getUrlEncoder().withoutPadding().encodeToString(claim);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A token for one invitation, as the operator's backend would sign it (the {@code anteroom
   * invite} command, tests).
   *
   * @param event the event it is for, or null (any time the room asks for invitations)
   * @param account the account it names, or null
   */
  public static String sign(
      byte[] key, String roomId, String event, String account, String id, Instant expiresAt) {
    var claims =
        new JWTClaimsSet.Builder()
            .audience(roomId)
            .jwtID(id)
            .expirationTime(Date.from(expiresAt))
            .claim("evt", event)
            .subject(account)
            .build();
    var jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
    try {
      jwt.sign(new MACSigner(key));
    } catch (JOSEException e) {
      throw new IllegalArgumentException("invitation key: " + e.getMessage(), e);
    }
    return jwt.serialize();
  }
}
