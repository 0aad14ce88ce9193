package io.anteroom.room;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** When a renewed admitted ticket may wait to be sealed ({@link Ticket#renewalCanWait}). */
class TicketRenewalTest {

  static final Instant T = Instant.parse("2025-03-01T10:00:05Z");
  static final Duration HOUR = Duration.ofHours(1);

  /** User 42's admitted ticket (accepted 10 minutes before T) as checked in at {@code checkIn}. */
  private static Ticket checkedIn(Instant checkIn) {
    return new Ticket("shop", 42, 29_000_000, checkIn, T.minusSeconds(600), 0);
  }

  @Test
  void aRenewalInTheCookiesMinuteCanWait() {
    assertThat(Ticket.renewalCanWait(checkedIn(T), checkedIn(T.plusSeconds(50)), HOUR)).isTrue();
  }

  @Test
  void aRenewalInANewMinuteIsSealed() {
    // T is 10:00:05: 55 s later is 10:01:00, the next minute, though less than a minute later
    assertThat(Ticket.renewalCanWait(checkedIn(T), checkedIn(T.plusSeconds(55)), HOUR)).isFalse();
  }

  @Test
  void aRenewalMoreThanASixtiethOfTheSessionAfterTheCookieIsSealed() {
    Duration minute = Duration.ofMinutes(1);
    // a one-minute session: one second of it at most (a user seen every 20 s stays in)
    assertThat(Ticket.renewalCanWait(checkedIn(T), checkedIn(T.plusMillis(999)), minute)).isTrue();
    assertThat(Ticket.renewalCanWait(checkedIn(T), checkedIn(T.plusSeconds(1)), minute)).isFalse();
  }

  @Test
  void aRenewalBeforeTheCookiesCheckInIsSealed() {
    assertThat(Ticket.renewalCanWait(checkedIn(T.plusSeconds(2)), checkedIn(T), HOUR)).isFalse();
  }

  @Test
  void aRenewalThatChangesMoreThanTheCheckInTimeIsSealed() {
    Instant accepted = T.minusSeconds(600);
    Instant later = T.plusSeconds(1);
    Ticket sent = new Ticket("shop", 42, 29_000_000, T, accepted, 7);

    // the refresh slot key a queued ticket had is cleared on renewal: the cookie must say so
    assertThat(Ticket.renewalCanWait(sent, checkedIn(later), HOUR)).isFalse();
    assertThat(
            Ticket.renewalCanWait(
                sent, new Ticket("shop", 43, 29_000_000, later, accepted, 7), HOUR))
        .isFalse();
    assertThat(
            Ticket.renewalCanWait(
                sent, new Ticket("shop", 42, 29_000_001, later, accepted, 7), HOUR))
        .isFalse();
    assertThat(Ticket.renewalCanWait(sent, new Ticket("shop", 42, 29_000_000, later, T, 7), HOUR))
        .isFalse();
  }

  @Test
  void noTicketIsAlwaysSealed() {
    assertThat(Ticket.renewalCanWait(null, checkedIn(T), HOUR)).isFalse();
  }
}
