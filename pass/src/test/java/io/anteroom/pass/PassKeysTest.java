package io.anteroom.pass;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PassKeysTest {
  @TempDir Path dir;

  Path file() {
    return dir.resolve(PassKeys.FILE);
  }

  @Test
  void theKeyFileIsCreatedOnFirstUseReadableByItsOwnerOnlyAndReadBackTheSame() throws Exception {
    PassKeys created = PassKeys.openOrCreate(dir);

    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file())))
        .isEqualTo("rw-------");
    PassKeys again = PassKeys.openOrCreate(dir);
    assertThat(again.keyIds()).isEqualTo(created.keyIds()).hasSize(1);
    assertThat(again.passIdSecret()).isEqualTo(created.passIdSecret());
    assertThat(created.warnings()).isEmpty();
    assertThat(Files.list(dir)).containsExactly(file()); // no temporary file left
  }

  @Test
  void aKeyFileOthersMayReadIsNamedInAWarningWithTheFix() throws Exception {
    PassKeys.openOrCreate(dir);
    Files.setPosixFilePermissions(file(), PosixFilePermissions.fromString("rw-r--r--"));

    assertThat(PassKeys.read(file()).warnings())
        .singleElement()
        .asString()
        .contains(file().toString(), "rw-r--r--", "chmod 600 " + file());
  }

  @Test
  void theJwksHoldsOnlyPublicPartsOfEveryKey() throws Exception {
    PassKeys.openOrCreate(dir);
    PassKeys keys = PassKeys.rotate(file());

    var jwks = new ObjectMapper().readTree(keys.jwks());

    assertThat(jwks.properties()).extracting(java.util.Map.Entry::getKey).containsExactly("keys");
    assertThat(jwks.get("keys")).hasSize(2);
    for (var key : jwks.get("keys")) {
      assertThat(key.properties())
          .extracting(java.util.Map.Entry::getKey)
          .containsExactlyInAnyOrder("kty", "crv", "x", "y", "kid", "use", "alg");
      assertThat(key.get("alg").asText()).isEqualTo("ES256");
    }
    assertThat(keys.jwks()).doesNotContain("\"d\"", PassKeys.PASS_ID_SECRET);
  }

  @Test
  void afterARotationTheNewKeySignsAndPassesOfTheOldKeyStillVerify() {
    var clock = new MutableClock(PassIssuerTest.NOW);
    PassKeys before = PassKeys.openOrCreate(dir);
    String oldPass = issue(before, clock);

    PassKeys after = PassKeys.rotate(file());
    String newPass = issue(after, clock);

    assertThat(after.keyIds()).hasSize(2).endsWith(before.currentKeyId());
    assertThat(after.currentKeyId()).isNotEqualTo(before.currentKeyId());
    var verifier = PassVerifier.builder().keys(after).rooms("shop").clock(clock).build();
    assertThat(verifier.verify(oldPass)).isInstanceOf(PassCheck.Valid.class);
    assertThat(verifier.verify(newPass)).isInstanceOf(PassCheck.Valid.class);
    assertThat(kid(newPass)).isEqualTo(after.currentKeyId());
  }

  @Test
  void aRetiredKeysPassesAreRefused() {
    var clock = new MutableClock(PassIssuerTest.NOW);
    PassKeys old = PassKeys.openOrCreate(dir);
    String oldPass = issue(old, clock);
    PassKeys.rotate(file());

    PassKeys retired = PassKeys.retire(file(), old.currentKeyId());

    assertThat(retired.keyIds()).hasSize(1).doesNotContain(old.currentKeyId());
    var verifier = PassVerifier.builder().keys(retired).rooms("shop").clock(clock).build();
    assertThat(PassVerifierTest.reason(verifier, oldPass)).isEqualTo(PassRefusal.UNKNOWN_KEY);
    assertThat(verifier.verify(issue(retired, clock))).isInstanceOf(PassCheck.Valid.class);
  }

  @Test
  void theSigningKeyCannotBeRetiredNorAKeyTheFileLacks() {
    PassKeys keys = PassKeys.openOrCreate(dir);

    assertThatThrownBy(() -> PassKeys.retire(file(), keys.currentKeyId()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("signs passes and cannot be retired; rotate first");
    assertThatThrownBy(() -> PassKeys.retire(file(), "nope"))
        .hasMessageContaining("has no key nope to retire; its keys are [" + keys.currentKeyId());
  }

  @Test
  void rotationKeepsTheFileOwnerOnly() throws Exception {
    PassKeys.openOrCreate(dir);
    PassKeys.rotate(file());

    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file())))
        .isEqualTo("rw-------");
    assertThat(Files.list(dir)).containsExactly(file());
  }

  @Test
  void aMissingKeyFileIsNamedWithHowToShareIt() {
    assertThatThrownBy(() -> PassKeys.read(file()))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining("no pass key file " + file())
        .hasMessageContaining("copy the file of another gateway");
  }

  @Test
  void anUnreadableKeyFileIsNamedWithTheCause() throws Exception {
    Files.createDirectories(file()); // a directory where the file should be: unreadable as a file

    assertThatThrownBy(() -> PassKeys.openOrCreate(dir))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining("cannot read the pass key file " + file());
  }

  @Test
  void aDamagedKeyFileGivesAClearErrorNamingTheFileAndTheFault() throws Exception {
    String good = PassKeys.generate().toFile();
    String secret = "\"" + PassKeys.PASS_ID_SECRET + "\"";
    String rsa = new RSAKeyGenerator(2048).keyID("r").generate().toJSONString();
    String p384 = new ECKeyGenerator(Curve.P_384).keyID("p").generate().toJSONString();
    String publicOnly = PassKeys.generate().signingKey().toPublicJWK().toJSONString();
    var a = PassKeys.generate().signingKey();
    var b = PassKeys.generate().signingKey();
    String mismatched =
        new com.nimbusds.jose.jwk.ECKey.Builder(a.getCurve(), a.getX(), a.getY())
            .d(b.getD())
            .keyID("m")
            .build()
            .toJSONString();
    String okKey = PassKeys.generate().signingKey().toJSONString();
    String secretMember = secret + ":\"" + "A".repeat(43) + "\"";

    expectDamage(good.substring(0, good.length() / 2), "not a JSON Web Key Set with the pass keys");
    expectDamage("{\"keys\":[]," + secretMember + "}", "no keys; restore it from another gateway");
    expectDamage(
        "{\"keys\":[" + rsa + "]," + secretMember + "}",
        "key 1 (r): pass keys are EC keys on curve P-256 (ES256), this one is kty RSA");
    expectDamage("{\"keys\":[" + p384 + "]," + secretMember + "}", "this one is kty EC crv P-384");
    expectDamage("{\"keys\":[" + publicOnly + "]," + secretMember + "}", "has no private part (d)");
    expectDamage(
        "{\"keys\":[" + mismatched + "]," + secretMember + "}",
        "key 1 (m): its private part (d) does not belong to its public point");
    expectDamage(
        "{\"keys\":[" + okKey + "," + okKey + "]," + secretMember + "}", "key 2 repeats key id");
    expectDamage(
        "{\"keys\":[" + okKey + "]}", secret + " must be base64url of at least 32 random bytes");
    expectDamage(
        "{\"keys\":[" + okKey + "]," + secret + ":\"c2hvcnQ\"}", "at least 32 random bytes");
  }

  private void expectDamage(String content, String message) throws Exception {
    Files.writeString(file(), content, StandardCharsets.UTF_8);
    assertThatThrownBy(() -> PassKeys.read(file()))
        .as(message)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(file().toString())
        .hasMessageContaining(message);
  }

  @Test
  void aDamagedKeyFileIsNeverReplacedByNewKeys() throws Exception {
    Files.writeString(file(), "{\"keys\":", StandardCharsets.UTF_8);

    assertThatThrownBy(() -> PassKeys.openOrCreate(dir))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(Files.readString(file())).isEqualTo("{\"keys\":");
  }

  @Test
  void errorsAndToStringNeverShowThePrivateParts() throws Exception {
    PassKeys keys = PassKeys.openOrCreate(dir);
    String d = keys.signingKey().getD().toString();

    assertThat(keys.toString()).isEqualTo("PassKeys" + keys.keyIds()).doesNotContain(d);
    String broken = Files.readString(file()).replace("\"crv\":\"P-256\"", "\"crv\":\"P-384\"");
    Files.writeString(file(), broken);
    assertThatThrownBy(() -> PassKeys.read(file())).message().doesNotContain(d);
  }

  private static String issue(PassKeys keys, MutableClock clock) {
    long admitted = clock.millis();
    return PassIssuer.builder(keys)
        .clock(clock)
        .build()
        .passFor("shop", null, 7L, admitted, admitted + Duration.ofMinutes(10).toMillis());
  }

  private static String kid(String pass) {
    try {
      return com.nimbusds.jwt.SignedJWT.parse(pass).getHeader().getKeyID();
    } catch (java.text.ParseException e) {
      throw new AssertionError(e);
    }
  }
}
