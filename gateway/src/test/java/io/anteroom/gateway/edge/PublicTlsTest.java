package io.anteroom.gateway.edge;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.gateway.Harness;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SelfSignedCertificate;
import io.vertx.core.net.SocketAddress;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The public listener terminates TLS with a PEM certificate and key: HTTPS/1.1 and h2 (ALPN), the
 * origin told {@code X-Forwarded-Proto: https} whatever the client claims, h2 routed by its {@code
 * :authority} as h2c is.
 */
class PublicTlsTest {

  @TempDir Path dataDir;

  /** Key generation is slow on a shared machine: one certificate for the class. */
  private static final class Certificate {
    static final SelfSignedCertificate LOCALHOST = SelfSignedCertificate.create("localhost");
  }

  /** One room on shop.example.com that admits; any other host is queued. */
  private static String config() {
    var cert = Certificate.LOCALHOST;
    return """
        tls: { certFile: "%s", keyFile: "%s" }
        rooms:
          - { id: shop, host: shop.example.com, totalActiveUsers: 100 }
          - { id: other, host: "*", queueAll: true }
        """
        .formatted(cert.certificatePath(), cert.privateKeyPath());
  }

  private static SSLContext trusting(String certificatePem) throws Exception {
    var keys = KeyStore.getInstance(KeyStore.getDefaultType());
    keys.load(null, null);
    try (InputStream in = Files.newInputStream(Path.of(certificatePem))) {
      keys.setCertificateEntry(
          "gateway", CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    var trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init(keys);
    var tls = SSLContext.getInstance("TLS");
    tls.init(null, trust.getTrustManagers(), null);
    return tls;
  }

  @Test
  void https11IsServedAndTheOriginIsToldHttpsWhateverTheClientClaims() throws Exception {
    try (var h = new Harness(dataDir, config())) {
      var socket =
          (SSLSocket)
              trusting(Certificate.LOCALHOST.certificatePath())
                  .getSocketFactory()
                  .createSocket("127.0.0.1", h.gateway.port());
      try (var wire = new Wire(socket)) {
        Wire.Response r =
            wire.send(
                    "GET /cart HTTP/1.1\r\nHost: shop.example.com\r\n"
                        + "X-Forwarded-Proto: http\r\n\r\n")
                .read();
        assertThat(r.body()).isEqualTo("origin:/cart:");
        assertThat(h.origin.lastHeaders)
            .containsEntry("x-forwarded-proto", "https")
            .containsEntry("x-forwarded-host", "shop.example.com");
      }
    }
  }

  @Test
  void h2OverTlsIsRoutedByItsAuthority() throws Exception {
    try (var h = new Harness(dataDir, config())) {
      Vertx vertx = Vertx.vertx();
      try {
        var client =
            vertx.createHttpClient(
                new HttpClientOptions()
                    .setProtocolVersion(HttpVersion.HTTP_2)
                    .setSsl(true)
                    .setUseAlpn(true)
                    .setTrustOptions(Certificate.LOCALHOST.trustOptions())
                    .setVerifyHost(false));
        String body =
            client
                .request(
                    new RequestOptions()
                        .setServer(SocketAddress.inetSocketAddress(h.gateway.port(), "127.0.0.1"))
                        .setHost("shop.example.com")
                        .setPort(443)
                        .setURI("/cart"))
                .compose(
                    req ->
                        req.send()
                            .compose(
                                resp -> {
                                  assertThat(resp.version()).isEqualTo(HttpVersion.HTTP_2);
                                  return resp.body().map(Object::toString);
                                }))
                .await(20, TimeUnit.SECONDS);
        assertThat(body).isEqualTo("origin:/cart:");
        assertThat(h.origin.lastHeaders).containsEntry("x-forwarded-proto", "https");
      } finally {
        vertx.close().await(10, TimeUnit.SECONDS);
      }
    }
  }
}
