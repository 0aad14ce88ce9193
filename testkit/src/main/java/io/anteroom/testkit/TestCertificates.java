package io.anteroom.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.concurrent.TimeUnit;

/**
 * Self-signed EC certificates for 127.0.0.1, or for the addresses given (subject alternative names,
 * as TLS host checks need), made with the JDK's {@code keytool}, written as PEM: {@code <name>.pem}
 * and {@code <name>-key.pem} (PKCS#8). For tests and benchmarks only: the store password is fixed
 * and the certificates are valid for two days.
 */
public final class TestCertificates {
  private TestCertificates() {}

  /** The PEM files of one certificate and its private key. */
  public record Pem(Path certificate, Path privateKey) {}

  /** A new certificate {@code CN=name} for 127.0.0.1 and localhost, and its key in {@code dir}. */
  public static Pem create(Path dir, String name) throws IOException, InterruptedException {
    return create(dir, name, "ip:127.0.0.1,dns:localhost");
  }

  /**
   * A new certificate {@code CN=name} for these IP addresses (e.g. a peer's address in a network
   * namespace), and its key in {@code dir}.
   */
  public static Pem forAddresses(Path dir, String name, String... ipAddresses)
      throws IOException, InterruptedException {
    if (ipAddresses.length == 0) throw new IllegalArgumentException("no address for " + name);
    return create(dir, name, "ip:" + String.join(",ip:", ipAddresses));
  }

  private static Pem create(Path dir, String name, String subjectAlternativeNames)
      throws IOException, InterruptedException {
    Files.createDirectories(dir);
    Path store = dir.resolve(name + ".p12");
    String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
    Process p =
        new ProcessBuilder(
                keytool,
                "-genkeypair",
                "-alias",
                name,
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=" + name,
                "-ext",
                "SAN=" + subjectAlternativeNames,
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                store.toString(),
                "-storepass",
                "changeit")
            .redirectErrorStream(true)
            .start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException("keytool failed: " + output);
    }
    try (InputStream in = Files.newInputStream(store)) {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(in, "changeit".toCharArray());
      PrivateKey key = (PrivateKey) ks.getKey(name, "changeit".toCharArray());
      Certificate cert = ks.getCertificate(name);
      Path certificate = dir.resolve(name + ".pem");
      Path privateKey = dir.resolve(name + "-key.pem");
      Files.writeString(certificate, pem("CERTIFICATE", cert.getEncoded()));
      Files.writeString(privateKey, pem("PRIVATE KEY", key.getEncoded()));
      return new Pem(certificate, privateKey);
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** {@code der} as a PEM block of {@code type}. */
  public static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }
}
