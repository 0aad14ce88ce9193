package io.anteroom.door.proof;

import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.JWTParser;
import com.nimbusds.jwt.SignedJWT;
import java.text.ParseException;

/**
 * The first checks of a compact JWS a client sent (an invitation, an account's identity): present,
 * not oversized, well formed, and signed (never {@code alg: none}, never encrypted). The signature
 * and claims are each caller's own rules.
 */
final class SignedTokens {
  private SignedTokens() {}

  /** Why a token fails the first checks. */
  enum Problem {
    MISSING,
    MALFORMED,
    NOT_SIGNED
  }

  /** The parsed token and its claims, or the problem (then both are null). */
  record Parsed(SignedJWT jwt, JWTClaimsSet claims, Problem problem) {}

  /** {@code token} (null: none was sent) read with at most {@code maxChars} characters. */
  static Parsed parse(String token, int maxChars) {
    if (token == null || token.isEmpty()) {
      return new Parsed(null, null, Problem.MISSING);
    }
    if (token.length() > maxChars) {
      return new Parsed(null, null, Problem.MALFORMED);
    }
    try {
      if (!(JWTParser.parse(token) instanceof SignedJWT signed)) {
        return new Parsed(null, null, Problem.NOT_SIGNED); // unsigned (alg none) or encrypted
      }
      return new Parsed(signed, signed.getJWTClaimsSet(), null);
    } catch (ParseException e) {
      return new Parsed(null, null, Problem.MALFORMED);
    }
  }
}
