package io.anteroom.objects.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** "A secret unless loopback": the one rule every unauthenticated endpoint is checked against. */
class LoopbackRuleTest {

  @Test
  void loopbackAddressesAndLocalhostNameOnlyThisMachine() {
    assertThat(LoopbackRule.isLoopback("127.0.0.1")).isTrue();
    assertThat(LoopbackRule.isLoopback("127.3.2.1")).isTrue();
    assertThat(LoopbackRule.isLoopback("::1")).isTrue();
    assertThat(LoopbackRule.isLoopback("[::1]")).isTrue();
    assertThat(LoopbackRule.isLoopback("localhost")).isTrue();
  }

  @Test
  void wildcardPrivateEmptyAndUnresolvableHostsAreNotLoopback() {
    assertThat(LoopbackRule.isLoopback("0.0.0.0")).isFalse();
    assertThat(LoopbackRule.isLoopback("::")).isFalse();
    assertThat(LoopbackRule.isLoopback("[::]")).isFalse();
    assertThat(LoopbackRule.isLoopback("10.1.2.3")).isFalse();
    assertThat(LoopbackRule.isLoopback("")).isFalse();
    assertThat(LoopbackRule.isLoopback("[]")).isFalse();
    assertThat(LoopbackRule.isLoopback("no-such-host.invalid")).isFalse();
  }

  @Test
  void anUnauthenticatedEndpointBeyondLoopbackIsRefusedInTheCallersWords() {
    assertThatThrownBy(() -> LoopbackRule.require(false, "0.0.0.0", () -> "give a secret"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("give a secret");
    assertThatThrownBy(() -> LoopbackRule.require(false, "10.1.2.3", () -> "give a secret"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void anUnauthenticatedEndpointOnLoopbackIsAllowed() {
    assertThatCode(() -> LoopbackRule.require(false, "127.0.0.1", () -> "refused"))
        .doesNotThrowAnyException();
    assertThatCode(() -> LoopbackRule.require(false, "[::1]", () -> "refused"))
        .doesNotThrowAnyException();
  }

  @Test
  void anAuthenticatedEndpointIsAllowedAnywhere() {
    assertThatCode(() -> LoopbackRule.require(true, "0.0.0.0", () -> "refused"))
        .doesNotThrowAnyException();
    assertThatCode(() -> LoopbackRule.require(true, "10.1.2.3", () -> "refused"))
        .doesNotThrowAnyException();
  }
}
