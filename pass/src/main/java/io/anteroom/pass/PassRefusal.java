package io.anteroom.pass;

/** Why a verifier refused a pass: one constant per rule, each with a sentence for logs. */
public enum PassRefusal {
  /** The request has no pass header (or an empty one). */
  MISSING("no " + PassVerifier.HEADER + " header"),
  /** Not a compact JWS with a JSON header and claims, or too long to be a pass. */
  MALFORMED("not a well-formed pass"),
  /** Signed with another algorithm than ES256, or not signed ({@code alg: none}), or encrypted. */
  ALGORITHM("not signed with ES256"),
  /** A JWT of another kind: its {@code typ} is not {@code anteroom-pass+jwt}. */
  TYPE("not a pass (typ is not " + PassClaims.TYPE + ")"),
  /** Its {@code kid} names no key of the JWKS (unknown, or retired). */
  UNKNOWN_KEY("signed by a key the JWKS does not hold"),
  /** The signature does not match the header and claims (tampered, or another key). */
  SIGNATURE("the signature does not verify"),
  /** A required claim is missing or of the wrong type. */
  CLAIMS("a required claim is missing or malformed"),
  /** Expired, beyond the allowed clock skew. */
  EXPIRED("expired"),
  /** Signed in the future, beyond the allowed clock skew (clocks apart). */
  NOT_YET_VALID("signed in the future"),
  /** A pass of a room this verifier does not accept. */
  OTHER_ROOM("for another room"),
  /** The JWKS could not be fetched or read, so no pass can be checked now. */
  KEYS_UNAVAILABLE("the keys (JWKS) are unavailable");

  private final String description;

  PassRefusal(String description) {
    this.description = description;
  }

  /** A short sentence for logs and error responses. */
  public String description() {
    return description;
  }
}
