package io.anteroom.door.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import io.anteroom.door.config.GatewayConfig.Account;
import io.anteroom.door.config.GatewayConfig.Oidc;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The room key {@code account}: one place per account. */
class AccountConfigTest {

  @TempDir Path dir;

  private Path key(int bytes) throws Exception {
    Path f = dir.resolve("identity-" + bytes + ".key");
    Files.writeString(f, Base64.getEncoder().encodeToString(new byte[bytes]) + "\n");
    return f;
  }

  private Path jwks() throws Exception {
    Path f = dir.resolve("jwks.json");
    var key = new RSAKeyGenerator(2048).keyID("k1").generate().toPublicJWK();
    Files.writeString(f, new JWKSet(key).toString());
    return f;
  }

  private static GatewayConfig.RoomSettings room(String yaml) {
    return ConfigLoader.parse(yaml, "test").rooms().getFirst();
  }

  @Test
  void offByDefault() {
    Account a = room("rooms: [ { id: shop } ]").protection().account();
    assertThat(a.enabled()).isFalse();
    assertThat(a.required()).isFalse();
    assertThat(a.header()).isEqualTo("Anteroom-Account");
  }

  @Test
  void anAppSignedIdentityReadsAndRoundTripsThroughTheAdminJson() throws Exception {
    Path key = key(32);
    var room =
        room(
            "rooms: [ { id: shop, account: { required: true, cookie: app_session_id,"
                + " hs256SecretFile: "
                + key
                + " } } ]");
    assertThat(room.protection().account())
        .isEqualTo(
            new Account(
                true,
                "Anteroom-Account",
                Optional.of("app_session_id"),
                Optional.of(key),
                Optional.empty(),
                60));
    assertThat(ConfigLoader.parseRoom(ConfigLoader.toJson(room).toString())).isEqualTo(room);
  }

  @Test
  void anIdentityProvidersIdTokensReadWithTheirJwksFileOrUrl() throws Exception {
    Path jwks = jwks();
    var file =
        room(
            "rooms: [ { id: shop, account: { required: true, header: Authorization,"
                + " clockSkewSeconds: 30, oidc: { issuer: 'https://id.example.com', audience:"
                + " shop-app, jwksFile: "
                + jwks
                + " } } } ]");
    assertThat(file.protection().account().oidc())
        .contains(
            new Oidc("https://id.example.com", "shop-app", Optional.of(jwks), Optional.empty()));
    assertThat(file.protection().account().header()).isEqualTo("Authorization");
    assertThat(file.protection().account().clockSkewSeconds()).isEqualTo(30);
    assertThat(ConfigLoader.parseRoom(ConfigLoader.toJson(file).toString())).isEqualTo(file);

    var url =
        room(
            "rooms: [ { id: shop, account: { oidc: { issuer: 'https://id.example.com', audience:"
                + " shop-app, jwksUrl: 'https://id.example.com/.well-known/jwks.json' } } } ]");
    assertThat(url.protection().account().oidc().orElseThrow().jwksUrl())
        .contains(URI.create("https://id.example.com/.well-known/jwks.json"));
    assertThat(url.protection().account().enabled()).isTrue();
    assertThat(url.protection().account().required()).isFalse();
  }

  @Test
  void eachProblemIsOneLineNamingItsKey() throws Exception {
    Path shortKey = key(16);
    Path notJwks = dir.resolve("not-jwks.json");
    Files.writeString(notJwks, "{\"keys\": 3}");
    Path good = key(32);
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    """
        rooms:
          - id: a
            account: { required: true }
          - id: b
            account: { hs256SecretFile: %s }
          - id: c
            account: { hs256SecretFile: %s, oidc: { issuer: i, audience: a, jwksFile: %s } }
          - id: d
            account: { oidc: { audience: a } }
          - id: e
            account: { oidc: { issuer: i, audience: a, jwksFile: %s, jwksUrl: 'https://x/k' } }
          - id: f
            account: { header: "bad header", cookie: "a;b", clockSkewSeconds: 301, requierd: true }
        """
                        .formatted(shortKey, good, notJwks, notJwks),
                    "anteroom.yaml"))
        .hasMessageContaining(
            "rooms[0].account.required: required accounts need hs256SecretFile (the application"
                + " signs the identity) or oidc")
        .hasMessageContaining(
            "rooms[1].account.hs256SecretFile: \""
                + shortKey
                + "\" holds a key of 16 bytes; an identity key needs at least 32")
        .hasMessageContaining("rooms[2].account.oidc: give either hs256SecretFile")
        .hasMessageContaining("rooms[2].account.oidc.jwksFile: \"" + notJwks + "\" is not a JWKS")
        .hasMessageContaining("rooms[3].account.oidc.issuer: missing")
        .hasMessageContaining("rooms[3].account.oidc.jwksFile: missing")
        .hasMessageContaining("rooms[4].account.oidc.jwksUrl: give either jwksFile or jwksUrl")
        .hasMessageContaining("rooms[5].account.header: \"bad header\" is not a header name")
        .hasMessageContaining("rooms[5].account.cookie: \"a;b\" is not a cookie name")
        .hasMessageContaining("rooms[5].account.clockSkewSeconds")
        .hasMessageContaining("rooms[5].account.requierd: unknown key");
  }
}
