package io.anteroom.door.route;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ClientAddressTest {

  @Test
  void onlyTrustedProxiesMayNameTheClientInAProxyHeader() {
    var clients = new ClientAddress(List.of("10.0.0.0/8", "2001:db8::/32"));
    assertThat(clients.mayNameClient("10.1.2.3")).isTrue();
    assertThat(clients.mayNameClient("2001:db8::7")).isTrue();
    assertThat(clients.mayNameClient("127.0.0.1")).isFalse();
    assertThat(clients.mayNameClient("203.0.113.9")).isFalse();
    assertThat(clients.mayNameClient(null)).isFalse();
    assertThat(new ClientAddress(List.of()).mayNameClient("10.1.2.3")).isFalse();
  }

  private static final ClientAddress BEHIND_PROXIES =
      new ClientAddress(List.of("10.0.0.0/8", "2001:db8:aa::/48"));

  private static String client(String... forwardedFor) {
    return BEHIND_PROXIES.client("10.0.0.1", List.of(forwardedFor));
  }

  @Test
  void theClientIsTheFirstAddressFromTheRightThatIsNotATrustedProxy() {
    assertThat(client("203.0.113.9")).isEqualTo("203.0.113.9");
    assertThat(client("198.51.100.1, 203.0.113.9, 10.0.0.2")).isEqualTo("203.0.113.9");
    assertThat(client("198.51.100.1", "203.0.113.9")).isEqualTo("203.0.113.9");
    assertThat(client("10.0.0.3, 10.0.0.2")).as("all trusted: the left-most").isEqualTo("10.0.0.3");
    assertThat(BEHIND_PROXIES.client("203.0.113.7", List.of("10.9.9.9")))
        .as("an untrusted peer names nobody else")
        .isEqualTo("203.0.113.7");
  }

  @Test
  void anEntryWithAPortIsItsAddress() {
    assertThat(client("203.0.113.9:4711")).isEqualTo("203.0.113.9");
    assertThat(client("[2001:db8::9]:4711")).isEqualTo("2001:db8::9");
    assertThat(client("[2001:db8::9]")).isEqualTo("2001:db8::9");
    assertThat(client("2001:db8::9")).isEqualTo("2001:db8::9");
    assertThat(client("203.0.113.9, [2001:db8:aa::1]:443, 10.0.0.2:80")).isEqualTo("203.0.113.9");
  }

  @Test
  void anEntryThatIsNotAnAddressMakesTheClientUnknownNeverTheProxy() {
    for (String entry :
        List.of(
            "unknown",
            "_hidden",
            "shop.example",
            "",
            " ",
            "999.1.1.1",
            "1.2.3",
            "203.0.113.9:",
            "203.0.113.9:65536",
            "203.0.113.9:http",
            "[203.0.113.9]:80",
            "[2001:db8::9",
            "[2001:db8::9]:",
            "[2001:db8::9]x",
            "1:2:3:4:5:6:7:8:9",
            "fe80::1%eth0",
            ":80")) {
      assertThat(client(entry)).as(entry).isNull();
      assertThat(client(entry + ", 10.0.0.2")).as(entry + " behind a second proxy").isNull();
    }
    assertThat(client()).as("no X-Forwarded-For from a trusted peer").isNull();
    assertThat(client("203.0.113.9,")).as("an empty last entry").isNull();
    assertThat(client("unknown, 203.0.113.9"))
        .as("garbage left of the client is the client's own")
        .isEqualTo("203.0.113.9");
  }
}
