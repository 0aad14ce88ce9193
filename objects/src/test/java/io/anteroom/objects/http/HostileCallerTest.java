package io.anteroom.objects.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.anteroom.objects.ObjectId;
import io.anteroom.objects.ObjectTransportException;
import io.anteroom.objects.RefusedCallException;
import io.anteroom.objects.http.HttpObjectServerTest.FakeTransport;
import io.anteroom.testkit.ManualClock;
import io.vertx.core.net.SelfSignedCertificate;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Anyone who can reach the object server is hostile: only calls signed with the deployment's
 * secret, fresh and never seen before, to an exported namespace, reach the transport; slow or
 * numerous connections cannot hold the server.
 */
class HostileCallerTest {
  private static final ObjectId ID = ObjectId.fromName("fake", "one");
  private static final SharedSecret SECRET = HttpObjectServerTest.SECRET;
  private static final SharedSecret OTHER =
      SharedSecret.of(
          "test", "another secret of 32 bytes or more".getBytes(StandardCharsets.US_ASCII));

  private final FakeTransport fake = new FakeTransport();
  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  private <T extends AutoCloseable> T closing(T c) {
    toClose.add(c);
    return c;
  }

  private HttpObjectServer serve() {
    return closing(HttpObjectServer.builder(fake).export("fake").secret(SECRET).start());
  }

  private HttpObjectTransport transport(URI uri, SharedSecret secret) {
    return closing(
        HttpObjectTransport.builder(uri).secret(secret).timeout(Duration.ofSeconds(10)).build());
  }

  private String path(String method) {
    return ObjectPaths.path("fake", ID, method);
  }

  /** A POST with the given authentication headers (null: none), as an attacker would send it. */
  private HttpResponse<String> post(
      HttpObjectServer server, String path, byte[] body, CallSignature.Headers auth)
      throws IOException, InterruptedException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(server.uri() + path))
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (auth != null) {
      b.header(CallSignature.KEY_ID, auth.keyId())
          .header(CallSignature.DATE, auth.date())
          .header(CallSignature.NONCE, auth.nonce())
          .header(CallSignature.SIGNATURE, auth.signature());
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static CallSignature.Headers sign(String path, byte[] body) {
    return CallSignature.sign(
        SECRET, "POST", path, CallSignature.bodyHash(body), System.currentTimeMillis());
  }

  @Test
  void aSignedCallIsAnsweredWithTheObjectsResult() {
    HttpObjectTransport transport = transport(serve().uri(), SECRET);

    assertThat(transport.call("fake", ID, "echo", new byte[] {1, 2, 3}).join())
        .containsExactly(1, 2, 3);
    assertThat(fake.delivered("echo")).isEqualTo(1);
  }

  @Test
  void anUnsignedCallIs401AndNeverReachesTheObject() throws Exception {
    HttpResponse<String> r = post(serve(), path("next"), new byte[0], null);

    assertThat(r.statusCode()).isEqualTo(401);
    assertThat(r.body()).contains("the call is not signed");
    assertThat(r.headers().firstValue("WWW-Authenticate")).hasValue(CallSignature.SCHEME);
    assertThat(fake.deliveries).isEmpty();
  }

  @Test
  void aCallSignedWithAnotherSecretIs401() {
    HttpObjectTransport wrong = transport(serve().uri(), OTHER);

    assertThatThrownBy(() -> wrong.call("fake", ID, "next", new byte[0]).join())
        .cause()
        .isInstanceOf(ObjectTransportException.class)
        .hasMessageContaining("HTTP 401")
        .hasMessageContaining("bad signature")
        .hasMessageContaining("the call was not run")
        // callers tell a refused secret from a network failure by the status, not the text
        .satisfies(e -> assertThat(RefusedCallException.statusOf(e)).isEqualTo(401));
    assertThat(fake.deliveries).isEmpty();
  }

  @Test
  void aCallSignedWithAnUnknownKeyIdIs401() {
    HttpObjectTransport wrong = transport(serve().uri(), SharedSecret.of("k9", new byte[32]));

    assertThatThrownBy(() -> wrong.call("fake", ID, "next", new byte[0]).join())
        .cause()
        .hasMessageContaining("HTTP 401")
        .hasMessageContaining("bad signature");
    assertThat(fake.deliveries).isEmpty();
  }

  @Test
  void aTamperedBodyIs401() throws Exception {
    CallSignature.Headers auth = sign(path("echo"), new byte[] {1});

    HttpResponse<String> r = post(serve(), path("echo"), new byte[] {2}, auth);

    assertThat(r.statusCode()).isEqualTo(401);
    assertThat(r.body()).contains("bad signature");
    assertThat(fake.deliveries).isEmpty();
  }

  @Test
  void aSignatureForOnePathDoesNotAuthoriseAnother() throws Exception {
    CallSignature.Headers auth = sign(path("echo"), new byte[0]);

    HttpResponse<String> r = post(serve(), path("next"), new byte[0], auth);

    assertThat(r.statusCode()).isEqualTo(401);
    assertThat(fake.deliveries).isEmpty();
  }

  @Test
  void aStaleOrFutureDateIs401() {
    URI uri = serve().uri();
    HttpObjectTransport late =
        transport2(uri, Clock.offset(Clock.systemUTC(), Duration.ofSeconds(-31)));
    HttpObjectTransport early =
        transport2(uri, Clock.offset(Clock.systemUTC(), Duration.ofSeconds(31)));

    assertThatThrownBy(() -> late.call("fake", ID, "next", new byte[0]).join())
        .cause()
        .hasMessageContaining("HTTP 401")
        .hasMessageContaining("outside the replay window");
    assertThatThrownBy(() -> early.call("fake", ID, "next", new byte[0]).join())
        .cause()
        .hasMessageContaining("HTTP 401")
        .hasMessageContaining("outside the replay window");
    assertThat(fake.deliveries).isEmpty();
  }

  private HttpObjectTransport transport2(URI uri, Clock clock) {
    return closing(HttpObjectTransport.builder(uri).secret(SECRET).clock(clock).build());
  }

  @Test
  void aReplayedCallIs401AndRunsOnce() throws Exception {
    HttpObjectServer server = serve();
    CallSignature.Headers auth = sign(path("next"), new byte[0]);

    HttpResponse<String> first = post(server, path("next"), new byte[0], auth);
    HttpResponse<String> replay = post(server, path("next"), new byte[0], auth);

    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(replay.statusCode()).isEqualTo(401);
    assertThat(replay.body()).contains("replayed nonce");
    assertThat(fake.delivered("next")).isEqualTo(1);
  }

  @Test
  void malformedAuthenticationHeadersAre401() throws Exception {
    CallSignature.Headers good = sign(path("next"), new byte[0]);
    HttpObjectServer server = serve();

    for (CallSignature.Headers bad :
        List.of(
            new CallSignature.Headers("k/1", good.date(), good.nonce(), good.signature()),
            new CallSignature.Headers(good.keyId(), "-5", good.nonce(), good.signature()),
            new CallSignature.Headers(good.keyId(), good.date(), "short", good.signature()),
            new CallSignature.Headers(good.keyId(), good.date(), good.nonce(), "!!not base64!!"))) {
      assertThat(post(server, path("next"), new byte[0], bad).statusCode())
          .as(bad.toString())
          .isEqualTo(401);
    }
    assertThat(fake.deliveries).isEmpty();
  }

  @Test
  void aServerAcceptsEveryKeyOfARotation() {
    SharedSecret next =
        SharedSecret.of(
            "k2", "the next key of the rotation, 32+ bytes".getBytes(StandardCharsets.US_ASCII));
    HttpObjectServer server =
        closing(HttpObjectServer.builder(fake).export("fake").secret(SECRET, next).start());

    assertThat(transport(server.uri(), SECRET).call("fake", ID, "echo", new byte[] {1}).join())
        .containsExactly(1);
    assertThat(transport(server.uri(), next).call("fake", ID, "echo", new byte[] {2}).join())
        .containsExactly(2);
  }

  @Test
  void nonceMemoryIsBoundedAndAFullMemoryRefusesWith503() {
    HttpObjectServer server =
        closing(
            HttpObjectServer.builder(fake)
                .export("fake")
                .secret(SECRET)
                .maxRememberedNonces(2)
                .start());
    HttpObjectTransport transport = transport(server.uri(), SECRET);
    transport.call("fake", ID, "echo", new byte[0]).join();
    transport.call("fake", ID, "echo", new byte[0]).join();

    assertThatThrownBy(() -> transport.call("fake", ID, "echo", new byte[0]).join())
        .cause()
        .hasMessageContaining("HTTP 503")
        .hasMessageContaining("too many calls within the replay window")
        .hasMessageContaining("the call was not run");
    assertThat(fake.delivered("echo")).isEqualTo(2);
  }

  @Test
  void rememberedNoncesExpireWithTheWindow() {
    ManualClock clock = new ManualClock();
    ReplayGuard guard = new ReplayGuard(clock, 30_000, 2);
    long t = clock.millis();

    assertThat(guard.admit(t, "a")).isEqualTo(ReplayGuard.Verdict.ACCEPTED);
    assertThat(guard.admit(t, "a")).isEqualTo(ReplayGuard.Verdict.REPLAYED);
    assertThat(guard.admit(t + 30_000, "b"))
        .isEqualTo(ReplayGuard.Verdict.ACCEPTED); // 30 s in the future: still fresh
    assertThat(guard.admit(t, "c")).isEqualTo(ReplayGuard.Verdict.FULL);
    clock.advance(Duration.ofMillis(30_001));
    // "a" expired with its date; "b" (dated 30 s ahead) is still remembered
    assertThat(guard.admit(t, "a")).isEqualTo(ReplayGuard.Verdict.STALE);
    assertThat(guard.admit(clock.millis(), "c")).isEqualTo(ReplayGuard.Verdict.ACCEPTED);
    assertThat(guard.remembered()).isEqualTo(2);
    assertThat(guard.admit(clock.millis(), "b")).isEqualTo(ReplayGuard.Verdict.REPLAYED);
  }

  @Test
  void aNamespaceThatIsNotExportedIs404AndNeverReachesTheTransport() {
    HttpObjectTransport transport = transport(serve().uri(), SECRET);

    assertThatThrownBy(() -> transport.call("secret-admin", ID, "next", new byte[0]).join())
        .cause()
        .hasMessageContaining("HTTP 404")
        .hasMessageContaining("unknown namespace \"secret-admin\" (not exported by this server)");
    assertThat(fake.namespaces).isEmpty();
  }

  @Test
  void byDefaultNoNamespaceIsExported() {
    HttpObjectServer server = closing(HttpObjectServer.builder(fake).secret(SECRET).start());

    assertThatThrownBy(
            () -> transport(server.uri(), SECRET).call("fake", ID, "next", new byte[0]).join())
        .cause()
        .hasMessageContaining("HTTP 404");
    assertThat(fake.deliveries).isEmpty();
  }

  @Test
  void aServerWithoutSecretRefusesToListenBeyondLoopback() {
    assertThatThrownBy(() -> HttpObjectServer.builder(fake).export("fake").host("0.0.0.0").start())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("refusing to serve objects on 0.0.0.0 without a shared secret");
  }

  @Test
  void withoutASecretALoopbackServerAnswersUnsignedCalls() {
    HttpObjectServer server = closing(HttpObjectServer.builder(fake).export("fake").start());
    HttpObjectTransport unsigned = closing(HttpObjectTransport.builder(server.uri()).build());

    assertThat(server.authenticated()).isFalse();
    assertThat(unsigned.call("fake", ID, "echo", new byte[] {5}).join()).containsExactly(5);
  }

  @Test
  void twoDifferentSecretsWithOneKeyIdAreRefused() {
    assertThatThrownBy(() -> HttpObjectServer.builder(fake).secret(SECRET, OTHER))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("two different shared secrets with key id \"test\"");
  }

  @Test
  void aSecretShorterThan32BytesIsRefusedClearly() {
    assertThatThrownBy(() -> SharedSecret.of("k1", new byte[31]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("has 31 bytes; at least 32 random bytes are required");
    assertThatThrownBy(() -> SharedSecret.parse("k1:c2hvcnQ="))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("has 5 bytes");
    assertThatThrownBy(() -> SharedSecret.parse("k1:***"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not valid Base64")
        .hasMessageNotContaining("***");
    assertThatThrownBy(() -> SharedSecret.of("bad id", new byte[32]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key id");
    SharedSecret s = SharedSecret.generate("k7");
    assertThat(SharedSecret.parse(s.encoded())).isEqualTo(s);
    assertThat(s.toString()).isEqualTo("SharedSecret[k7, 32 bytes]");
  }

  /** Key generation is slow on a shared machine: one certificate for the TLS tests. */
  private static final class Certificate {
    static final SelfSignedCertificate LOCALHOST = SelfSignedCertificate.create("localhost");
  }

  @Test
  void callsRoundTripOverTlsWithATrustedCertificate() {
    SelfSignedCertificate cert = Certificate.LOCALHOST;
    HttpObjectServer server =
        closing(
            HttpObjectServer.builder(fake)
                .export("fake")
                .secret(SECRET)
                .tls(Path.of(cert.certificatePath()), Path.of(cert.privateKeyPath()))
                .start());
    URI uri = URI.create("https://localhost:" + server.actualPort());
    HttpObjectTransport trusting =
        closing(
            HttpObjectTransport.builder(uri)
                .secret(SECRET)
                .trust(Path.of(cert.certificatePath()))
                .build());
    HttpObjectTransport untrusting =
        closing(HttpObjectTransport.builder(uri).secret(SECRET).build());
    HttpObjectTransport plain =
        transport(URI.create("http://localhost:" + server.actualPort()), SECRET);

    assertThat(server.uri().getScheme()).isEqualTo("https");
    assertThat(trusting.call("fake", ID, "echo", new byte[] {9}).join()).containsExactly(9);
    assertThatThrownBy(() -> untrusting.call("fake", ID, "echo", new byte[] {8}).join())
        .cause()
        .isInstanceOf(ObjectTransportException.class);
    assertThatThrownBy(() -> plain.call("fake", ID, "echo", new byte[] {7}).join())
        .cause()
        .isInstanceOf(ObjectTransportException.class);
    assertThat(fake.delivered("echo")).isEqualTo(1);
  }

  @Test
  void trustWithoutHttpsIsRefused() {
    SelfSignedCertificate cert = Certificate.LOCALHOST;

    assertThatThrownBy(
            () ->
                HttpObjectTransport.builder(URI.create("http://localhost:1"))
                    .trust(Path.of(cert.certificatePath()))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("is not https://");
  }

  @Test
  void connectionsAboveTheCapAreClosedAtOnce() throws Exception {
    HttpObjectServer server =
        closing(
            HttpObjectServer.builder(fake).export("fake").secret(SECRET).maxConnections(2).start());
    try (Socket a = open(server);
        Socket b = open(server)) {
      org.awaitility.Awaitility.await().until(() -> server.openConnections() == 2);
      try (Socket c = open(server)) {
        assertThat(readUntilClosed(c)).as("third connection").isEmpty();
      }
      assertThat(server.openConnections()).isEqualTo(2);
    }
    org.awaitility.Awaitility.await().until(() -> server.openConnections() == 0);
    assertThat(transport(server.uri(), SECRET).call("fake", ID, "echo", new byte[] {1}).join())
        .containsExactly(1);
  }

  @Test
  void aClientTooSlowToSendItsHeadOrBodyIsDisconnected() throws Exception {
    HttpObjectServer server =
        closing(
            HttpObjectServer.builder(fake)
                .export("fake")
                .secret(SECRET)
                .requestReadTimeout(Duration.ofMillis(300))
                .start());
    try (Socket head = open(server);
        Socket body = open(server)) {
      head.getOutputStream()
          .write(
              ("POST " + path("echo") + " HTTP/1.1\r\nHost: x\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      CallSignature.Headers auth = sign(path("echo"), new byte[10]);
      body.getOutputStream()
          .write(
              ("POST "
                      + path("echo")
                      + " HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n"
                      + CallSignature.KEY_ID
                      + ": "
                      + auth.keyId()
                      + "\r\n"
                      + CallSignature.DATE
                      + ": "
                      + auth.date()
                      + "\r\n"
                      + CallSignature.NONCE
                      + ": "
                      + auth.nonce()
                      + "\r\n"
                      + CallSignature.SIGNATURE
                      + ": "
                      + auth.signature()
                      + "\r\n\r\nabc")
                  .getBytes(StandardCharsets.US_ASCII));

      assertThat(readUntilClosed(head)).as("no head within the deadline").isEmpty();
      assertThat(readUntilClosed(body)).as("no full body within the deadline").isEmpty();
    }
    assertThat(fake.deliveries).isEmpty();
  }

  private static Socket open(HttpObjectServer server) throws IOException {
    Socket s = new Socket("127.0.0.1", server.actualPort());
    s.setSoTimeout(20_000); // a hang fails the test instead of blocking it forever
    return s;
  }

  /** Everything the server sends until it closes the connection. */
  private static String readUntilClosed(Socket s) throws IOException {
    InputStream in = s.getInputStream();
    try {
      return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    } catch (SocketTimeoutException e) {
      throw new AssertionError("the server did not close the connection within 20 s", e);
    } catch (java.net.SocketException e) {
      return ""; // reset by the server: closed too
    }
  }
}
