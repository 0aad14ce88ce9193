package io.anteroom.pass;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.KeySourceException;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKMatcher;
import com.nimbusds.jose.jwk.JWKSelector;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.KeyType;
import com.nimbusds.jose.jwk.KeyUse;
import com.nimbusds.jose.jwk.source.ImmutableJWKSet;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.jwk.source.RateLimitReachedException;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.util.DefaultResourceRetriever;
import com.nimbusds.jwt.EncryptedJWT;
import com.nimbusds.jwt.JWT;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.JWTParser;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Checks the {@value #HEADER} header at the origin: the pass the door adds to every request it lets
 * through. Depends on nothing of Anteroom but this module.
 *
 * <pre>{@code
 * PassVerifier verifier =
 *     PassVerifier.builder()
 *         .jwks(URI.create("http://gateway.internal:8081/.well-known/jwks.json").toURL())
 *         .rooms("shop")
 *         .build();
 *
 * // at checkout: refuse a request without a valid pass, then allow one order per pass id
 * Pass pass = verifier.requireValid(request.getHeader(PassVerifier.HEADER));
 * orders.placeOnce(pass.passId(), cart);
 * }</pre>
 *
 * <p>A pass is valid when it is a compact JWS signed with ES256 (never {@code alg: none}, never an
 * HMAC keyed with a public key) by a key of the JWKS named by its {@code kid}, its {@code typ} is
 * {@code anteroom-pass+jwt}, it has not expired and was not signed in the future (each with the
 * allowed clock skew, default 30 seconds), and its {@code room} is one this verifier accepts.
 * {@link #verify} says why a pass is refused; {@link #requireValid} throws instead (strict mode).
 *
 * <p>Thread safety: one verifier serves all threads. Passes that verified are remembered in a fixed
 * array of immutable entries (one slot per hash, 1,024 by default; an entry is used only for the
 * same characters, and the expiry, clock skew and room are checked again on every use), because the
 * door reuses a user's pass for a while and an ECDSA verification costs tens of microseconds. Keys
 * fetched from a URL are cached and fetched again (rate-limited) when a pass names a key the cached
 * set lacks, and a JWKS file is read again when it changed, so a rotation at the gateway needs no
 * restart of the origin. A pass that verified stays accepted until it expires even if its key is
 * retired meanwhile; retire keys only once their passes have expired.
 */
public final class PassVerifier {

  /** The request header that carries the pass. */
  public static final String HEADER = "Anteroom-Pass";

  /** Longer values are refused unparsed (a pass is about 400 characters). */
  static final int MAX_LENGTH = 4096;

  private static final JOSEObjectType TYPE = new JOSEObjectType(PassClaims.TYPE);

  private final JWKSource<SecurityContext> keys;
  private final Set<String> rooms;
  private final Clock clock;
  private final long skewMillis;
  private final Verified[] cache;
  private final int mask;
  private final ConcurrentHashMap<String, KeyVerifier> verifiers = new ConcurrentHashMap<>();

  private PassVerifier(Builder b) {
    this.keys = b.keysOf != null ? b.keysOf.apply(b.clock) : b.keys;
    this.rooms = Set.copyOf(b.rooms);
    this.clock = b.clock;
    this.skewMillis = b.skew.toMillis();
    this.cache = new Verified[b.cacheSlots];
    this.mask = b.cacheSlots - 1;
  }

  /** A builder: name a key source and the rooms to accept; the rest has defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Verifies one header value. Never throws for what a client or a network may send: every
   * malformed, forged or stale value is a {@link PassCheck.Refused} with its reason.
   *
   * @param header the {@value #HEADER} header's value, or null when the request has none
   */
  public PassCheck verify(String header) {
    if (header == null || header.isBlank()) {
      return refused(PassRefusal.MISSING, "the request carries no " + HEADER + " header");
    }
    if (header.length() > MAX_LENGTH) {
      return refused(
          PassRefusal.MALFORMED, header.length() + " characters, more than a pass ever has");
    }
    int slot = header.hashCode() & mask;
    Verified hit = cache[slot];
    if (hit != null && hit.token.equals(header)) {
      return checkClaims(hit.pass, hit.issuedAt);
    }
    Verified verified;
    try {
      verified = verifySignature(header);
    } catch (Refusal refusal) {
      return refusal.refused;
    }
    cache[slot] = verified;
    return checkClaims(verified.pass, verified.issuedAt);
  }

  /**
   * The pass of a request that must have one (strict mode at the origin): its value if valid.
   *
   * @param header the {@value #HEADER} header's value, or null when the request has none
   * @throws PassRefusedException when the pass is missing or refused; answer with 403
   */
  public Pass requireValid(String header) {
    return switch (verify(header)) {
      case PassCheck.Valid valid -> valid.pass();
      case PassCheck.Refused refused -> throw new PassRefusedException(refused);
    };
  }

  /** The pass of a header whose signature, type and key verified, with its issue time. */
  private Verified verifySignature(String header) throws Refusal {
    JWT jwt;
    try {
      jwt = JWTParser.parse(header);
    } catch (ParseException | RuntimeException e) {
      throw refusal(PassRefusal.MALFORMED, "not a compact JWS: " + safe(e.getMessage()));
    }
    if (jwt instanceof PlainJWT) {
      throw refusal(PassRefusal.ALGORITHM, "an unsigned JWT (alg none)");
    }
    if (jwt instanceof EncryptedJWT || !(jwt instanceof SignedJWT signed)) {
      throw refusal(PassRefusal.ALGORITHM, "an encrypted JWT, not a signed pass");
    }
    var jwsHeader = signed.getHeader();
    if (!JWSAlgorithm.ES256.equals(jwsHeader.getAlgorithm())) {
      throw refusal(
          PassRefusal.ALGORITHM,
          "signed with " + safe(String.valueOf(jwsHeader.getAlgorithm())) + ", not ES256");
    }
    if (!TYPE.equals(jwsHeader.getType())) {
      throw refusal(
          PassRefusal.TYPE,
          "typ " + safe(String.valueOf(jwsHeader.getType())) + ", not " + PassClaims.TYPE);
    }
    String kid = jwsHeader.getKeyID();
    if (kid == null) {
      throw refusal(PassRefusal.UNKNOWN_KEY, "the header names no key (kid)");
    }
    KeyVerifier verifier;
    try {
      Optional<KeyVerifier> found = verifierFor(kid);
      if (found.isEmpty()) {
        throw refusal(PassRefusal.UNKNOWN_KEY, "no ES256 key " + safe(kid) + " in the JWKS");
      }
      verifier = found.get();
    } catch (RateLimitReachedException e) {
      // the set was fetched again moments ago and lacked the key: it is unknown, not unavailable
      throw refusal(PassRefusal.UNKNOWN_KEY, "no ES256 key " + safe(kid) + " in the JWKS");
    } catch (KeySourceException e) {
      throw refusal(PassRefusal.KEYS_UNAVAILABLE, "cannot get the JWKS: " + safe(e.getMessage()));
    }
    try {
      if (!signed.verify(verifier.verifier)) {
        throw refusal(PassRefusal.SIGNATURE, "the signature does not match key " + safe(kid));
      }
    } catch (JOSEException | RuntimeException e) {
      throw refusal(
          PassRefusal.SIGNATURE, "the signature does not verify: " + safe(e.getMessage()));
    }
    JWTClaimsSet claims;
    Pass pass;
    try {
      claims = signed.getJWTClaimsSet();
      String room = claims.getStringClaim(PassClaims.ROOM);
      String event = claims.getStringClaim(PassClaims.EVENT);
      String passId = claims.getSubject();
      Date admittedAt = claims.getDateClaim(PassClaims.ADMITTED_AT);
      Date expires = claims.getExpirationTime();
      if (room == null
          || passId == null
          || admittedAt == null
          || expires == null
          || claims.getIssueTime() == null) {
        throw refusal(PassRefusal.CLAIMS, "room, sub, admitted_at, iat and exp are all required");
      }
      pass =
          new Pass(
              room,
              Optional.ofNullable(event),
              passId,
              admittedAt.toInstant(),
              expires.toInstant());
    } catch (ParseException | RuntimeException e) {
      throw refusal(PassRefusal.CLAIMS, "malformed claims: " + safe(e.getMessage()));
    }
    return new Verified(header, pass, claims.getIssueTime().getTime());
  }

  /** The checks that depend on the time and this verifier's rooms, done on every use. */
  private PassCheck checkClaims(Pass pass, long issuedAtMillis) {
    long now = clock.millis();
    if (now >= pass.expiresAt().toEpochMilli() + skewMillis) {
      return refused(
          PassRefusal.EXPIRED,
          "expired at " + pass.expiresAt() + ", now " + Instant.ofEpochMilli(now));
    }
    if (issuedAtMillis > now + skewMillis) {
      return refused(
          PassRefusal.NOT_YET_VALID,
          "signed at "
              + Instant.ofEpochMilli(issuedAtMillis)
              + ", now "
              + Instant.ofEpochMilli(now)
              + "; are the gateway's and the origin's clocks apart?");
    }
    if (!rooms.contains(pass.room())) {
      return refused(
          PassRefusal.OTHER_ROOM,
          "a pass of room " + safe(pass.room()) + "; this origin accepts " + rooms);
    }
    return new PassCheck.Valid(pass);
  }

  private Optional<KeyVerifier> verifierFor(String kid) throws KeySourceException {
    List<JWK> found = keys.get(new JWKSelector(new JWKMatcher.Builder().keyID(kid).build()), null);
    for (JWK jwk : found) {
      if (!suitable(jwk)) {
        continue;
      }
      ECKey key = jwk.toECKey().toPublicJWK();
      KeyVerifier known = verifiers.get(kid);
      if (known != null && known.key.equals(key)) {
        return Optional.of(known);
      }
      try {
        var created = new KeyVerifier(key, new ECDSAVerifier(key));
        verifiers.put(kid, created);
        return Optional.of(created);
      } catch (JOSEException e) {
        continue; // not a usable P-256 public key: as if absent
      }
    }
    return Optional.empty();
  }

  private static boolean suitable(JWK jwk) {
    return KeyType.EC.equals(jwk.getKeyType())
        && Curve.P_256.equals(jwk.toECKey().getCurve())
        && (jwk.getKeyUse() == null || KeyUse.SIGNATURE.equals(jwk.getKeyUse()))
        && (jwk.getAlgorithm() == null || JWSAlgorithm.ES256.equals(jwk.getAlgorithm()));
  }

  private static Refusal refusal(PassRefusal reason, String detail) {
    return new Refusal(refused(reason, detail));
  }

  private static PassCheck.Refused refused(PassRefusal reason, String detail) {
    return new PassCheck.Refused(reason, reason.description() + ": " + detail);
  }

  /** A value from the client, fit for a log line: printable ASCII, at most 80 characters. */
  static String safe(String text) {
    if (text == null) {
      return "null";
    }
    var out = new StringBuilder();
    for (int i = 0; i < text.length() && out.length() < 80; i++) {
      char c = text.charAt(i);
      out.append(c >= 0x20 && c < 0x7f ? c : '?');
    }
    return text.length() > 80 ? out + "..." : out.toString();
  }

  private record KeyVerifier(ECKey key, JWSVerifier verifier) {}

  private record Verified(String token, Pass pass, long issuedAt) {}

  /** Leaves the signature checks with their refusal (no stack trace: refusals are routine). */
  private static final class Refusal extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient PassCheck.Refused refused;

    Refusal(PassCheck.Refused refused) {
      super(refused.detail(), null, false, false);
      this.refused = refused;
    }
  }

  /** Settings of a {@link PassVerifier}: a key source and the rooms are required. */
  public static final class Builder {
    private JWKSource<SecurityContext> keys;
    private Function<Clock, JWKSource<SecurityContext>> keysOf;
    private Set<String> rooms = Set.of();
    private Clock clock = Clock.systemUTC();
    private Duration skew = Duration.ofSeconds(30);
    private int cacheSlots = 1024;

    private Builder() {}

    /**
     * The gateway's JWKS URL ({@code /.well-known/jwks.json} of its admin listener): fetched when
     * first needed (5-second connect and read timeouts, at most 64 KiB), cached for 5 minutes, and
     * fetched again (at most every 30 seconds) when a pass names a key the cached set lacks; while
     * the URL cannot be reached the keys fetched last are used (up to 50 minutes), so a restart of
     * the gateway's admin listener refuses no pass.
     */
    public Builder jwks(URL url) {
      // nimbus' default timeouts (0.5 s) fail on a busy host; a JWKS is small
      var retriever = new DefaultResourceRetriever(5_000, 5_000, 64 * 1024);
      this.keys =
          JWKSourceBuilder.create(Objects.requireNonNull(url, "url"), retriever)
              .outageTolerant(true)
              .build();
      this.keysOf = null;
      return this;
    }

    /**
     * A JWKS file (a copy of the gateway's {@code /.well-known/jwks.json}), read now and read again
     * when it changes: when a pass names a key the keys read last lack (at most every 30 seconds)
     * and at least every 5 minutes, so copying a rotated JWKS over the file needs no restart of the
     * origin. While the new file is unreadable or holds no ES256 key, the keys read last stay in
     * use.
     *
     * @throws UncheckedIOException when it cannot be read
     * @throws IllegalArgumentException when it is not a JWKS with an ES256 key
     */
    public Builder jwks(Path file) {
      String text;
      FileTime modified;
      try {
        modified = Files.getLastModifiedTime(file);
        text = Files.readString(file, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the JWKS file " + file + ": " + e, e);
      }
      JWKSet set = parse(file.toString(), text);
      this.keys = null;
      this.keysOf = c -> new JwksFile(file, set, modified, c, PassVerifier::suitable);
      return this;
    }

    /**
     * A JWKS document given as text.
     *
     * @throws IllegalArgumentException when it is not a JWKS with an ES256 key
     */
    public Builder jwksJson(String json) {
      return jwks("the JWKS", json);
    }

    /** The public keys of {@code keys} (a verifier in the same process as the issuer). */
    public Builder keys(PassKeys keys) {
      return jwksJson(keys.jwks());
    }

    private Builder jwks(String where, String json) {
      this.keys = new ImmutableJWKSet<>(parse(where, json));
      this.keysOf = null;
      return this;
    }

    private static JWKSet parse(String where, String json) {
      JWKSet set;
      try {
        set = JWKSet.parse(json);
      } catch (ParseException e) {
        throw new IllegalArgumentException(
            where + " is not a JSON Web Key Set: " + e.getMessage(), e);
      }
      if (set.getKeys().stream().noneMatch(PassVerifier::suitable)) {
        throw new IllegalArgumentException(
            where + " holds no EC P-256 signing key (ES256); is it the gateway's pass JWKS?");
      }
      return set.toPublicJWKSet();
    }

    /** The rooms whose passes this origin accepts (at least one). */
    public Builder rooms(String room, String... more) {
      var all = new java.util.LinkedHashSet<String>();
      all.add(Objects.requireNonNull(room, "room"));
      for (String r : more) {
        all.add(Objects.requireNonNull(r, "room"));
      }
      this.rooms = all;
      return this;
    }

    /** How far the gateway's and the origin's clocks may differ; default 30 s, at most 5 min. */
    public Builder clockSkew(Duration skew) {
      if (skew.isNegative() || skew.compareTo(Duration.ofMinutes(5)) > 0) {
        throw new IllegalArgumentException("clockSkew " + skew + ": must be from 0 to 5 minutes");
      }
      this.skew = skew;
      return this;
    }

    /** The clock that judges expiry (tests pass a fixed one). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Slots that remember verified passes, a power of two from 1 to 2^20; default 1,024. */
    public Builder cacheSlots(int slots) {
      this.cacheSlots = PassClaims.cacheSlots("cacheSlots", slots);
      return this;
    }

    /**
     * The verifier.
     *
     * @throws IllegalStateException when no key source or no room was given
     */
    public PassVerifier build() {
      if (keys == null && keysOf == null) {
        throw new IllegalStateException(
            "no keys to verify passes with: call jwks(URL), jwks(Path), jwksJson(String) or keys()");
      }
      if (rooms.isEmpty()) {
        throw new IllegalStateException(
            "no rooms: name the rooms whose passes this origin accepts with rooms(...)");
      }
      return new PassVerifier(this);
    }
  }
}
