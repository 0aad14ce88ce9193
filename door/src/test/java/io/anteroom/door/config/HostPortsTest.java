package io.anteroom.door.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.anteroom.door.config.GatewayConfig.HostPort;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The one HOST:PORT reader of the configuration file and the command line. */
class HostPortsTest {

  @Test
  void aHostAndAPortAreRead() {
    assertThat(HostPorts.parse("127.0.0.1:8080")).isEqualTo(new HostPort("127.0.0.1", 8080));
    assertThat(HostPorts.parse("0.0.0.0:443")).isEqualTo(new HostPort("0.0.0.0", 443));
    assertThat(HostPorts.parse("gw-1.example.com:80"))
        .isEqualTo(new HostPort("gw-1.example.com", 80));
    assertThat(HostPorts.parse("localhost:65535")).isEqualTo(new HostPort("localhost", 65535));
  }

  @Test
  void portZeroMeansAnyFreePort() {
    assertThat(HostPorts.parse("127.0.0.1:0")).isEqualTo(new HostPort("127.0.0.1", 0));
  }

  @Test
  void anIpv6AddressInBracketsKeepsItsBrackets() {
    assertThat(HostPorts.parse("[::1]:8080")).isEqualTo(new HostPort("[::1]", 8080));
    assertThat(HostPorts.parse("[::]:7070")).isEqualTo(new HostPort("[::]", 7070));
    assertThat(HostPorts.parse("[2001:db8::7]:9090"))
        .isEqualTo(new HostPort("[2001:db8::7]", 9090));
    assertThat(HostPorts.parse("[fe80::1%eth0]:80")).isEqualTo(new HostPort("[fe80::1%eth0]", 80));
    assertThat(HostPorts.parse("[::ffff:127.0.0.1]:80"))
        .isEqualTo(new HostPort("[::ffff:127.0.0.1]", 80));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "nowhere|no port",
        "127.0.0.1|no port",
        "127.0.0.1:|no port",
        ":8080|no host",
        "127.0.0.1:65536|port 65536 is above 65535",
        "127.0.0.1:99999|port 99999 is above 65535",
        "127.0.0.1:-1|the port is not a number",
        "127.0.0.1:+80|the port is not a number",
        "127.0.0.1:80a|the port is not a number",
        "127.0.0.1:123456|the port is not a number",
        "127.0.0.1: 80|the port is not a number",
        "::1:8080|write an IPv6 address in brackets",
        "[::1:8080|is not an IPv6 address in brackets",
        "::1]:8080|is not an IPv6 address in brackets",
        "[]:8080|is not an IPv6 address in brackets",
        "[localhost]:8080|is not an IPv6 address in brackets",
        "[fe80::1%]:80|is not an IPv6 address in brackets",
        "http://example.com:80|write an IPv6 address in brackets",
        "exa mple.com:80|is not a host name or address",
        "host/path:80|is not a host name or address",
        "$%&:80|is not a host name or address",
      })
  void oddInputIsRefusedSayingWhy(String value, String why) {
    assertThatThrownBy(() -> HostPorts.parse(value))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("\"" + value + "\" is not host:port (")
        .hasMessageContaining(why)
        .hasMessageEndingWith("e.g. 127.0.0.1:8080 or [::1]:8080; port 0 to 65535)");
  }

  @Test
  void emptyAndMissingValuesAreRefused() {
    assertThatThrownBy(() -> HostPorts.parse(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("\"\" is not host:port (no port");
    assertThatThrownBy(() -> HostPorts.parse(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no value");
  }

  @Test
  void aCommandLineOptionIsNamedInFrontAsAConfigKeyIs() {
    assertThat(HostPorts.parse("--listen", "[::1]:0")).isEqualTo(new HostPort("[::1]", 0));
    assertThatThrownBy(() -> HostPorts.parse("--status-listen", "127.0.0.1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "--status-listen: \"127.0.0.1\" is not host:port (no port; e.g. 127.0.0.1:8080 or"
                + " [::1]:8080; port 0 to 65535)");
  }

  @Test
  void theConfigurationFileSaysTheKeyAndKeepsReadingTheRest() {
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    """
                    listen: "[::1:8080"
                    admin: { listen: "127.0.0.1:70000" }
                    origin: http://127.0.0.1:9
                    """,
                    "x"))
        .hasMessageContaining(
            "listen: \"[::1:8080\" is not host:port (\"[::1\" is not an IPv6 address in brackets;")
        .hasMessageContaining(
            "admin.listen: \"127.0.0.1:70000\" is not host:port (port 70000 is above 65535;");
  }
}
