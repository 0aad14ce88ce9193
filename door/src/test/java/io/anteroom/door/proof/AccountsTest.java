package io.anteroom.door.proof;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.PlainHeader;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import io.anteroom.door.proof.Accounts.Known;
import io.anteroom.door.proof.Accounts.Refusal;
import io.anteroom.door.proof.Accounts.Refused;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The application's assertion of who the user is: each rule, with the time given. */
class AccountsTest {
  static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");
  static final long SKEW = 60_000;
  static final String ISSUER = "https://id.example.com";
  final byte[] key = new byte[32];
  final Accounts app = Accounts.hs256(key, SKEW);

  AccountsTest() {
    new java.security.SecureRandom().nextBytes(key);
  }

  static Object verdict(Accounts a, String token) {
    return a.verify(token, NOW.toEpochMilli());
  }

  static Refusal refused(Accounts a, String token) {
    Object v = verdict(a, token);
    assertThat(v).isInstanceOf(Refused.class);
    return ((Refused) v).reason();
  }

  static String signed(JWSSigner signer, JWSHeader header, JWTClaimsSet claims) throws Exception {
    var jwt = new SignedJWT(header, claims);
    jwt.sign(signer);
    return jwt.serialize();
  }

  static JWTClaimsSet.Builder claims(String sub, Instant exp) {
    return new JWTClaimsSet.Builder()
        .subject(sub)
        .issuer(ISSUER)
        .audience("shop-app")
        .issueTime(Date.from(NOW.minusSeconds(5)))
        .expirationTime(Date.from(exp));
  }

  @Test
  void anAppSignedAssertionNamesItsAccountUntilItExpiresGivenTheSkew() {
    String token = Accounts.sign(key, "alice", NOW.plusSeconds(300), null);
    assertThat(verdict(app, token))
        .isEqualTo(new Known("alice", NOW.plusSeconds(300).toEpochMilli()));

    String justExpired = Accounts.sign(key, "alice", NOW.minusSeconds(30), null);
    assertThat(verdict(app, justExpired)).as("within the skew").isInstanceOf(Known.class);
    assertThat(refused(app, Accounts.sign(key, "alice", NOW.minusSeconds(61), null)))
        .isEqualTo(Refusal.EXPIRED);
    assertThat(refused(app, Accounts.sign(key, "alice", NOW.plusSeconds(600), NOW.plusSeconds(61))))
        .isEqualTo(Refusal.NOT_YET);
  }

  @Test
  void anAcceptedAssertionIsNotVerifiedAgainUntilItExpiresAndNoOtherTokenPassesForIt() {
    String token = Accounts.sign(key, "alice", NOW.plusSeconds(300), null);
    Accounts a = Accounts.hs256(key, SKEW);
    long t = NOW.toEpochMilli();

    for (int i = 0; i < 10; i++) {
      assertThat(a.verify(token, t + i * 1000L)).isInstanceOf(Known.class);
    }
    assertThat(a.fullChecks()).as("verified once, then taken from the cache").isEqualTo(1);

    // the signature's last character but one: all six of its bits are data (the last one's low
    // bits are padding, so 'A' and 'B' there can decode to the same signature)
    int i = token.length() - 2;
    char c = token.charAt(i);
    String tampered = token.substring(0, i) + (c == 'A' ? 'B' : 'A') + token.substring(i + 1);
    assertThat(a.verify(tampered, t))
        .as("one byte changed: another key, verified in full")
        .isInstanceOf(Refused.class);
    assertThat(a.verify(token + ".", t)).isInstanceOf(Refused.class);
    assertThat(a.verify(token, NOW.plusSeconds(300).toEpochMilli() + SKEW))
        .as("the cache honours exp (and the skew)")
        .isEqualTo(new Refused(Refusal.EXPIRED));
    assertThat(a.verify(Accounts.sign(key, "bob", NOW.plusSeconds(300), null), t))
        .isEqualTo(new Known("bob", NOW.plusSeconds(300).toEpochMilli()));
  }

  @Test
  void theCacheOfVerifiedAssertionsIsBoundedAndForgetsExpiredOnesFirst() {
    var cache = new VerifiedTokens(2, SKEW);
    long t = NOW.toEpochMilli();
    cache.put(VerifiedTokens.keyOf("a"), new Known("a", t + 1000), t);
    cache.put(VerifiedTokens.keyOf("b"), new Known("b", t + 600_000), t);

    cache.put(VerifiedTokens.keyOf("c"), new Known("c", t + 600_000), t + 1000 + SKEW);
    assertThat(cache.size()).as("the expired one made room").isEqualTo(2);
    assertThat(cache.get(VerifiedTokens.keyOf("b"), t + 1000 + SKEW)).isNotNull();

    cache.put(VerifiedTokens.keyOf("d"), new Known("d", t + 600_000), t + 1000 + SKEW);
    assertThat(cache.size()).as("full of live ones: emptied, then d").isEqualTo(1);
    assertThat(cache.get(VerifiedTokens.keyOf("d"), t)).isEqualTo(new Known("d", t + 600_000));
  }

  @Test
  void forgedMalformedAndUnsignedAssertionsAreRefusedEachWithItsReason() throws Exception {
    var good = claims("alice", NOW.plusSeconds(300)).build();
    String otherKey = Accounts.sign(new byte[32], "alice", NOW.plusSeconds(300), null);
    String unsigned = new PlainJWT(new PlainHeader(), good).serialize();
    String hs512 =
        signed(
            new MACSigner(java.util.Arrays.copyOf(key, 64)),
            new JWSHeader(JWSAlgorithm.HS512),
            good);
    String noSub =
        signed(
            new MACSigner(key),
            new JWSHeader(JWSAlgorithm.HS256),
            new JWTClaimsSet.Builder().expirationTime(Date.from(NOW.plusSeconds(60))).build());
    String noExp =
        signed(
            new MACSigner(key),
            new JWSHeader(JWSAlgorithm.HS256),
            new JWTClaimsSet.Builder().subject("alice").build());

    assertThat(refused(app, null)).isEqualTo(Refusal.MISSING);
    assertThat(refused(app, "not-a-token")).isEqualTo(Refusal.MALFORMED);
    assertThat(refused(app, "x".repeat(Accounts.MAX_TOKEN_CHARS + 1))).isEqualTo(Refusal.MALFORMED);
    assertThat(refused(app, otherKey)).isEqualTo(Refusal.FORGED);
    assertThat(refused(app, unsigned)).isEqualTo(Refusal.FORGED);
    assertThat(refused(app, hs512)).isEqualTo(Refusal.FORGED);
    assertThat(refused(app, noSub)).isEqualTo(Refusal.MALFORMED);
    assertThat(refused(app, noExp)).isEqualTo(Refusal.MALFORMED);
  }

  @Test
  void theTokenComesFromTheHeaderABearerAuthorizationOrElseTheCookie() {
    assertThat(Accounts.tokenOf("Anteroom-Account", " t1 ", "c")).isEqualTo("t1");
    assertThat(Accounts.tokenOf("Authorization", "Bearer t2", "c")).isEqualTo("t2");
    assertThat(Accounts.tokenOf("Authorization", "Basic dXNlcjpwdw==", "c")).isNull();
    assertThat(Accounts.tokenOf("Anteroom-Account", null, "c")).isEqualTo("c");
    assertThat(Accounts.tokenOf("Anteroom-Account", null, null)).isNull();
  }

  @Test
  void anIdTokenHoldsWhenTheProvidersKeySignedItForThisIssuerAndAudience() throws Exception {
    RSAKey rsa = new RSAKeyGenerator(2048).keyID("r1").generate();
    ECKey ec = new ECKeyGenerator(Curve.P_256).keyID("e1").generate();
    var provider =
        Accounts.oidc(
            ISSUER,
            "shop-app",
            new JWKSet(java.util.List.of(rsa.toPublicJWK(), ec.toPublicJWK())),
            null,
            SKEW);
    var rs256 = new JWSHeader.Builder(JWSAlgorithm.RS256).keyID("r1").build();
    var es256 = new JWSHeader.Builder(JWSAlgorithm.ES256).keyID("e1").build();
    var good = claims("alice", NOW.plusSeconds(300));

    assertThat(verdict(provider, signed(new RSASSASigner(rsa), rs256, good.build())))
        .isInstanceOf(Known.class);
    assertThat(verdict(provider, signed(new ECDSASigner(ec), es256, good.build())))
        .isInstanceOf(Known.class);
    assertThat(
            refused(
                provider,
                signed(new RSASSASigner(rsa), rs256, good.issuer("https://evil").build())))
        .isEqualTo(Refusal.OTHER_ISSUER);
    assertThat(
            refused(
                provider,
                signed(
                    new RSASSASigner(rsa),
                    rs256,
                    claims("alice", NOW.plusSeconds(300)).audience("other-app").build())))
        .isEqualTo(Refusal.OTHER_AUDIENCE);
    RSAKey stranger = new RSAKeyGenerator(2048).keyID("r1").generate();
    assertThat(
            refused(
                provider,
                signed(
                    new RSASSASigner(stranger), rs256, claims("a", NOW.plusSeconds(60)).build())))
        .as("the provider's key id, another key")
        .isEqualTo(Refusal.FORGED);
    assertThat(refused(provider, Accounts.sign(key, "alice", NOW.plusSeconds(300), null)))
        .as("HS256 is no ID token: a public key is no MAC key")
        .isEqualTo(Refusal.FORGED);
  }

  @Test
  void aTokenOfAKeyNotKnownYetFetchesTheProvidersKeysAgainInTheBackground() throws Exception {
    RSAKey old = new RSAKeyGenerator(2048).keyID("old").generate();
    RSAKey rotated = new RSAKeyGenerator(2048).keyID("new").generate();
    var fetches = new AtomicInteger();
    var provider =
        Accounts.oidc(
            ISSUER,
            "shop-app",
            new JWKSet(old.toPublicJWK()),
            () -> {
              fetches.incrementAndGet();
              return new JWKSet(java.util.List.of(old.toPublicJWK(), rotated.toPublicJWK()));
            },
            SKEW);
    String token =
        signed(
            new RSASSASigner(rotated),
            new JWSHeader.Builder(JWSAlgorithm.RS256).keyID("new").build(),
            claims("alice", NOW.plusSeconds(300)).build());

    assertThat(refused(provider, token)).isEqualTo(Refusal.UNKNOWN_KEY);
    provider.lastFetch().get(10, TimeUnit.SECONDS);
    assertThat(verdict(provider, token)).isInstanceOf(Known.class);
    assertThat(refused(provider, token.substring(0, token.length() - 4) + "AAAA"))
        .isEqualTo(Refusal.FORGED);
    assertThat(fetches.get()).as("at most one fetch a minute").isEqualTo(1);
  }

  @Test
  void thePlaceKeyIsPerRoomAndAccountAndNeverTheAccountItself() {
    String k = Accounts.placeKey("shop", "alice");
    assertThat(k).isEqualTo(Accounts.placeKey("shop", "alice"));
    assertThat(k).isNotEqualTo(Accounts.placeKey("shop", "bob"));
    assertThat(k).isNotEqualTo(Accounts.placeKey("tickets", "alice"));
    assertThat(java.util.Base64.getUrlDecoder().decode(k)).hasSize(Accounts.PLACE_KEY_BYTES);
    assertThat(k).doesNotContain("alice");
  }
}
