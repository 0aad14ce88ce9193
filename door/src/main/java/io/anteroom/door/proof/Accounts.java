package io.anteroom.door.proof;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who the user is, as the application asserts it: a JWT whose {@code sub} names the account, either
 * signed by the application itself with HS256 under a shared key ({@link #hs256}), or an OIDC ID
 * token signed with RS256 or ES256 by a key of the identity provider's JWKS ({@link #oidc}).
 *
 * <p>{@link #verify} checks, in this order: the size, the form, the algorithm (only the configured
 * kind: a HS256 room never takes RS256, an OIDC room never takes HS256 or {@code none}), the
 * signature (OIDC: the key named by {@code kid}, or the only key of the token's type), {@code exp}
 * (required), {@code nbf} and {@code iat} (not in the future), then for OIDC {@code iss} and {@code
 * aud}; {@code sub} must be 1 to {@value #MAX_ACCOUNT_CHARS} characters. Times are allowed {@code
 * skew} either way. An assertion is a bearer credential: while it holds it names its account on
 * every request (that is the point: every browser of the account is the same user); it cannot be
 * used after {@code exp}.
 *
 * <p>An OIDC token signed by a key this room does not know yet ({@code unknownKey}) makes a room
 * with a {@code jwksUrl} fetch the provider's keys again, in the background and at most once a
 * minute (the provider rotated its keys); the request is answered at once, and the next one after
 * the fetch passes. Deterministic: time is given. Thread-safe.
 */
public final class Accounts {
  private static final Logger LOG = LoggerFactory.getLogger(Accounts.class);

  /** Longest assertion looked at: anything longer is malformed without parsing. */
  static final int MAX_TOKEN_CHARS = 8192;

  static final int MAX_ACCOUNT_CHARS = 256;

  /** Verified assertions kept per room ({@link VerifiedTokens}): about 200 bytes each. */
  static final int VERIFIED_CAPACITY = 1 << 16;

  /** The least time between two fetches of a provider's keys ({@code jwksUrl}). */
  static final long REFETCH_MILLIS = 60_000;

  private static final byte[] KEY_CONTEXT =
      "anteroom account v1\0".getBytes(StandardCharsets.UTF_8);

  /** Why an assertion was not accepted: the JSON's {@code account.refused}. */
  public enum Refusal {
    MISSING("missing"),
    MALFORMED("malformed"),
    FORGED("forged"),
    UNKNOWN_KEY("unknownKey"),
    EXPIRED("expired"),
    NOT_YET("notYet"),
    OTHER_ISSUER("otherIssuer"),
    OTHER_AUDIENCE("otherAudience");

    private final String jsonName;

    Refusal(String jsonName) {
      this.jsonName = jsonName;
    }

    public String jsonName() {
      return jsonName;
    }
  }

  /** The outcome of {@link #verify}. */
  public sealed interface Verdict permits Known, Refused {}

  /**
   * An assertion that holds now.
   *
   * @param account the account ({@code sub})
   * @param expiresAtMillis when the assertion expires ({@code exp})
   */
  public record Known(String account, long expiresAtMillis) implements Verdict {}

  /** An assertion refused, and why. */
  public record Refused(Refusal reason) implements Verdict {}

  private final MACVerifier mac;
  private final String issuer;
  private final String audience;
  private final long skewMillis;
  private final VerifiedTokens verified;
  private final java.util.concurrent.atomic.LongAdder fullChecks =
      new java.util.concurrent.atomic.LongAdder();
  private final Supplier<JWKSet> refetch;
  private volatile JWKSet keys;
  private volatile long lastFetchMillis = Long.MIN_VALUE / 2;
  private volatile boolean fetching;
  private volatile java.util.concurrent.CompletableFuture<Void> lastFetch =
      java.util.concurrent.CompletableFuture.completedFuture(null);

  private Accounts(
      MACVerifier mac,
      String issuer,
      String audience,
      JWKSet keys,
      Supplier<JWKSet> refetch,
      long skewMillis) {
    this.mac = mac;
    this.issuer = issuer;
    this.audience = audience;
    this.keys = keys;
    this.refetch = refetch;
    this.skewMillis = skewMillis;
    this.verified = new VerifiedTokens(VERIFIED_CAPACITY, skewMillis);
  }

  /**
   * Assertions the application signs with HS256 under {@code key} (at least 32 bytes).
   *
   * @throws IllegalArgumentException for a key HS256 cannot use
   */
  public static Accounts hs256(byte[] key, long skewMillis) {
    try {
      return new Accounts(new MACVerifier(key), null, null, null, null, skewMillis);
    } catch (JOSEException e) {
      throw new IllegalArgumentException("identity key: " + e.getMessage(), e);
    }
  }

  /**
   * OIDC ID tokens of {@code issuer} for client {@code audience}, signed by a key of {@code keys};
   * {@code refetch} (null: never) fetches the provider's keys again when a token names an unknown
   * key (it may block: it runs on a thread of its own).
   */
  public static Accounts oidc(
      String issuer, String audience, JWKSet keys, Supplier<JWKSet> refetch, long skewMillis) {
    return new Accounts(
        null, issuer, audience, keys == null ? new JWKSet() : keys, refetch, skewMillis);
  }

  /**
   * The assertion a request brings: header {@code headerValue} (an {@code Authorization} value's
   * {@code Bearer } prefix dropped) or else {@code cookieValue}; null when neither.
   */
  public static String tokenOf(String headerName, String headerValue, String cookieValue) {
    if (headerValue != null && !headerValue.isEmpty()) {
      if (headerName.equalsIgnoreCase("Authorization")) {
        return headerValue.regionMatches(true, 0, "Bearer ", 0, 7)
            ? headerValue.substring(7).strip()
            : null;
      }
      return headerValue.strip();
    }
    return cookieValue == null || cookieValue.isEmpty() ? null : cookieValue;
  }

  /**
   * Checks {@code token} (null: none was sent) at {@code nowMillis}. An assertion accepted before
   * is taken from a bounded cache, keyed by its bytes' SHA-256, until its {@code exp} (plus the
   * skew), without parsing or verifying it again ({@link VerifiedTokens}).
   */
  public Verdict verify(String token, long nowMillis) {
    if (token == null || token.isEmpty() || token.length() > MAX_TOKEN_CHARS) {
      return check(token, nowMillis);
    }
    Object key = VerifiedTokens.keyOf(token);
    Known cached = verified.get(key, nowMillis);
    if (cached != null) {
      return cached;
    }
    Verdict v = check(token, nowMillis);
    if (v instanceof Known k) {
      verified.put(key, k, nowMillis);
    }
    return v;
  }

  /** How many assertions were parsed and verified in full (not taken from the cache). */
  long fullChecks() {
    return fullChecks.sum();
  }

  private Verdict check(String token, long nowMillis) {
    fullChecks.increment();
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
    Refusal bad = mac != null ? checkMac(jwt) : checkProvider(jwt, nowMillis);
    if (bad != null) {
      return new Refused(bad);
    }
    String account;
    List<String> aud;
    String iss;
    try {
      account = claims.getSubject();
      aud = claims.getAudience();
      iss = claims.getIssuer();
    } catch (RuntimeException e) {
      return new Refused(Refusal.MALFORMED);
    }
    Date exp = claims.getExpirationTime();
    if (account == null
        || account.isEmpty()
        || account.length() > MAX_ACCOUNT_CHARS
        || exp == null) {
      return new Refused(Refusal.MALFORMED);
    }
    if (nowMillis >= exp.getTime() + skewMillis) {
      return new Refused(Refusal.EXPIRED);
    }
    Date nbf = claims.getNotBeforeTime();
    Date iat = claims.getIssueTime();
    if (nbf != null && nowMillis + skewMillis < nbf.getTime()
        || iat != null && nowMillis + skewMillis < iat.getTime()) {
      return new Refused(Refusal.NOT_YET);
    }
    if (issuer != null) {
      if (!issuer.equals(iss)) {
        return new Refused(Refusal.OTHER_ISSUER);
      }
      if (!aud.contains(audience)) {
        return new Refused(Refusal.OTHER_AUDIENCE);
      }
    }
    return new Known(account, exp.getTime());
  }

  private Refusal checkMac(SignedJWT jwt) {
    if (!JWSAlgorithm.HS256.equals(jwt.getHeader().getAlgorithm())) {
      return Refusal.FORGED;
    }
    return verifies(jwt, mac) ? null : Refusal.FORGED;
  }

  private Refusal checkProvider(SignedJWT jwt, long nowMillis) {
    JWSHeader header = jwt.getHeader();
    JWSAlgorithm alg = header.getAlgorithm();
    if (!JWSAlgorithm.RS256.equals(alg) && !JWSAlgorithm.ES256.equals(alg)) {
      return Refusal.FORGED;
    }
    JWK key = keyFor(keys, header);
    if (key == null) {
      fetchAgain(nowMillis);
      return Refusal.UNKNOWN_KEY;
    }
    try {
      JWSVerifier verifier =
          key instanceof RSAKey rsa
              ? new RSASSAVerifier(rsa.toRSAPublicKey())
              : new ECDSAVerifier(((ECKey) key).toECPublicKey());
      return verifies(jwt, verifier) ? null : Refusal.FORGED;
    } catch (JOSEException | RuntimeException e) {
      return Refusal.FORGED;
    }
  }

  /**
   * The key of {@code set} that may have signed a token with {@code header}: the one its {@code
   * kid} names, of the algorithm's type; without a {@code kid}, the only key of that type.
   */
  static JWK keyFor(JWKSet set, JWSHeader header) {
    boolean rsa = JWSAlgorithm.RS256.equals(header.getAlgorithm());
    String kid = header.getKeyID();
    JWK only = null;
    int candidates = 0;
    for (JWK k : set.getKeys()) {
      boolean fits =
          rsa
              ? k instanceof RSAKey
              : k instanceof ECKey ec && com.nimbusds.jose.jwk.Curve.P_256.equals(ec.getCurve());
      if (!fits || k.getKeyUse() != null && !"sig".equals(k.getKeyUse().getValue())) {
        continue;
      }
      if (kid != null) {
        if (kid.equals(k.getKeyID())) {
          return k;
        }
      } else {
        only = k;
        candidates++;
      }
    }
    return candidates == 1 ? only : null;
  }

  private static boolean verifies(SignedJWT jwt, JWSVerifier verifier) {
    try {
      return jwt.verify(verifier);
    } catch (JOSEException | IllegalStateException e) {
      return false;
    }
  }

  /** The last fetch of the provider's keys: done once its keys are in use (tests). */
  java.util.concurrent.CompletableFuture<Void> lastFetch() {
    return lastFetch;
  }

  /** Fetches the provider's keys again on a thread of its own, at most once a minute. */
  private void fetchAgain(long nowMillis) {
    if (refetch == null || fetching || nowMillis - lastFetchMillis < REFETCH_MILLIS) {
      return;
    }
    synchronized (this) {
      if (fetching || nowMillis - lastFetchMillis < REFETCH_MILLIS) {
        return;
      }
      fetching = true;
      lastFetchMillis = nowMillis;
    }
    var done = new java.util.concurrent.CompletableFuture<Void>();
    lastFetch = done;
    Thread.ofVirtual()
        .name("anteroom-jwks-fetch")
        .start(
            () -> {
              try {
                JWKSet fresh = refetch.get();
                if (fresh != null) {
                  keys = fresh;
                }
              } catch (RuntimeException e) {
                LOG.warn(
                    "the identity provider's keys could not be fetched ({}); tokens signed by a"
                        + " new key are refused as unknownKey until a later fetch works",
                    e.getMessage());
              } finally {
                fetching = false;
                done.complete(null);
              }
            });
  }

  /**
   * The key under which room {@code roomId} remembers {@code account}'s place at the coordinator:
   * 12 bytes of SHA-256 over a fixed context, the room and the account, base64url (the coordinator
   * never learns the account itself).
   */
  public static String placeKey(String roomId, String account) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(KEY_CONTEXT);
      sha.update(roomId.getBytes(StandardCharsets.UTF_8));
      sha.update((byte) 0);
      sha.update(account.getBytes(StandardCharsets.UTF_8));
      return Base64.getUrlEncoder()
          .withoutPadding()
          .encodeToString(Arrays.copyOf(sha.digest(), PLACE_KEY_BYTES));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Bytes of a {@link #placeKey}: as many as a proof-of-work nonce. */
  public static final int PLACE_KEY_BYTES = 12;

  /**
   * An assertion as the application would sign it with HS256 (tests, docs).
   *
   * @param notBefore null: none
   */
  public static String sign(byte[] key, String account, Instant expiresAt, Instant notBefore) {
    var claims =
        new JWTClaimsSet.Builder()
            .subject(account)
            .issueTime(notBefore == null ? null : Date.from(notBefore))
            .notBeforeTime(notBefore == null ? null : Date.from(notBefore))
            .expirationTime(Date.from(expiresAt))
            .build();
    var jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
    try {
      jwt.sign(new MACSigner(key));
    } catch (JOSEException e) {
      throw new IllegalArgumentException("identity key: " + e.getMessage(), e);
    }
    return jwt.serialize();
  }

  /** Lower case, for the log. */
  @Override
  public String toString() {
    return (mac != null ? "hs256" : "oidc " + issuer).toLowerCase(Locale.ROOT);
  }
}
