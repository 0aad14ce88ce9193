package io.anteroom.pass;

/** The names in a pass, in one place for the issuer and the verifier (docs/pass.md lists them). */
final class PassClaims {
  /** JOSE header {@code typ}: a pass is no other kind of JWT (RFC 8725, explicit typing). */
  static final String TYPE = "anteroom-pass+jwt";

  static final String ROOM = "room";
  static final String EVENT = "event";
  static final String ADMITTED_AT = "admitted_at";

  /** The account the application asserted for the user (rooms with {@code account} only). */
  static final String ACCOUNT = "account";

  // the pass id is the standard "sub"; issue and expiry times the standard "iat" and "exp"

  private PassClaims() {}

  /** {@code slots} of a cache (issuer's or verifier's): a power of two from 1 to 2^20. */
  static int cacheSlots(String what, int slots) {
    if (slots < 1 || slots > 1 << 20 || Integer.bitCount(slots) != 1) {
      throw new IllegalArgumentException(
          what + " " + slots + ": must be a power of two from 1 to 1048576");
    }
    return slots;
  }
}
