package io.anteroom.pass;

/** The names in a pass, in one place for the issuer and the verifier (docs/pass.md lists them). */
final class PassClaims {
  /** JOSE header {@code typ}: a pass is no other kind of JWT (RFC 8725, explicit typing). */
  static final String TYPE = "anteroom-pass+jwt";

  static final String ROOM = "room";
  static final String EVENT = "event";
  static final String ADMITTED_AT = "admitted_at";

  // the pass id is the standard "sub"; issue and expiry times the standard "iat" and "exp"

  private PassClaims() {}
}
