package io.anteroom.pass;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.util.Base64URL;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class PassVerifierTest {
  static final Instant NOW = PassIssuerTest.NOW;
  static final long ADMITTED = PassIssuerTest.ADMITTED;
  static final long SESSION_ENDS = PassIssuerTest.SESSION_ENDS;

  final PassKeys keys = PassKeys.generate();
  final MutableClock clock = new MutableClock(NOW);
  final PassIssuer issuer = PassIssuer.builder(keys).clock(clock).build();
  final PassVerifier verifier =
      PassVerifier.builder().keys(keys).rooms("shop").clock(clock).build();
  final String good = issuer.passFor("shop", "launch", 42L, ADMITTED, SESSION_ENDS);

  PassRefusal reason(String header) {
    return reason(verifier, header);
  }

  static PassRefusal reason(PassVerifier verifier, String header) {
    PassCheck check = verifier.verify(header);
    assertThat(check).isInstanceOf(PassCheck.Refused.class);
    return ((PassCheck.Refused) check).reason();
  }

  @Test
  void aGoodPassIsValid() {
    assertThat(verifier.verify(good)).isInstanceOf(PassCheck.Valid.class);
  }

  @Test
  void aRequestWithoutAPassIsRefusedAsMissing() {
    assertThat(reason(null)).isEqualTo(PassRefusal.MISSING);
    assertThat(reason("  ")).isEqualTo(PassRefusal.MISSING);
  }

  @Test
  void garbageAndOverlongValuesAreRefusedAsMalformed() {
    assertThat(reason("not a pass")).isEqualTo(PassRefusal.MALFORMED);
    assertThat(reason("a.b.c")).isEqualTo(PassRefusal.MALFORMED);
    assertThat(reason(good + "x".repeat(PassVerifier.MAX_LENGTH))).isEqualTo(PassRefusal.MALFORMED);
  }

  @Test
  void aTamperedPayloadIsRefused() throws Exception {
    var parts = SignedJWT.parse(good).getParsedParts();
    String payload = parts[1].decodeToString().replace("\"shop\"", "\"shoq\"");
    String tampered = parts[0] + "." + Base64URL.encode(payload) + "." + parts[2];

    assertThat(reason(tampered)).isEqualTo(PassRefusal.SIGNATURE);
  }

  @Test
  void aPassSignedByAnotherKeyWithTheSameKidIsRefused() throws Exception {
    ECKey stranger = PassKeys.generate().signingKey();
    ECKey impostor =
        new ECKey.Builder(stranger).keyID(keys.currentKeyId()).build(); // our kid, their key

    String forged = Forgery.sign(impostor, h -> h, Forgery.claims(NOW).build());

    assertThat(reason(forged)).isEqualTo(PassRefusal.SIGNATURE);
  }

  @Test
  void aPassNamingAnUnknownKeyIsRefused() {
    ECKey stranger = PassKeys.generate().signingKey();

    String forged = Forgery.sign(stranger, h -> h, Forgery.claims(NOW).build());

    assertThat(reason(forged)).isEqualTo(PassRefusal.UNKNOWN_KEY);
    assertThat(
            reason(
                Forgery.sign(keys.signingKey(), h -> h.keyID(null), Forgery.claims(NOW).build())))
        .isEqualTo(PassRefusal.UNKNOWN_KEY);
  }

  @Test
  void anExpiredPassIsRefusedOnceBeyondTheClockSkew() {
    clock.advance(Duration.ofMinutes(5).plusSeconds(29)); // 29 s after exp: within the 30 s skew
    assertThat(verifier.verify(good)).isInstanceOf(PassCheck.Valid.class);

    clock.advance(Duration.ofSeconds(1));

    assertThat(reason(good)).isEqualTo(PassRefusal.EXPIRED);
  }

  @Test
  void aPassSignedInTheFutureBeyondTheClockSkewIsRefused() {
    var ahead = PassIssuer.builder(keys).clock(new MutableClock(NOW.plusSeconds(31))).build();
    var slightlyAhead =
        PassIssuer.builder(keys).clock(new MutableClock(NOW.plusSeconds(30))).build();

    assertThat(reason(ahead.passFor("shop", null, 1L, ADMITTED, SESSION_ENDS)))
        .isEqualTo(PassRefusal.NOT_YET_VALID);
    assertThat(verifier.verify(slightlyAhead.passFor("shop", null, 1L, ADMITTED, SESSION_ENDS)))
        .isInstanceOf(PassCheck.Valid.class);
  }

  @Test
  void aPassOfAnotherRoomIsRefused() {
    String other = issuer.passFor("tickets", null, 42L, ADMITTED, SESSION_ENDS);

    assertThat(reason(other)).isEqualTo(PassRefusal.OTHER_ROOM);
  }

  @Test
  void anUnsignedPassWithAlgNoneIsRefused() {
    String unsigned = new PlainJWT(Forgery.claims(NOW).build()).serialize();
    // the same claims under a header that says none, with the good pass's signature appended
    String noneWithSignature = unsigned + good.substring(good.lastIndexOf('.') + 1);

    assertThat(reason(unsigned)).isEqualTo(PassRefusal.ALGORITHM);
    assertThat(reason(noneWithSignature)).isIn(PassRefusal.ALGORITHM, PassRefusal.MALFORMED);
  }

  @Test
  void anHmacPassKeyedWithThePublicKeyIsRefused() throws Exception {
    // algorithm confusion: HS256 with the JWKS's public key (as text and as bytes) for the secret
    byte[] jwksText = keys.jwks().getBytes(StandardCharsets.UTF_8);
    byte[] publicKey = keys.signingKey().toPublicJWK().toECPublicKey().getEncoded();
    for (byte[] secret : new byte[][] {jwksText, pad(publicKey)}) {
      var header =
          new JWSHeader.Builder(JWSAlgorithm.HS256)
              .keyID(keys.currentKeyId())
              .type(new JOSEObjectType("anteroom-pass+jwt"))
              .build();
      var jwt = new SignedJWT(header, Forgery.claims(NOW).build());
      jwt.sign(new MACSigner(secret));

      assertThat(reason(jwt.serialize())).isEqualTo(PassRefusal.ALGORITHM);
    }
  }

  @Test
  void aJwtOfAnotherTypeSignedWithThePassKeyIsRefused() {
    String idToken =
        Forgery.sign(
            keys.signingKey(), h -> h.type(JOSEObjectType.JWT), Forgery.claims(NOW).build());

    assertThat(reason(idToken)).isEqualTo(PassRefusal.TYPE);
  }

  @Test
  void aSignedPassWithoutItsRequiredClaimsIsRefused() {
    var noRoom = Forgery.claims(NOW).claim("room", null).build();
    var roomNotAString = Forgery.claims(NOW).claim("room", 7).build();
    var noExpiry = Forgery.claims(NOW).expirationTime(null).build();
    var admittedNotADate = Forgery.claims(NOW).claim("admitted_at", "yesterday").build();

    for (var claims : java.util.List.of(noRoom, roomNotAString, noExpiry, admittedNotADate)) {
      assertThat(reason(Forgery.sign(keys.signingKey(), h -> h, claims)))
          .as("%s", claims)
          .isEqualTo(PassRefusal.CLAIMS);
    }
  }

  @Test
  void aRememberedPassIsStillJudgedByTheClockAndTheRoom() {
    assertThat(verifier.verify(good)).isInstanceOf(PassCheck.Valid.class); // now remembered
    var otherRoomVerifier = PassVerifier.builder().keys(keys).rooms("tickets").clock(clock).build();
    assertThat(reason(otherRoomVerifier, good)).isEqualTo(PassRefusal.OTHER_ROOM); // remembered

    assertThat(reason(otherRoomVerifier, good)).isEqualTo(PassRefusal.OTHER_ROOM);
    clock.advance(Duration.ofMinutes(6));
    assertThat(reason(good)).isEqualTo(PassRefusal.EXPIRED);
  }

  @Test
  void strictModeReturnsTheValidPassAndThrowsWithTheReasonOtherwise() {
    assertThat(verifier.requireValid(good).passId()).isEqualTo(issuer.passId("shop", 42L));

    assertThatThrownBy(() -> verifier.requireValid(null))
        .isInstanceOf(PassRefusedException.class)
        .hasMessage(
            "refused Anteroom-Pass: no Anteroom-Pass header: the request carries no Anteroom-Pass header")
        .extracting(e -> ((PassRefusedException) e).reason())
        .isEqualTo(PassRefusal.MISSING);
    clock.advance(Duration.ofHours(1));
    assertThatThrownBy(() -> verifier.requireValid(good))
        .isInstanceOf(PassRefusedException.class)
        .hasMessageContaining("expired at 2026-11-29T08:05:00Z, now 2026-11-29T09:00:00Z");
  }

  @Test
  void refusalDetailsNeverEchoControlCharactersFromTheClient() {
    String evilKid =
        Forgery.sign(
            keys.signingKey(), h -> h.keyID("x\r\nInjected: yes"), Forgery.claims(NOW).build());

    var refused = (PassCheck.Refused) verifier.verify(evilKid);

    assertThat(refused.detail()).doesNotContain("\r", "\n").contains("x??Injected: yes");
  }

  @Test
  void aVerifierNeedsKeysAndRoomsAndSaysSo() {
    assertThatThrownBy(() -> PassVerifier.builder().rooms("shop").build())
        .hasMessageContaining("no keys to verify passes with");
    assertThatThrownBy(() -> PassVerifier.builder().keys(keys).build())
        .hasMessageContaining("no rooms");
    assertThatThrownBy(() -> PassVerifier.builder().jwksJson("{\"keys\":[]}"))
        .hasMessageContaining("holds no EC P-256 signing key");
    assertThatThrownBy(() -> PassVerifier.builder().jwksJson("<html>"))
        .hasMessageContaining("is not a JSON Web Key Set");
  }

  private static byte[] pad(byte[] key) {
    return key.length >= 32 ? key : java.util.Arrays.copyOf(key, 32);
  }
}
