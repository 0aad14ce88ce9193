package io.anteroom.pass;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.KeyType;
import com.nimbusds.jose.jwk.KeyUse;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.util.Base64URL;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.text.ParseException;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * The keys that sign and verify passes: EC P-256 key pairs (ES256), each with a key id, and the
 * secret that turns a ticket id into a pass id. The first key signs; the others still verify until
 * they are retired. Immutable.
 *
 * <p>On disk they are one file, {@code dataDir/pass-keys}: a JSON Web Key Set (RFC 7517) with the
 * private keys, first key signs, plus one member of its own, {@code passIdSecret} (base64url, 32
 * bytes). Every gateway of a deployment must use the same file (copy it), so that a user has the
 * same pass id at every gateway and any gateway's pass verifies with the one JWKS.
 *
 * <pre>{@code
 * PassKeys keys = PassKeys.openOrCreate(Path.of("/var/lib/anteroom")); // 0600 on first start
 * keys.warnings().forEach(log::warn);               // e.g. a key file others may read
 * String jwks = keys.jwks();                        // serve at /.well-known/jwks.json
 *
 * PassKeys.rotate(Path.of("/var/lib/anteroom/pass-keys"));  // a new key signs, the old verifies
 * PassKeys.retire(Path.of("/var/lib/anteroom/pass-keys"), "20261129-3fa2c1"); // once expired
 * }</pre>
 *
 * <p>Errors name the file and what is wrong: {@link UncheckedIOException} when it cannot be read or
 * written, {@link IllegalArgumentException} when its content is not a valid key set.
 */
public final class PassKeys {

  /** The key file's name in a data directory. */
  public static final String FILE = "pass-keys";

  static final String PASS_ID_SECRET = "passIdSecret";
  private static final int SECRET_BYTES = 32;
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final DateTimeFormatter DAY = DateTimeFormatter.BASIC_ISO_DATE;

  private final List<ECKey> keys;
  private final byte[] passIdSecret;
  private final List<String> warnings;

  private PassKeys(List<ECKey> keys, byte[] passIdSecret, List<String> warnings) {
    this.keys = List.copyOf(keys);
    this.passIdSecret = passIdSecret.clone();
    this.warnings = List.copyOf(warnings);
  }

  /**
   * One new key and a new pass-id secret, in memory only (tests, or a single process that does not
   * keep its passes' keys across restarts).
   */
  public static PassKeys generate() {
    return new PassKeys(List.of(newKey()), randomSecret(), List.of());
  }

  /**
   * The keys of {@code dataDir/pass-keys}, which is created on first use (one new key and a new
   * pass-id secret, mode 0600, written whole or not at all; a file another process created first is
   * kept and read).
   *
   * @throws UncheckedIOException when the directory or file cannot be created or read
   * @throws IllegalArgumentException when the file is not a valid pass key set (the message says
   *     what is wrong)
   */
  public static PassKeys openOrCreate(Path dataDir) {
    Path file = dataDir.resolve(FILE);
    try {
      if (!Files.exists(file)) {
        KeyFile.createIfAbsent(file, generate().toFile());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the pass key file " + file + ": " + e, e);
    }
    return read(file);
  }

  /**
   * The keys of an existing key file (a gateway of a multi-gateway deployment reads the file it
   * shares with the others, and never creates one of its own).
   *
   * @throws UncheckedIOException when the file is missing or cannot be read
   * @throws IllegalArgumentException when it is not a valid pass key set
   */
  public static PassKeys read(Path file) {
    String text;
    List<String> warnings = new ArrayList<>();
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
      KeyFile.exposure(file).ifPresent(warnings::add);
    } catch (NoSuchFileException e) {
      throw new UncheckedIOException(
          "no pass key file "
              + file
              + ": every gateway of a deployment must use the same keys; copy the file of another"
              + " gateway (or of anteroom run) there",
          e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the pass key file " + file + ": " + e, e);
    }
    return parse(file.toString(), text, warnings);
  }

  /**
   * Adds a new key to the file in front of the others: it signs from now on, the others still
   * verify. Passes signed before keep verifying until their key is {@linkplain #retire retired}.
   *
   * @return the keys as now written
   */
  public static PassKeys rotate(Path file) {
    PassKeys before = read(file);
    var keys = new ArrayList<ECKey>();
    ECKey added;
    do {
      added = newKey();
    } while (before.keyIds().contains(added.getKeyID()));
    keys.add(added);
    keys.addAll(before.keys);
    return write(file, new PassKeys(keys, before.passIdSecret, before.warnings));
  }

  /**
   * Removes key {@code keyId} from the file: passes it signed no longer verify. Retire a key only
   * once the passes it signed have expired (the issuer's TTL plus the verifiers' clock skew after
   * the rotation that replaced it).
   *
   * @return the keys as now written
   * @throws IllegalArgumentException when the file has no such key, or when it is the key that
   *     signs (rotate first)
   */
  public static PassKeys retire(Path file, String keyId) {
    PassKeys before = read(file);
    if (!before.keyIds().contains(keyId)) {
      throw new IllegalArgumentException(
          file + " has no key " + keyId + " to retire; its keys are " + before.keyIds());
    }
    if (before.currentKeyId().equals(keyId)) {
      throw new IllegalArgumentException(
          "key "
              + keyId
              + " of "
              + file
              + " signs passes and cannot be retired; rotate first, and retire it once the passes"
              + " it signed have expired");
    }
    var keys = new ArrayList<>(before.keys);
    keys.removeIf(k -> k.getKeyID().equals(keyId));
    return write(file, new PassKeys(keys, before.passIdSecret, before.warnings));
  }

  /** The id of the key that signs. */
  public String currentKeyId() {
    return keys.get(0).getKeyID();
  }

  /** The ids of all keys, the signing key first. */
  public List<String> keyIds() {
    return keys.stream().map(JWK::getKeyID).toList();
  }

  /**
   * The public keys as a JSON Web Key Set, for {@code /.well-known/jwks.json}: {@code kty}, {@code
   * crv}, {@code x}, {@code y}, {@code kid}, {@code use} and {@code alg} of each key, never a
   * private part or the pass-id secret.
   */
  public String jwks() {
    return new JWKSet(keys.stream().map(k -> (JWK) k.toPublicJWK()).toList()).toString();
  }

  /**
   * What the caller should log at start: a key file that others than its owner may read or write
   * (with the {@code chmod} that fixes it). Empty when all is well.
   */
  public List<String> warnings() {
    return warnings;
  }

  ECKey signingKey() {
    return keys.get(0);
  }

  List<ECKey> keys() {
    return keys;
  }

  byte[] passIdSecret() {
    return passIdSecret.clone();
  }

  /** The file's content: a JWK set with private keys, one key a line, and the pass-id secret. */
  String toFile() {
    var out = new StringBuilder("{\"keys\":[\n");
    for (int i = 0; i < keys.size(); i++) {
      out.append("  ").append(keys.get(i).toJSONString());
      out.append(i + 1 < keys.size() ? ",\n" : "\n");
    }
    out.append("],\n\"")
        .append(PASS_ID_SECRET)
        .append("\":\"")
        .append(Base64URL.encode(passIdSecret))
        .append("\"}\n");
    return out.toString();
  }

  private static PassKeys write(Path file, PassKeys keys) {
    try {
      KeyFile.replace(file, keys.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the pass key file " + file + ": " + e, e);
    }
    return keys;
  }

  static PassKeys parse(String where, String text, List<String> warnings) {
    JWKSet set;
    try {
      set = JWKSet.parse(text);
    } catch (ParseException | RuntimeException e) {
      throw new IllegalArgumentException(
          where
              + ": not a JSON Web Key Set with the pass keys ("
              + e.getMessage()
              + "); restore it from another gateway, or delete it to generate new keys (pass ids"
              + " then change)",
          e);
    }
    var keys = new ArrayList<ECKey>();
    var ids = new HashSet<String>();
    int n = 0;
    for (JWK jwk : set.getKeys()) {
      n++;
      ECKey key = signingKey(where, n, jwk);
      if (!ids.add(key.getKeyID())) {
        throw new IllegalArgumentException(
            where
                + ": key "
                + n
                + " repeats key id "
                + key.getKeyID()
                + "; every key needs its own");
      }
      keys.add(key);
    }
    if (keys.isEmpty()) {
      throw new IllegalArgumentException(
          where + ": no keys; restore it from another gateway, or delete it to generate one");
    }
    return new PassKeys(keys, secret(where, set.getAdditionalMembers()), warnings);
  }

  private static ECKey signingKey(String where, int n, JWK jwk) {
    String which =
        where + ": key " + n + (jwk.getKeyID() == null ? "" : " (" + jwk.getKeyID() + ")");
    if (!KeyType.EC.equals(jwk.getKeyType()) || !Curve.P_256.equals(jwk.toECKey().getCurve())) {
      throw new IllegalArgumentException(
          which + ": pass keys are EC keys on curve P-256 (ES256), this one is " + describe(jwk));
    }
    ECKey key = jwk.toECKey();
    if (key.getKeyID() == null || key.getKeyID().isBlank()) {
      throw new IllegalArgumentException(which + ": has no key id (kid)");
    }
    if (!key.isPrivate()) {
      throw new IllegalArgumentException(which + ": has no private part (d); it cannot sign");
    }
    if (key.getAlgorithm() != null && !JWSAlgorithm.ES256.equals(key.getAlgorithm())) {
      throw new IllegalArgumentException(
          which + ": alg is " + key.getAlgorithm() + "; pass keys sign ES256 only");
    }
    if (key.getKeyUse() != null && !KeyUse.SIGNATURE.equals(key.getKeyUse())) {
      throw new IllegalArgumentException(
          which + ": use is " + key.getKeyUse().identifier() + "; pass keys are for sig");
    }
    if (!privateMatchesPublic(key)) {
      throw new IllegalArgumentException(
          which + ": its private part (d) does not belong to its public point (x, y)");
    }
    return key;
  }

  private static String describe(JWK jwk) {
    return "kty "
        + jwk.getKeyType()
        + (KeyType.EC.equals(jwk.getKeyType()) ? " crv " + jwk.toECKey().getCurve() : "");
  }

  private static boolean privateMatchesPublic(ECKey key) {
    try {
      byte[] probe = "anteroom pass key check".getBytes(StandardCharsets.US_ASCII);
      var header = new com.nimbusds.jose.JWSHeader(JWSAlgorithm.ES256);
      Base64URL signature = new ECDSASigner(key).sign(header, probe);
      return new ECDSAVerifier(key.toPublicJWK()).verify(header, probe, signature);
    } catch (JOSEException e) {
      return false;
    }
  }

  private static byte[] secret(String where, Map<String, Object> members) {
    Object value = members == null ? null : members.get(PASS_ID_SECRET);
    byte[] secret = null;
    if (value instanceof String s) {
      try {
        secret = new Base64URL(s).decode();
      } catch (RuntimeException e) {
        secret = null;
      }
    }
    if (secret == null || secret.length < SECRET_BYTES) {
      throw new IllegalArgumentException(
          where
              + ": \""
              + PASS_ID_SECRET
              + "\" must be base64url of at least "
              + SECRET_BYTES
              + " random bytes (it turns ticket ids into pass ids); restore the file from another"
              + " gateway");
    }
    return secret;
  }

  private static ECKey newKey() {
    String kid =
        LocalDate.now(ZoneOffset.UTC).format(DAY) + "-" + HexFormat.of().formatHex(randomBytes(3));
    try {
      return new ECKeyGenerator(Curve.P_256)
          .keyID(kid)
          .keyUse(KeyUse.SIGNATURE)
          .algorithm(JWSAlgorithm.ES256)
          .secureRandom(RANDOM)
          .generate();
    } catch (JOSEException e) {
      throw new IllegalStateException("this JDK cannot generate EC P-256 keys: " + e, e);
    }
  }

  private static byte[] randomSecret() {
    return randomBytes(SECRET_BYTES);
  }

  private static byte[] randomBytes(int n) {
    byte[] bytes = new byte[n];
    RANDOM.nextBytes(bytes);
    return bytes;
  }

  @Override
  public String toString() {
    return "PassKeys" + keyIds(); // never the private parts
  }
}
