package io.anteroom.door.ticket;

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

  @Test
  void onlyTheCurrentLayoutCountsAsCurrent() {
    Instant accepted = T.minusSeconds(600);
    assertThat(TicketBytes.currentLayout(v1(29_000_000, T, accepted, 0))).isFalse();
    assertThat(
            TicketBytes.currentLayout(
                TicketBytes.encode(new Ticket("shop", 42, 29_000_000, T, accepted, 0))))
        .isTrue();
    assertThat(TicketBytes.currentLayout(null)).isFalse();
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
