package io.anteroom.door.proof;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.door.proof.Invitations.Refusal;
import io.anteroom.door.proof.Invitations.Refused;
import io.anteroom.door.proof.Invitations.Valid;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The invitation token: what holds, what is refused and why, and the single use per gateway. */
class InvitationsTest {

  private static final byte[] KEY = new byte[32];
  private static final Instant NOW = Instant.parse("2026-12-01T18:00:00Z");
  private static final long NOW_MS = NOW.toEpochMilli();
  private final Invitations shop = new Invitations("shop", KEY);

  private static String token(String room, String event, String account, String id, Instant exp) {
    return Invitations.sign(KEY, room, event, account, id, exp);
  }

  @Test
  void aGoodTokenHoldsAndNamesItsAccount() {
    var v =
        shop.verify(token("shop", "drop", "user-42", "inv-1", NOW.plusSeconds(60)), "drop", NOW_MS);
    assertThat(v).isInstanceOf(Valid.class);
    Valid valid = (Valid) v;
    assertThat(valid.id()).isEqualTo("inv-1");
    assertThat(valid.account()).isEqualTo("user-42");
    assertThat(valid.expiresAtMillis()).isEqualTo(NOW.plusSeconds(60).toEpochMilli());
    assertThat(java.util.Base64.getUrlDecoder().decode(valid.claim())).hasSize(12);
  }

  @Test
  void aTokenWithoutAnEventHoldsDuringAnyEvent() {
    assertThat(shop.verify(token("shop", null, null, "i", NOW.plusSeconds(60)), "drop", NOW_MS))
        .isInstanceOf(Valid.class);
  }

  @Test
  void theExpiryIsExclusiveAndNotBeforeIsHonoured() throws Exception {
    assertThat(shop.verify(token("shop", null, null, "i", NOW), null, NOW_MS))
        .isEqualTo(new Refused(Refusal.EXPIRED));
    var claims =
        new com.nimbusds.jwt.JWTClaimsSet.Builder()
            .audience("shop")
            .jwtID("i")
            .expirationTime(java.util.Date.from(NOW.plusSeconds(600)))
            .notBeforeTime(java.util.Date.from(NOW.plusSeconds(60)))
            .build();
    var jwt =
        new com.nimbusds.jwt.SignedJWT(
            new com.nimbusds.jose.JWSHeader(com.nimbusds.jose.JWSAlgorithm.HS256), claims);
    jwt.sign(new com.nimbusds.jose.crypto.MACSigner(KEY));
    assertThat(shop.verify(jwt.serialize(), null, NOW_MS)).isEqualTo(new Refused(Refusal.NOT_YET));
    assertThat(shop.verify(jwt.serialize(), null, NOW_MS + 60_000)).isInstanceOf(Valid.class);
  }

  @Test
  void theSingleUseKeyDependsOnRoomAndIdOnly() {
    assertThat(Invitations.claimOf("shop", "a")).isEqualTo(Invitations.claimOf("shop", "a"));
    assertThat(Invitations.claimOf("shop", "a")).isNotEqualTo(Invitations.claimOf("shop", "b"));
    assertThat(Invitations.claimOf("shop", "a")).isNotEqualTo(Invitations.claimOf("shoe", "a"));
  }

  @Test
  void anInvitationIsUsedOnceHereUntilItExpires() {
    Valid v =
        (Valid) shop.verify(token("shop", null, null, "i", NOW.plusSeconds(60)), null, NOW_MS);
    assertThat(shop.useHere(v, NOW_MS)).isNull();
    assertThat(shop.useHere(v, NOW_MS + 1)).isEqualTo(Refusal.REPLAYED);
    assertThat(shop.withKey("shop", new byte[32]).useHere(v, NOW_MS + 2))
        .as("a settings change keeps the memory")
        .isEqualTo(Refusal.REPLAYED);
  }

  @Test
  void anOverlongTokenIsMalformedWithoutParsing() {
    assertThat(shop.verify("a".repeat(Invitations.MAX_TOKEN_CHARS + 1), null, NOW_MS))
        .isEqualTo(new Refused(Refusal.MALFORMED));
    assertThat(shop.verify(null, null, NOW_MS)).isEqualTo(new Refused(Refusal.MISSING));
  }
}
