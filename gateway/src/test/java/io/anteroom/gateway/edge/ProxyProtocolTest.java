package io.anteroom.gateway.edge;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.gateway.Harness;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The PROXY protocol (v1 text, v2 binary) behind a layer-4 load balancer: the address its header
 * claims is the client's (for {@code X-Forwarded-For} and {@code cidr} bypass rules) only when the
 * connection's TCP peer is in {@code trustedProxies}; a connection from any other peer is closed
 * before its request is read. The tests' peer is always 127.0.0.1: trusted with 127.0.0.1/32, not
 * with 10.0.0.0/8.
 */
class ProxyProtocolTest {

  @TempDir Path dataDir;

  /** Everybody is queued but staff on 10.0.0.0/8. */
  private static final String ROOM =
      """
      proxyProtocol: true
      rooms: [ { id: shop, queueAll: true, bypass: [ { cidr: 10.0.0.0/8 } ] } ]
      """;

  private static final String TRUSTED = "trustedProxies: [ 127.0.0.1/32 ]\n" + ROOM;

  private static final String UNTRUSTED = "trustedProxies: [ 10.0.0.0/8 ]\n" + ROOM;

  /** A request that also tries to name its own address. */
  private static final String REQUEST =
      "GET /x HTTP/1.1\r\nHost: shop\r\nX-Forwarded-For: 10.1.1.1\r\nConnection: close\r\n\r\n";

  static byte[] v1(String client) {
    return ("PROXY TCP4 " + client + " 127.0.0.1 51000 8080\r\n")
        .getBytes(StandardCharsets.US_ASCII);
  }

  /** A PROXY v2 header: PROXY command, TCP over IPv4, {@code client}:51000 to 127.0.0.1:8080. */
  static byte[] v2(String client) throws Exception {
    var out = new ByteArrayOutputStream();
    out.write(new byte[] {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A});
    out.write(0x21); // version 2, PROXY
    out.write(0x11); // AF_INET, STREAM
    out.write(new byte[] {0, 12});
    out.write(java.net.InetAddress.getByName(client).getAddress());
    out.write(new byte[] {127, 0, 0, 1});
    out.write(ByteBuffer.allocate(4).putShort((short) 51000).putShort((short) 8080).array());
    return out.toByteArray();
  }

  private static Wire.Response viaProxy(Harness h, byte[] header) throws Exception {
    try (var wire = new Wire(h.gateway.port())) {
      return wire.send(header).send(REQUEST).read();
    }
  }

  @Test
  void aTrustedProxysV1HeaderNamesTheClient() throws Exception {
    try (var h = new Harness(dataDir, TRUSTED)) {
      // staff behind the balancer: bypassed, and the origin sees the address the header claimed
      assertThat(viaProxy(h, v1("10.9.9.9")).body()).isEqualTo("origin:/x:");
      assertThat(h.origin.lastHeaders).containsEntry("x-forwarded-for", "10.9.9.9");
      // anybody else is queued: the header, not the client's X-Forwarded-For, names it
      assertThat(viaProxy(h, v1("203.0.113.9")).body()).doesNotStartWith("origin:");
      assertThat(h.origin.received).hasSize(1);
    }
  }

  @Test
  void aTrustedProxysV2HeaderNamesTheClient() throws Exception {
    try (var h = new Harness(dataDir, TRUSTED)) {
      assertThat(viaProxy(h, v2("10.9.9.9")).body()).isEqualTo("origin:/x:");
      assertThat(h.origin.lastHeaders).containsEntry("x-forwarded-for", "10.9.9.9");
      assertThat(viaProxy(h, v2("203.0.113.9")).body()).doesNotStartWith("origin:");
    }
  }

  @Test
  void aPeerThatIsNotATrustedProxyIsRefusedWhateverItsHeaderClaims() throws Exception {
    try (var h = new Harness(dataDir, UNTRUSTED)) {
      for (byte[] header : new byte[][] {v1("10.9.9.9"), v2("10.9.9.9")}) {
        try (var wire = new Wire(h.gateway.port())) {
          assertThat(
                  wire.closedByServerAfterSending(
                      header, REQUEST.getBytes(StandardCharsets.ISO_8859_1)))
              .isTrue();
        }
      }
      assertThat(h.origin.received).isEmpty();
    }
  }

  @Test
  void aConnectionWithoutAProxyHeaderIsClosed() throws Exception {
    try (var h = new Harness(dataDir, TRUSTED);
        var wire = new Wire(h.gateway.port())) {
      wire.send(REQUEST);
      assertThat(wire.closedByServer()).isTrue();
      assertThat(h.origin.received).isEmpty();
    }
  }
}
