package io.anteroom.gateway.edge;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.door.route.ClientAddress;
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
}
