package io.anteroom.gateway.ticket;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.room.Ticket;
import java.nio.ByteBuffer;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class TicketBytesTest {
  static final Instant T = Instant.parse("2026-11-23T10:00:05Z");

  @Test
  void aTicketRoundTripsWithItsId() {
    Ticket t = new Ticket("shop", 42, 29_000_000, T, T.minusSeconds(60), 0);

    assertThat(TicketBytes.decode("shop", TicketBytes.encode(t))).isEqualTo(t);
  }

  @Test
  void aTicketWithoutAnIdIsNotATicket() {
    byte[] bytes = TicketBytes.encode(new Ticket("shop", 42, 29_000_000, T, null, 3));
    ByteBuffer.wrap(bytes).putLong(1, 0);

    assertThat(TicketBytes.decode("shop", bytes)).isNull();
  }

  @Test
  void versionOneTicketsKeepTheirPlaceAndGetAStableId() {
    byte[] admitted = v1(29_000_000, T, T.minusSeconds(60), 0);
    byte[] renewedLater = v1(29_000_000, T.plusSeconds(120), T.minusSeconds(60), 0);
    byte[] other = v1(29_000_000, T, T.minusSeconds(59), 0);

    Ticket a = TicketBytes.decode("shop", admitted);
    assertThat(a.bucketId()).isEqualTo(29_000_000);
    assertThat(a.acceptedAt()).isEqualTo(T.minusSeconds(60));
    assertThat(a.id()).isNotZero();
    // copies of one admitted v1 ticket, renewed or not, share an id; another admission does not
    assertThat(TicketBytes.decode("shop", renewedLater).id()).isEqualTo(a.id());
    assertThat(TicketBytes.decode("shop", other).id()).isNotEqualTo(a.id());
    assertThat(TicketBytes.decode("shop", v1(29_000_000, T, null, 5)).acceptedAt()).isNull();
  }

  @Test
  void otherLengthsAndVersionsAreNotTickets() {
    byte[] good = TicketBytes.encode(new Ticket("shop", 42, 29_000_000, T, null, 3));
    byte[] longer = java.util.Arrays.copyOf(good, good.length + 1);
    byte[] v3 = good.clone();
    v3[0] = 3;

    assertThat(TicketBytes.decode("shop", longer)).isNull();
    assertThat(TicketBytes.decode("shop", v3)).isNull();
    assertThat(TicketBytes.decode("shop", new byte[0])).isNull();
    assertThat(TicketBytes.decode("shop", null)).isNull();
  }

  static final long HOUR = 3_600_000;

  /** User 42's admitted ticket (accepted 10 minutes before T) as sealed at {@code checkIn}. */
  private static byte[] checkedIn(Instant checkIn) {
    return TicketBytes.encode(new Ticket("shop", 42, 29_000_000, checkIn, T.minusSeconds(600), 0));
  }

  @Test
  void aRenewalInTheCookiesMinuteCanWait() {
    byte[] sent = checkedIn(T);
    byte[] renewed = checkedIn(T.plusSeconds(50));

    assertThat(TicketBytes.renewalCanWait(sent, renewed, HOUR)).isTrue();
  }

  @Test
  void aRenewalInANewMinuteIsSealed() {
    byte[] sent = checkedIn(T);
    // T is 10:00:05: 55 s later is 10:01:00, the next minute, though less than a minute later
    byte[] renewed = checkedIn(T.plusSeconds(55));

    assertThat(TicketBytes.renewalCanWait(sent, renewed, HOUR)).isFalse();
  }

  @Test
  void aRenewalMoreThanASixtiethOfTheSessionAfterTheCookieIsSealed() {
    byte[] sent = checkedIn(T);
    byte[] second = checkedIn(T.plusMillis(999));
    byte[] later = checkedIn(T.plusSeconds(1));

    // a one-minute session: one second of it at most (a user seen every 20 s stays in)
    assertThat(TicketBytes.renewalCanWait(sent, second, 60_000)).isTrue();
    assertThat(TicketBytes.renewalCanWait(sent, later, 60_000)).isFalse();
  }

  @Test
  void aRenewalBeforeTheCookiesCheckInIsSealed() {
    byte[] sent = checkedIn(T.plusSeconds(2));
    byte[] renewed = checkedIn(T);

    assertThat(TicketBytes.renewalCanWait(sent, renewed, HOUR)).isFalse();
  }

  @Test
  void aRenewalThatChangesMoreThanTheCheckInTimeIsSealed() {
    Instant accepted = T.minusSeconds(600);
    Instant later = T.plusSeconds(1);
    byte[] sent = TicketBytes.encode(new Ticket("shop", 42, 29_000_000, T, accepted, 7));

    // the refresh slot key a queued ticket had is cleared on renewal: the cookie must say so
    assertThat(TicketBytes.renewalCanWait(sent, checkedIn(later), HOUR)).isFalse();
    assertThat(
            TicketBytes.renewalCanWait(
                sent,
                TicketBytes.encode(new Ticket("shop", 43, 29_000_000, later, accepted, 7)),
                HOUR))
        .isFalse();
    assertThat(
            TicketBytes.renewalCanWait(
                sent,
                TicketBytes.encode(new Ticket("shop", 42, 29_000_001, later, accepted, 7)),
                HOUR))
        .isFalse();
    assertThat(
            TicketBytes.renewalCanWait(
                sent, TicketBytes.encode(new Ticket("shop", 42, 29_000_000, later, T, 7)), HOUR))
        .isFalse();
  }

  @Test
  void aVersionOneTicketOrNoTicketIsAlwaysSealed() {
    Instant accepted = T.minusSeconds(600);
    byte[] old = v1(29_000_000, T, accepted, 0);
    long id = TicketBytes.decode("shop", old).id();
    byte[] renewed =
        TicketBytes.encode(new Ticket("shop", id, 29_000_000, T.plusSeconds(1), accepted, 0));

    assertThat(TicketBytes.renewalCanWait(old, renewed, HOUR)).isFalse();
    assertThat(TicketBytes.renewalCanWait(null, renewed, HOUR)).isFalse();
  }

  private static byte[] v1(long bucket, Instant checkIn, Instant accepted, long key) {
    return ByteBuffer.allocate(33)
        .put((byte) 1)
        .putLong(bucket)
        .putLong(checkIn.toEpochMilli())
        .putLong(accepted == null ? -1 : accepted.toEpochMilli())
        .putLong(key)
        .array();
  }
}
