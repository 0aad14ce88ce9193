package io.anteroom.pass;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.StringLength;

class PassPropertiesTest {
  static final PassKeys KEYS = PassKeys.generate();
  static final MutableClock CLOCK = new MutableClock(PassIssuerTest.NOW);
  static final PassIssuer ISSUER = PassIssuer.builder(KEYS).clock(CLOCK).build();
  static final long NOW = PassIssuerTest.NOW.toEpochMilli();

  static PassVerifier verifierFor(String room) {
    return PassVerifier.builder().keys(KEYS).rooms(room).clock(CLOCK).cacheSlots(1).build();
  }

  @Property(tries = 100)
  void everyRoomEventAndTicketRoundTrips(
      @ForAll @StringLength(min = 1, max = 40) String room,
      @ForAll @StringLength(max = 40) String event,
      @ForAll long ticketId,
      @ForAll @IntRange(min = 0, max = 86_400) int admittedSecondsAgo) {
    long admitted = NOW - admittedSecondsAgo * 1000L;

    Pass pass =
        verifierFor(room)
            .requireValid(ISSUER.passFor(room, event, ticketId, admitted, NOW + 600_000));

    assertThat(pass.room()).isEqualTo(room);
    assertThat(pass.event()).contains(event);
    assertThat(pass.passId()).isEqualTo(ISSUER.passId(room, ticketId));
    assertThat(pass.admittedAt().toEpochMilli()).isEqualTo(Math.floorDiv(admitted, 1000) * 1000);
    assertThat(pass.expiresAt()).isEqualTo(PassIssuerTest.NOW.plus(Duration.ofMinutes(5)));
  }

  @Property(tries = 100)
  void changingAnyCharacterOfTheSignedPartsIsRefused(
      @ForAll("passes") String pass,
      @ForAll @IntRange(min = 0, max = 10_000) int at,
      @ForAll("base64url") char replacement) {
    int signed = pass.lastIndexOf('.');
    int i = at % signed;
    Assume.that(pass.charAt(i) != '.' && pass.charAt(i) != replacement);
    String changed = pass.substring(0, i) + replacement + pass.substring(i + 1);

    assertThat(verifierFor("shop").verify(changed)).isInstanceOf(PassCheck.Refused.class);
  }

  @Property(tries = 100)
  void changingAnyFullCharacterOfTheSignatureIsRefused(
      @ForAll("passes") String pass,
      @ForAll @IntRange(min = 0, max = 84) int at,
      @ForAll("base64url") char replacement) {
    // 64 bytes are 86 base64url characters; the last one carries 4 bits and 2 unused ones
    int i = pass.lastIndexOf('.') + 1 + at;
    Assume.that(pass.charAt(i) != replacement);
    String changed = pass.substring(0, i) + replacement + pass.substring(i + 1);

    assertThat(verifierFor("shop").verify(changed)).isInstanceOf(PassCheck.Refused.class);
  }

  @Property(tries = 1000)
  void anyStringAClientSendsIsRefusedWithoutAnException(@ForAll String header) {
    assertThat(verifierFor("shop").verify(header)).isInstanceOf(PassCheck.Refused.class);
  }

  @Property(tries = 1000)
  void distinctTicketsHaveDistinctPassIds(@ForAll long a, @ForAll long b) {
    Assume.that(a != b);

    assertThat(ISSUER.passId("shop", a)).isNotEqualTo(ISSUER.passId("shop", b));
  }

  @Provide
  Arbitrary<String> passes() {
    return Arbitraries.longs()
        .map(ticket -> ISSUER.passFor("shop", "launch", ticket, NOW - 60_000, NOW + 600_000));
  }

  @Provide
  Arbitrary<Character> base64url() {
    return Arbitraries.chars().alpha().numeric().with('-', '_');
  }
}
