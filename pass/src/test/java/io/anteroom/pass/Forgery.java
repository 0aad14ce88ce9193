package io.anteroom.pass;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.time.Instant;
import java.util.Date;
import java.util.function.UnaryOperator;

/** Passes made by hand with nimbus, as an attacker (or a broken issuer) would make them. */
final class Forgery {
  private Forgery() {}

  /** The claims a good pass of room "shop" has, at {@code now}. */
  static JWTClaimsSet.Builder claims(Instant now) {
    long s = now.getEpochSecond();
    return new JWTClaimsSet.Builder()
        .claim("room", "shop")
        .subject("pass-id")
        .claim("admitted_at", s - 60)
        .issueTime(new Date(s * 1000))
        .expirationTime(new Date((s + 300) * 1000));
  }

  static JWSHeader.Builder header(ECKey key) {
    return new JWSHeader.Builder(JWSAlgorithm.ES256)
        .keyID(key.getKeyID())
        .type(new JOSEObjectType("anteroom-pass+jwt"));
  }

  static String sign(ECKey key, UnaryOperator<JWSHeader.Builder> header, JWTClaimsSet claims) {
    try {
      var jwt = new SignedJWT(header.apply(header(key)).build(), claims);
      jwt.sign(new ECDSASigner(key));
      return jwt.serialize();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
