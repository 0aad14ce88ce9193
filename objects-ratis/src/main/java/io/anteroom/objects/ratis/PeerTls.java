package io.anteroom.objects.ratis;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import org.apache.ratis.grpc.GrpcTlsConfig;

/**
 * Mutual TLS between the peers of a cluster (Ratis' gRPC transport): each peer presents its
 * certificate (chain) and accepts a connection, in either direction, only from a peer whose
 * certificate chains to one of the trusted certificates, which must also name the address it was
 * dialled at (its {@code raft} host, as a subject alternative name) when it is the server.
 *
 * <p>Without it the Raft port is plain text and unauthenticated. With it, a peer's certificate must
 * also name its id (or its unshared raft host): {@link PeerIdentity} checks the sender of each Raft
 * message on the accepting side, and a peer dialling another checks that the certificate names the
 * peer at that address. Any trusted certificate may still use the admin service (membership
 * changes): give the trusted certificates (a private CA, or the peers' own self-signed
 * certificates) to the coordinators and their operators only.
 *
 * <pre>{@code
 * PeerTls tls = PeerTls.load(Path.of("c1.pem"), Path.of("c1-key.pem"), Path.of("peers-ca.pem"));
 * PeerOptions options = PeerOptions.builder().tls(tls).build();
 * }</pre>
 */
public final class PeerTls {
  private static final Pattern PEM =
      Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\\s]+)-----END \\1-----");
  private static final char[] NO_PASSWORD = new char[0];

  private final KeyManager keyManager;
  private final TrustManager trustManager;
  private final String description;

  private PeerTls(KeyManager keyManager, TrustManager trustManager, String description) {
    this.keyManager = keyManager;
    this.trustManager = trustManager;
    this.description = description;
  }

  /**
   * Loads this peer's certificate chain and private key (PEM; the key unencrypted PKCS#8, {@code
   * BEGIN PRIVATE KEY}) and the certificates it trusts for its peers (PEM, one or more).
   *
   * @throws IllegalArgumentException naming the file and what is wrong with it
   */
  public static PeerTls load(Path certificateChain, Path privateKey, Path trusted) {
    Objects.requireNonNull(certificateChain, "certificateChain");
    Objects.requireNonNull(privateKey, "privateKey");
    Objects.requireNonNull(trusted, "trusted");
    List<X509Certificate> chain = certificates(certificateChain, "certificate");
    PrivateKey key = privateKey(privateKey);
    List<X509Certificate> trust = certificates(trusted, "peer trust");
    try {
      KeyStore keys = KeyStore.getInstance("PKCS12");
      keys.load(null, null);
      keys.setKeyEntry("peer", key, NO_PASSWORD, chain.toArray(Certificate[]::new));
      KeyManagerFactory kmf =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(keys, NO_PASSWORD);
      KeyStore anchors = KeyStore.getInstance("PKCS12");
      anchors.load(null, null);
      for (int i = 0; i < trust.size(); i++) anchors.setCertificateEntry("peer-" + i, trust.get(i));
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(anchors);
      return new PeerTls(
          kmf.getKeyManagers()[0],
          tmf.getTrustManagers()[0],
          "certificate "
              + chain.getFirst().getSubjectX500Principal().getName()
              + ", trusting "
              + trust.size()
              + " certificate(s) of "
              + trusted);
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalArgumentException(
          "cannot use the private key of "
              + privateKey
              + " with the certificate of "
              + certificateChain
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /** The configuration for a client of the peers (no check of the peer ids). */
  GrpcTlsConfig grpc() {
    return new GrpcTlsConfig(keyManager, trustManager, true);
  }

  /**
   * The configuration for Ratis' gRPC server and its channels to the other peers: on a channel it
   * dials, a peer accepts the other's certificate only if it also names the peer at the dialled
   * address ({@code peerAt}: host and port to peer id, in the current membership; {@link
   * PeerIdentity#names}).
   */
  GrpcTlsConfig grpc(
      String self,
      java.util.function.BiFunction<String, Integer, java.util.Optional<String>> peerAt,
      java.util.function.Function<String, java.util.Optional<String>> hostOf,
      java.util.function.Supplier<java.util.Map<String, Integer>> peersPerHost) {
    if (!(trustManager instanceof javax.net.ssl.X509ExtendedTrustManager extended)) return grpc();
    return new GrpcTlsConfig(
        keyManager, new DialledPeerCheck(self, extended, peerAt, hostOf, peersPerHost), true);
  }

  /** The trust manager of a peer's channels: the chain, then the dialled peer's name in it. */
  private static final class DialledPeerCheck extends javax.net.ssl.X509ExtendedTrustManager {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PeerTls.class);
    private final String self;
    private final javax.net.ssl.X509ExtendedTrustManager delegate;
    private final java.util.function.BiFunction<String, Integer, java.util.Optional<String>> peerAt;
    private final java.util.function.Function<String, java.util.Optional<String>> hostOf;
    private final java.util.function.Supplier<java.util.Map<String, Integer>> peersPerHost;
    private final java.util.Set<String> reported =
        java.util.concurrent.ConcurrentHashMap.newKeySet();

    DialledPeerCheck(
        String self,
        javax.net.ssl.X509ExtendedTrustManager delegate,
        java.util.function.BiFunction<String, Integer, java.util.Optional<String>> peerAt,
        java.util.function.Function<String, java.util.Optional<String>> hostOf,
        java.util.function.Supplier<java.util.Map<String, Integer>> peersPerHost) {
      this.self = self;
      this.delegate = delegate;
      this.peerAt = peerAt;
      this.hostOf = hostOf;
      this.peersPerHost = peersPerHost;
    }

    private void checkNames(X509Certificate[] chain, String host, int port)
        throws java.security.cert.CertificateException {
      if (host == null || chain == null || chain.length == 0) return;
      java.util.Optional<String> id = peerAt.apply(host, port);
      if (id.isEmpty()) return; // not a member's address: the chain and host checks apply
      java.util.Optional<String> peerHost = hostOf.apply(id.get());
      boolean unique = peerHost.map(h -> peersPerHost.get().getOrDefault(h, 0) <= 1).orElse(false);
      if (PeerIdentity.names(chain[0], id.get(), peerHost, unique)) return;
      String subject = chain[0].getSubjectX500Principal().getName();
      if (reported.size() < 1024 && reported.add(subject + "|" + id.get())) {
        LOG.warn(
            "peer {}: refused the Raft port at {}:{} (peer {}): its certificate ({}) does not name"
                + " that peer (a peer's certificate must name its id as CN or DNS name, or its"
                + " raft host when no other peer shares it)",
            self,
            host,
            port,
            id.get(),
            subject);
      }
      throw new java.security.cert.CertificateException(
          "the certificate " + subject + " does not name peer " + id.get());
    }

    @Override
    public void checkServerTrusted(
        X509Certificate[] chain, String authType, javax.net.ssl.SSLEngine engine)
        throws java.security.cert.CertificateException {
      delegate.checkServerTrusted(chain, authType, engine);
      if (engine != null) checkNames(chain, engine.getPeerHost(), engine.getPeerPort());
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, java.net.Socket socket)
        throws java.security.cert.CertificateException {
      delegate.checkServerTrusted(chain, authType, socket);
      if (socket != null && socket.getInetAddress() != null)
        checkNames(chain, socket.getInetAddress().getHostAddress(), socket.getPort());
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType)
        throws java.security.cert.CertificateException {
      delegate.checkServerTrusted(chain, authType);
    }

    @Override
    public void checkClientTrusted(
        X509Certificate[] chain, String authType, javax.net.ssl.SSLEngine engine)
        throws java.security.cert.CertificateException {
      delegate.checkClientTrusted(chain, authType, engine);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, java.net.Socket socket)
        throws java.security.cert.CertificateException {
      delegate.checkClientTrusted(chain, authType, socket);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType)
        throws java.security.cert.CertificateException {
      delegate.checkClientTrusted(chain, authType);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return delegate.getAcceptedIssuers();
    }
  }

  @Override
  public String toString() {
    return "PeerTls[mutual, " + description + "]";
  }

  private static List<X509Certificate> certificates(Path file, String what) {
    String text = read(file, what);
    List<X509Certificate> out = new ArrayList<>();
    try {
      CertificateFactory factory = CertificateFactory.getInstance("X.509");
      for (Matcher m = PEM.matcher(text); m.find(); ) {
        if (!m.group(1).equals("CERTIFICATE")) continue;
        byte[] der = Base64.getMimeDecoder().decode(m.group(2));
        out.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(der)));
      }
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "the " + what + " file " + file + " has an unreadable certificate: " + e.getMessage(), e);
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(
          "the "
              + what
              + " file "
              + file
              + " has no PEM certificate (-----BEGIN CERTIFICATE-----)");
    }
    return out;
  }

  private static PrivateKey privateKey(Path file) {
    String text = read(file, "private key");
    Matcher m = PEM.matcher(text);
    if (!m.find()) {
      throw new IllegalArgumentException(
          "the private key file " + file + " has no PEM block (-----BEGIN PRIVATE KEY-----)");
    }
    if (!m.group(1).equals("PRIVATE KEY")) {
      throw new IllegalArgumentException(
          "the private key file "
              + file
              + " holds a "
              + m.group(1)
              + "; the Raft transport needs an unencrypted PKCS#8 key (BEGIN PRIVATE KEY):"
              + " convert it with: openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8");
    }
    byte[] der = Base64.getMimeDecoder().decode(m.group(2));
    for (String algorithm : List.of("RSA", "EC", "Ed25519", "Ed448")) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (GeneralSecurityException e) {
        // try the next algorithm
      }
    }
    throw new IllegalArgumentException(
        "the private key file "
            + file
            + " holds no RSA, EC or EdDSA PKCS#8 key that Java can read");
  }

  private static String read(Path file, String what) {
    try {
      return Files.readString(file, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the " + what + " file " + file + ": " + e, e);
    }
  }
}
