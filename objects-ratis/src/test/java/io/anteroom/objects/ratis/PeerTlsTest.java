package io.anteroom.objects.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.anteroom.objects.storage.StorageEngine.Batch;
import io.anteroom.testkit.FreePorts;
import io.anteroom.testkit.TestCertificates;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mutual TLS between the peers ({@link PeerTls}): only a holder of a trusted certificate may speak
 * Raft to a peer. Three peers on loopback; p0 and p1 hold trusted certificates, p2 first starts
 * with a certificate the others do not trust, then with its own trusted one.
 */
class PeerTlsTest {
  @TempDir static Path certs;
  @TempDir Path dir;

  private static final Map<String, TestCertificates.Pem> PEMS = new LinkedHashMap<>();
  private static Path trust;

  private final List<RatisPeer> running = new ArrayList<>();

  @BeforeAll
  static void certificates() throws Exception {
    StringBuilder trusted = new StringBuilder();
    Map<String, java.util.concurrent.Future<TestCertificates.Pem>> made = new LinkedHashMap<>();
    try (var keytools = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
      for (String name : List.of("p0", "p1", "p2", "rogue")) {
        made.put(name, keytools.submit(() -> TestCertificates.create(certs, name)));
      }
    }
    for (var e : made.entrySet()) {
      PEMS.put(e.getKey(), e.getValue().get());
      if (!e.getKey().equals("rogue")) {
        trusted.append(Files.readString(e.getValue().get().certificate()));
      }
    }
    trust = certs.resolve("peers.pem");
    Files.writeString(trust, trusted);
  }

  @AfterEach
  void stop() {
    for (RatisPeer p : running) p.close();
  }

  private static PeerOptions options(String certificate) {
    TestCertificates.Pem pem = PEMS.get(certificate);
    return TestCluster.testOptions()
        .localStorage(PeerOptions.LocalStorage.MEMORY)
        .tls(PeerTls.load(pem.certificate(), pem.privateKey(), trust))
        .build();
  }

  private RatisPeer start(ClusterConfig config, String id, String certificate) {
    RatisPeer peer = RatisPeer.start(config, id, dir.resolve(id), options(certificate));
    running.add(peer);
    return peer;
  }

  private static List<Batch> put(String key) {
    return List.of(
        new Batch("room/x", false, Map.of(key, key.getBytes(StandardCharsets.UTF_8)), null));
  }

  @Test
  void aPeerWithoutATrustedCertificateCannotJoinOrAppendAndWithOneItCatchesUp() {
    int[] ports = FreePorts.take(3);
    List<ClusterConfig.Peer> peers = new ArrayList<>();
    for (int i = 0; i < 3; i++) peers.add(new ClusterConfig.Peer("p" + i, "127.0.0.1", ports[i]));
    ClusterConfig config = new ClusterConfig("tls", peers, 1);
    RatisPeer p0 = start(config, "p0", "p0");
    RatisPeer p1 = start(config, "p1", "p1");
    RatisPeer leader =
        await("a leader over mutual TLS")
            .atMost(TestCluster.PATIENCE)
            .ignoreExceptions()
            .until(
                () -> p0.engine(0).isLeaderReady() ? p0 : p1.engine(0).isLeaderReady() ? p1 : null,
                p -> p != null);
    ReplicatedStorageEngine engine = leader.engine(0);
    for (int i = 0; i < 5; i++) engine.commit(put("before-" + i));
    long term = engine.term();

    // p2 with a certificate the others do not trust: the leader's appends to it and its votes
    // fail in the TLS handshake, so it hears no leader for an election timeout and campaigns
    RatisPeer rogue = start(config, "p2", "rogue");
    ReplicatedStorageEngine rogueShard = rogue.engine(0);
    // (its campaigns fail at once, each vote request refused in the handshake, so it is a
    // CANDIDATE only for moments: count its campaigns instead of sampling its role)
    await("p2 campaigns: no leader's append reached it")
        .atMost(TestCluster.PATIENCE)
        .until(() -> rogueShard.elections() > 0);
    for (int i = 0; i < 5; i++) engine.commit(put("during-" + i));
    assertThat(rogueShard.appliedIndex()).as("entries p2 received").isLessThanOrEqualTo(0);
    assertThat(rogueShard.leader()).as("the leader p2 knows of").isEmpty();
    assertThat(engine.isLeaderReady()).as("p2's campaign reached no one").isTrue();
    assertThat(engine.term()).as("the leader's term, undisturbed by p2's votes").isEqualTo(term);
    running.remove(rogue);
    rogue.close();

    // the same peer with its trusted certificate, on the same directory, joins and catches up
    RatisPeer p2 = start(config, "p2", "p2");
    engine.commit(put("after"));
    long committed = engine.commitIndex();
    await("p2 with a trusted certificate catches up")
        .atMost(TestCluster.PATIENCE)
        .until(() -> p2.engine(0).appliedIndex() >= committed);
  }

  /**
   * Peer identity: p2 presents p1's certificate, trusted by everyone but naming p1. Its votes are
   * refused by the others (their Raft port checks that the certificate names the peer a message
   * says it comes from), and the leader refuses p2's port when it dials it (the certificate must
   * name the peer at the address dialled), so p2 gets no entry and does not count towards a
   * majority; the same p2 with its own certificate catches up. Fails without {@link PeerIdentity}
   * (p2 would receive every entry and vote as p2).
   */
  @Test
  void aPeerPresentingAnotherPeersTrustedCertificateIsRefusedAndGetsNoEntry() {
    int[] ports = FreePorts.take(3);
    List<ClusterConfig.Peer> peers = new ArrayList<>();
    for (int i = 0; i < 3; i++) peers.add(new ClusterConfig.Peer("p" + i, "127.0.0.1", ports[i]));
    ClusterConfig config = new ClusterConfig("tls", peers, 1);
    RatisPeer p0 = start(config, "p0", "p0");
    RatisPeer p1 = start(config, "p1", "p1");
    RatisPeer leader =
        await("a leader over mutual TLS")
            .atMost(TestCluster.PATIENCE)
            .ignoreExceptions()
            .until(
                () -> p0.engine(0).isLeaderReady() ? p0 : p1.engine(0).isLeaderReady() ? p1 : null,
                p -> p != null);
    ReplicatedStorageEngine engine = leader.engine(0);
    for (int i = 0; i < 5; i++) engine.commit(put("before-" + i));
    long term = engine.term();

    RatisPeer impostor = start(config, "p2", "p1");
    ReplicatedStorageEngine impostorShard = impostor.engine(0);
    await("p2 campaigns: no append of the leader was accepted")
        .atMost(TestCluster.PATIENCE)
        .until(() -> impostorShard.elections() > 0);
    for (int i = 0; i < 5; i++) engine.commit(put("during-" + i));
    assertThat(impostorShard.appliedIndex()).as("entries p2 received").isLessThanOrEqualTo(0);
    assertThat(impostorShard.leader()).as("the leader p2 knows of").isEmpty();
    assertThat(engine.term()).as("the leader's term, undisturbed by p2's votes").isEqualTo(term);
    running.remove(impostor);
    impostor.close();

    RatisPeer p2 = start(config, "p2", "p2");
    engine.commit(put("after"));
    long committed = engine.commitIndex();
    await("p2 with its own certificate catches up")
        .atMost(TestCluster.PATIENCE)
        .until(() -> p2.engine(0).appliedIndex() >= committed);
  }

  @Test
  void aCertificateNamesAPeerByCommonNameByDnsNameOrByAnUnsharedRaftHost() throws Exception {
    X509Certificate p0 = certificate("p0");
    assertThat(PeerIdentity.names(p0, "p0", Optional.of("127.0.0.1"), false)).isTrue();
    assertThat(PeerIdentity.names(p0, "p1", Optional.of("127.0.0.1"), false))
        .as("another id, on a host other peers share")
        .isFalse();
    assertThat(PeerIdentity.names(p0, "p1", Optional.of("127.0.0.1"), true))
        .as("another id at the certificate's own address, which no other peer uses")
        .isTrue();
    assertThat(PeerIdentity.names(p0, "p1", Optional.of("10.0.0.9"), true))
        .as("another id at another address")
        .isFalse();
    assertThat(PeerIdentity.names(p0, "p1", Optional.empty(), true)).isFalse();
  }

  private static X509Certificate certificate(String name) throws Exception {
    try (var in = Files.newInputStream(PEMS.get(name).certificate())) {
      return (X509Certificate)
          java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  @Test
  void theRaftPortRefusesATlsClientWithoutATrustedCertificate() throws Exception {
    int port = FreePorts.take();
    ClusterConfig config =
        new ClusterConfig("tls", List.of(new ClusterConfig.Peer("p0", "127.0.0.1", port)), 1);
    start(config, "p0", "p0");

    // the handshake completes only with a trusted client certificate (TLS 1.3 reports a refused
    // client certificate on the first read)
    try (SSLSocket ok = client("p1", port)) {
      ok.startHandshake();
      ok.getOutputStream().write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes());
      ok.getOutputStream().flush();
      assertThat(ok.getInputStream().read())
          .as("the server speaks HTTP/2 to a peer")
          .isNotNegative();
    }
    for (String who : new String[] {"rogue", null}) {
      assertThatThrownBy(
              () -> {
                try (SSLSocket s = client(who, port)) {
                  s.startHandshake();
                  s.getOutputStream().write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes());
                  s.getOutputStream().flush();
                  if (s.getInputStream().read() < 0) throw new IOException("closed by the peer");
                }
              })
          .as("a client with " + (who == null ? "no certificate" : "an untrusted certificate"))
          .isInstanceOf(IOException.class);
    }
  }

  /** A TLS client trusting the peers' certificates, presenting {@code certificate}'s (if any). */
  private static SSLSocket client(String certificate, int port) throws Exception {
    KeyManagerFactory kmf = null;
    if (certificate != null) {
      TestCertificates.Pem pem = PEMS.get(certificate);
      KeyStore ks = KeyStore.getInstance("PKCS12");
      try (var in = Files.newInputStream(certs.resolve(certificate + ".p12"))) {
        ks.load(in, "changeit".toCharArray());
      }
      kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(ks, "changeit".toCharArray());
      assertThat(pem).isNotNull();
    }
    KeyStore anchors = KeyStore.getInstance("PKCS12");
    anchors.load(null, null);
    var factory = java.security.cert.CertificateFactory.getInstance("X.509");
    try (var in = Files.newInputStream(trust)) {
      int i = 0;
      for (var c : factory.generateCertificates(in)) anchors.setCertificateEntry("t" + i++, c);
    }
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(anchors);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
    SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port);
    var params = socket.getSSLParameters();
    params.setApplicationProtocols(new String[] {"h2"});
    socket.setSSLParameters(params);
    socket.setSoTimeout(10_000);
    return socket;
  }
}
