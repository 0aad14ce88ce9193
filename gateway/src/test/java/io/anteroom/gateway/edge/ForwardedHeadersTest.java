package io.anteroom.gateway.edge;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.gateway.Harness;
import io.anteroom.gateway.RawHttp;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code X-Forwarded-*} headers are believed only from trusted proxies: a client cannot name
 * another address, scheme or host for itself, to the origin or to {@code cidr} bypass rules.
 */
class ForwardedHeadersTest {

  @TempDir Path dataDir;

  private static final String SPOOF =
      """
      GET /x HTTP/1.1
      Host: shop.example
      X-Forwarded-For: 10.1.2.3
      X-Forwarded-For: 203.0.113.9
      X-Forwarded-Proto: https
      X-Forwarded-Host: admin.example
      Forwarded: for=10.1.2.3
      Connection: close""";

  /** Every user is queued, except staff on 10.0.0.0/8. */
  private static final String ROOM =
      """
      rooms: [ { id: shop, queueAll: true, bypass: [ { cidr: 10.0.0.0/8 } ] } ]
      """;

  @Test
  void aClientsOwnForwardedHeadersAreReplacedNotAppendedTo() throws Exception {
    try (var h = new Harness(dataDir, "rooms: [ { id: shop } ]")) {
      assertThat(RawHttp.send(h.gateway.port(), SPOOF).body()).startsWith("origin:");
      assertThat(h.origin.lastHeaders)
          .containsEntry("x-forwarded-for", "127.0.0.1")
          .containsEntry("x-forwarded-proto", "http")
          .containsEntry("x-forwarded-host", "shop.example")
          .doesNotContainKey("forwarded");
    }
  }

  @Test
  void aCidrBypassCannotBeClaimedWithXForwardedFor() throws Exception {
    try (var h = new Harness(dataDir, ROOM)) {
      assertThat(RawHttp.send(h.gateway.port(), SPOOF).body()).doesNotStartWith("origin:");
      assertThat(h.origin.received).isEmpty();
    }
  }

  @Test
  void aTrustedProxysForwardedHeadersAreBelievedAndAppendedTo() throws Exception {
    try (var h = new Harness(dataDir, "trustedProxies: [ 127.0.0.0/8 ]\n" + ROOM)) {
      // the proxy says the client is 203.0.113.9 (the last hop it added): not staff, queued
      assertThat(RawHttp.send(h.gateway.port(), SPOOF).body()).doesNotStartWith("origin:");
      // a staff member behind the proxy is bypassed, and the origin sees the whole chain
      String staff = SPOOF.replace("X-Forwarded-For: 203.0.113.9", "X-Forwarded-For: 10.9.9.9");
      assertThat(RawHttp.send(h.gateway.port(), staff).body()).startsWith("origin:");
      assertThat(h.origin.lastHeaders)
          .containsEntry("x-forwarded-for", "10.1.2.3, 10.9.9.9, 127.0.0.1")
          .containsEntry("x-forwarded-proto", "https")
          .containsEntry("x-forwarded-host", "admin.example");
    }
  }

  /**
   * Behind a trusted proxy, a {@code cidr} rule covering the proxies' network lets only clients of
   * that network skip the room: a right-most entry the proxy wrote that is not a plain address is
   * parsed (with a port) or makes the client unknown, never the proxy itself.
   */
  @Test
  void aTrustedProxysEntryThatIsNotAPlainAddressNeverMakesTheProxyTheClient() throws Exception {
    String config =
        """
        trustedProxies: [ 127.0.0.1/32 ]
        rooms: [ { id: shop, queueAll: true, bypass: [ { cidr: 127.0.0.0/8 } ] } ]
        """;
    try (var h = new Harness(dataDir, config)) {
      for (String header :
          List.of(
              "X-Forwarded-For: unknown\n",
              "X-Forwarded-For: 10.9.9.9, unknown\n",
              "X-Forwarded-For: 203.0.113.9:4711\n",
              "X-Forwarded-For: [2001:db8::9]:4711\n",
              "X-Forwarded-For: [2001:db8::9]\n",
              "X-Forwarded-For: _hidden\n",
              "X-Forwarded-For: shop.example\n",
              "X-Forwarded-For: 999.1.1.1\n",
              "X-Forwarded-For: 127.0.0.9:99999\n",
              "X-Forwarded-For: \n",
              "X-Forwarded-For: 127.0.0.9,\n",
              "")) {
        var response = RawHttp.send(h.gateway.port(), request(header));
        assertThat(response.body()).as(header).doesNotStartWith("origin:");
      }
      assertThat(h.origin.received).isEmpty();
      // the same rule lets a client of that network in, named with its port
      var staff = RawHttp.send(h.gateway.port(), request("X-Forwarded-For: 127.0.0.9:4711\n"));
      assertThat(staff.body()).startsWith("origin:");
    }
  }

  private static String request(String forwardedFor) {
    return "GET /x HTTP/1.1\nHost: shop.example\n" + forwardedFor + "Connection: close\n";
  }
}
