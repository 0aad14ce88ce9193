package io.anteroom.room;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** How a ticket says whether its admission's pass was used at the origin (reports' passesUsed). */
class PassUseTest {

  static final Instant ADMITTED = Instant.parse("2026-11-22T10:00:05Z");
  static final Ticket FRESH = new Ticket("shop", 7, 1, ADMITTED, ADMITTED, 0);

  @Test
  void aTicketAdmittedAndNotRenewedSinceIsUnusedAndMarkingItMakesItUsedInTheSameMinute() {
    assertThat(FRESH.unused()).isTrue();
    Ticket used = FRESH.markedUsed();
    assertThat(used.unused()).isFalse();
    assertThat(used.lastCheckInTime()).isEqualTo(ADMITTED.plusMillis(1));
    assertThat(used.markedUsed()).as("marked once").isSameAs(used);
    assertThat(new Ticket("shop", 7, 1, ADMITTED, null, 3).unused()).as("waiting").isFalse();
  }

  @Test
  void aTicketAdmittedInTheMinutesLastMillisecondIsNotMovedIntoTheNextMinute() {
    Instant edge = Instant.parse("2026-11-22T10:00:59.999Z");
    Ticket t = new Ticket("shop", 7, 1, edge, edge, 0);
    assertThat(t.markedUsed()).isSameAs(t);
  }

  @Test
  void theFirstUseOfAnAdmissionIsAlwaysSealedSoItsNextRequestIsNotAFirstUseAgain() {
    Ticket renewed = new Ticket("shop", 7, 1, ADMITTED.plusSeconds(2), ADMITTED, 0);
    assertThat(Ticket.renewalCanWait(FRESH, renewed, Duration.ofMinutes(30))).isFalse();
    Ticket sealed = renewed;
    Ticket later = new Ticket("shop", 7, 1, ADMITTED.plusSeconds(3), ADMITTED, 0);
    assertThat(Ticket.renewalCanWait(sealed, later, Duration.ofMinutes(30)))
        .as("a used ticket's renewals may wait as before")
        .isTrue();
  }
}
