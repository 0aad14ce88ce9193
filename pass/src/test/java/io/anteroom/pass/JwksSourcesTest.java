package io.anteroom.pass;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The verifier's keys from a URL (the gateway's admin listener), a file or a string. */
class JwksSourcesTest {
  final PassKeys keys = PassKeys.generate();
  final MutableClock clock = new MutableClock(PassIssuerTest.NOW);
  final String pass =
      PassIssuer.builder(keys)
          .clock(clock)
          .build()
          .passFor("shop", null, 42L, PassIssuerTest.ADMITTED, PassIssuerTest.SESSION_ENDS);
  final AtomicInteger fetches = new AtomicInteger();
  HttpServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  URL serve(String jwks) throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/.well-known/jwks.json",
        exchange -> {
          fetches.incrementAndGet();
          byte[] body = jwks.getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
    return URI.create(
            "http://127.0.0.1:" + server.getAddress().getPort() + "/.well-known/jwks.json")
        .toURL();
  }

  @Test
  void aVerifierFetchesTheJwksFromTheGatewayOnceAndVerifiesWithIt() throws Exception {
    URL url = serve(keys.jwks());
    var verifier = PassVerifier.builder().jwks(url).rooms("shop").clock(clock).build();

    assertThat(verifier.requireValid(pass).room()).isEqualTo("shop");
    var second =
        PassIssuer.builder(keys)
            .clock(clock)
            .build()
            .passFor("shop", null, 43L, PassIssuerTest.ADMITTED, PassIssuerTest.SESSION_ENDS);
    assertThat(verifier.requireValid(second).room()).isEqualTo("shop");
    assertThat(fetches.get()).isEqualTo(1);
  }

  @Test
  void aPassNamingAKeyTheGatewayDoesNotServeIsRefusedAsUnknownWithoutAFetchPerRequest()
      throws Exception {
    URL url = serve(keys.jwks());
    var verifier = PassVerifier.builder().jwks(url).rooms("shop").clock(clock).build();
    verifier.requireValid(pass);
    String stranger =
        Forgery.sign(
            PassKeys.generate().signingKey(), h -> h, Forgery.claims(clock.instant()).build());

    for (int i = 0; i < 5; i++) {
      assertThat(PassVerifierTest.reason(verifier, stranger)).isEqualTo(PassRefusal.UNKNOWN_KEY);
    }
    assertThat(fetches.get()).isLessThanOrEqualTo(2); // at most one fetch again, rate-limited
  }

  @Test
  void whenTheJwksCannotBeFetchedPassesAreRefusedSayingSo() throws Exception {
    URL url = serve(keys.jwks());
    server.stop(0);
    server = null;
    var verifier = PassVerifier.builder().jwks(url).rooms("shop").clock(clock).build();

    assertThat(PassVerifierTest.reason(verifier, pass)).isEqualTo(PassRefusal.KEYS_UNAVAILABLE);
  }

  @Test
  void aVerifierReadsTheJwksFromAFileOrAString(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("jwks.json");
    Files.writeString(file, keys.jwks());

    var fromFile = PassVerifier.builder().jwks(file).rooms("shop").clock(clock).build();
    var fromString =
        PassVerifier.builder().jwksJson(keys.jwks()).rooms("shop").clock(clock).build();

    assertThat(fromFile.verify(pass)).isInstanceOf(PassCheck.Valid.class);
    assertThat(fromString.verify(pass)).isInstanceOf(PassCheck.Valid.class);
    assertThatThrownBy(() -> PassVerifier.builder().jwks(dir.resolve("missing.json")))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining("cannot read the JWKS file " + dir.resolve("missing.json"));
  }

  @Test
  void aJwksFileCopiedOverWithARotatedKeyIsReadAgainWithoutARestart(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("jwks.json");
    Files.writeString(file, keys.jwks());
    var verifier = PassVerifier.builder().jwks(file).rooms("shop").clock(clock).build();
    assertThat(verifier.verify(pass)).isInstanceOf(PassCheck.Valid.class);
    PassKeys rotated = PassKeys.generate();
    String newPass =
        PassIssuer.builder(rotated)
            .clock(clock)
            .build()
            .passFor("shop", null, 43L, PassIssuerTest.ADMITTED, PassIssuerTest.SESSION_ENDS);

    // the operator copies the gateway's new JWKS over the file; a half-written copy first
    Files.writeString(file, "{\"keys\": [");
    Files.setLastModifiedTime(file, java.nio.file.attribute.FileTime.fromMillis(1_000));
    clock.advance(Duration.ofMillis(JwksFile.RECHECK_MILLIS));
    assertThat(PassVerifierTest.reason(verifier, newPass))
        .as("a broken file keeps the keys read last")
        .isEqualTo(PassRefusal.UNKNOWN_KEY);
    assertThat(verifier.verify(pass)).isInstanceOf(PassCheck.Valid.class);

    Files.writeString(file, rotated.jwks());
    Files.setLastModifiedTime(file, java.nio.file.attribute.FileTime.fromMillis(2_000));
    assertThat(PassVerifierTest.reason(verifier, newPass))
        .as("an unknown key id looks at the file at most every 30 s")
        .isEqualTo(PassRefusal.UNKNOWN_KEY);
    clock.advance(Duration.ofMillis(JwksFile.RECHECK_MILLIS));
    assertThat(verifier.verify(newPass)).isInstanceOf(PassCheck.Valid.class);
  }

  @Test
  void aJwksWithPrivatePartsIsUsedForItsPublicKeysOnly() {
    // an operator who hands the origin the key file's keys by mistake still gets a verifier
    String withPrivate = new com.nimbusds.jose.jwk.JWKSet(keys.signingKey()).toString(false);

    var verifier = PassVerifier.builder().jwksJson(withPrivate).rooms("shop").clock(clock).build();

    assertThat(verifier.verify(pass)).isInstanceOf(PassCheck.Valid.class);
  }

  @Test
  void withoutClockSkewAPassIsRefusedFromItsExpiryOn() {
    var verifier =
        PassVerifier.builder()
            .keys(keys)
            .rooms("shop")
            .clock(clock)
            .clockSkew(Duration.ZERO)
            .build();
    clock.advance(Duration.ofMinutes(5));

    assertThat(PassVerifierTest.reason(verifier, pass)).isEqualTo(PassRefusal.EXPIRED);
  }
}
