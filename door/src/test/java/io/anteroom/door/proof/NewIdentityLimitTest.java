package io.anteroom.door.proof;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.door.match.Cidr;
import org.junit.jupiter.api.Test;

class NewIdentityLimitTest {

  @Test
  void aPrefixGetsABurstOfItsRateThenOneEverySixtyOverRateSeconds() {
    var limit = new NewIdentityLimit(3, 100);
    assertThat(limit.take("a", 0)).isZero();
    assertThat(limit.take("a", 0)).isZero();
    assertThat(limit.take("a", 0)).isZero();
    assertThat(limit.take("a", 0)).as("over: retry in 20 s").isEqualTo(20);
    assertThat(limit.take("b", 0)).as("another prefix has its own budget").isZero();
    assertThat(limit.take("a", 19_000)).as("refused takes nothing").isEqualTo(1);
    assertThat(limit.take("a", 20_000)).isZero();
    assertThat(limit.take("a", 20_000)).isEqualTo(20);
    assertThat(limit.take("a", 10 * 60_000)).as("refilled, never above the rate").isZero();
    assertThat(limit.take("a", 10 * 60_000)).isZero();
    assertThat(limit.take("a", 10 * 60_000)).isZero();
    assertThat(limit.take("a", 10 * 60_000)).isPositive();
  }

  @Test
  void memoryStaysBoundedUnderAFloodOfDistinctPrefixesAndForgettingOnlyRefills() {
    var limit = new NewIdentityLimit(1, NewIdentityLimit.DEFAULT_CAPACITY);
    assertThat(limit.take("victim-of-its-own-bot", 0)).isZero();
    assertThat(limit.take("victim-of-its-own-bot", 0)).isPositive();
    for (int i = 0; i < 300_000; i++) {
      limit.take("flood-" + i, 1);
    }
    assertThat(limit.size()).isEqualTo(NewIdentityLimit.DEFAULT_CAPACITY);
    assertThat(limit.take("flood-299999", 1)).as("the recent ones are remembered").isPositive();
  }

  @Test
  void addressesAreGroupedByTheirPrefix() {
    assertThat(Cidr.prefixOf("203.0.113.77", 24, 64)).isEqualTo("203.0.113.0/24");
    assertThat(Cidr.prefixOf("203.0.113.77", 32, 64)).isEqualTo("203.0.113.77/32");
    assertThat(Cidr.prefixOf("2001:db8:1:2:aaaa:bbbb:cccc:dddd", 32, 64))
        .isEqualTo(Cidr.prefixOf("2001:db8:1:2::1", 32, 64))
        .isEqualTo("2001:db8:1:2:0:0:0:0/64");
    assertThat(Cidr.prefixOf("2001:db8:1:3::1", 32, 64)).isEqualTo("2001:db8:1:3:0:0:0:0/64");
    assertThat(Cidr.prefixOf("::ffff:203.0.113.77", 24, 64))
        .as("an IPv4-mapped address is its IPv4 address")
        .isEqualTo("203.0.113.0/24");
    assertThat(Cidr.prefixOf("unknown", 24, 64)).isNull();
    assertThat(Cidr.prefixOf("example.com", 24, 64)).as("never a DNS lookup").isNull();
  }
}
