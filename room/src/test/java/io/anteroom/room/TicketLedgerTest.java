package io.anteroom.room;

import static io.anteroom.room.Fixtures.at;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class TicketLedgerTest {
  static final Instant NOW = at("2026-01-01T10:00:10Z");
  static final long M = Minutes.minuteOf(NOW);

  @Test
  void aWaitingIdIsJustAdmittedWithinTheGraceThenAdmittedBefore() {
    var ledger = new TicketLedger();
    assertThat(ledger.waitingStatus(7, NOW)).isEqualTo(TicketLedger.WaitingStatus.WAITING);

    ledger.recordAdmission(7, NOW, M + 10, M + 11);

    assertThat(ledger.waitingStatus(7, NOW.plusSeconds(29)))
        .isEqualTo(TicketLedger.WaitingStatus.JUST_ADMITTED);
    assertThat(ledger.waitingStatus(7, NOW.plus(TicketLedger.RACE_GRACE)))
        .isEqualTo(TicketLedger.WaitingStatus.ADMITTED_BEFORE);
  }

  @Test
  void entriesAreDroppedOnceTheirTicketCannotBeValid() {
    var ledger = new TicketLedger();
    ledger.recordAdmission(7, NOW, M + 10, M + 11);

    assertThat(ledger.waitingStatus(7, NOW.plusSeconds(11 * 60)))
        .isEqualTo(TicketLedger.WaitingStatus.ADMITTED_BEFORE);
    ledger.revoked(1); // any call in a later minute prunes
    assertThat(ledger.renewFrom(8, M + 20, M + 21, NOW.plusSeconds(12 * 60))).isEqualTo(M + 20);

    assertThat(ledger.size()).isEqualTo(1); // 7 dropped, 8 remembered
    assertThat(ledger.waitingStatus(7, NOW.plusSeconds(12 * 60)))
        .isEqualTo(TicketLedger.WaitingStatus.WAITING);
  }

  @Test
  void aRenewalMovesForwardOnlyFromTheLaterOfLedgerAndCookie() {
    var ledger = new TicketLedger();
    ledger.recordAdmission(7, NOW, M + 10, M + 11);

    assertThat(ledger.renewFrom(7, M + 10, M + 10, NOW)).isEqualTo(TicketLedger.NOTHING);
    assertThat(ledger.renewFrom(7, M + 10, M + 11, NOW.plusSeconds(60))).isEqualTo(M + 10);
    // a stale cookie: counted at M + 11 already
    assertThat(ledger.renewFrom(7, M + 10, M + 11, NOW.plusSeconds(61)))
        .isEqualTo(TicketLedger.NOTHING);
    // a cookie renewed elsewhere says later than the ledger: it is believed
    assertThat(ledger.renewFrom(7, M + 13, M + 14, NOW.plusSeconds(240))).isEqualTo(M + 13);
  }

  @Test
  void aRenewalIsCountedThroughOnlyWhereRenewFromWouldChangeNothing() {
    var ledger = new TicketLedger();
    assertThat(ledger.countedThrough(7, M + 10, M + 10, M)).as("unknown id").isFalse();
    ledger.recordAdmission(7, NOW, M + 10, M + 11);

    assertThat(ledger.countedThrough(7, M + 10, M + 10, M)).isTrue();
    assertThat(ledger.renewFrom(7, M + 10, M + 10, NOW)).isEqualTo(TicketLedger.NOTHING);
    assertThat(ledger.countedThrough(7, M + 10, M + 11, M)).as("the count would move").isFalse();
    assertThat(ledger.countedThrough(7, M + 12, M + 10, M))
        .as("a cookie renewed elsewhere says later: the ledger learns it under its lock")
        .isFalse();
    assertThat(ledger.countedThrough(7, M + 10, M + 10, M + 1))
        .as("a new minute: pruning is due first")
        .isFalse();

    assertThat(ledger.renewFrom(7, M + 10, M + 11, NOW.plusSeconds(60))).isEqualTo(M + 10);
    assertThat(ledger.countedThrough(7, M + 10, M + 11, M + 1))
        .as("after the move, a stale copy of the old cookie changes nothing either")
        .isTrue();
  }

  @Test
  void aSessionIsRevokedOnce() {
    var ledger = new TicketLedger();
    ledger.recordAdmission(7, NOW, M + 10, M + 11);

    assertThat(ledger.revoke(7, M + 10, NOW)).isEqualTo(M + 10);
    assertThat(ledger.revoked(7)).isTrue();
    assertThat(ledger.revoke(7, M + 10, NOW)).isEqualTo(TicketLedger.NOTHING);
  }

  @Test
  void aSessionIsRevokedUntilReadmittedOrForgottenAndOthersNeverAre() {
    var ledger = new TicketLedger();
    ledger.recordAdmission(7, NOW, M + 10, M + 11);
    ledger.recordAdmission(8, NOW, M + 10, M + 11);
    ledger.recordAdmission(9, NOW, M + 30, M + 31);
    assertThat(ledger.revoked(7)).as("nothing ended yet").isFalse();

    ledger.revoke(7, M + 10, NOW);
    ledger.revoke(9, M + 30, NOW);
    assertThat(ledger.revoked(7)).isTrue();
    assertThat(ledger.revoked(8)).as("another session of the same ledger").isFalse();
    assertThat(ledger.revoked(42)).as("an id never seen").isFalse();

    ledger.recordAdmission(7, NOW, M + 10, M + 11); // the id admitted again: honoured again
    assertThat(ledger.revoked(7)).isFalse();
    assertThat(ledger.revoked(9)).as("still ended after another's readmission").isTrue();

    ledger.revoke(8, M + 10, NOW);
    // a later minute drops 7 and 8 (kept until M + 11); 9 is kept until M + 31
    ledger.renewFrom(5, M + 40, M + 41, NOW.plusSeconds(20 * 60));
    assertThat(ledger.revoked(8)).as("forgotten with its entry").isFalse();
    assertThat(ledger.revoked(9)).as("still ended after another's entry was dropped").isTrue();

    ledger.recordAdmission(9, NOW.plusSeconds(20 * 60), M + 40, M + 41);
    ledger.recordAdmission(6, NOW.plusSeconds(20 * 60), M + 40, M + 41);
    ledger.revoke(6, M + 40, NOW.plusSeconds(20 * 60));
    assertThat(ledger.revoked(6)).as("a session ended after every earlier one was undone").isTrue();
    assertThat(ledger.revoked(9)).isFalse();
  }

  @Test
  void wholeBucketPlacesAreTheLargestCountSeen() {
    var ledger = new TicketLedger();

    assertThat(ledger.takeWholeBucketPlace(M - 3, 2, NOW)).isTrue();
    assertThat(ledger.takeWholeBucketPlace(M - 3, 1, NOW)).isTrue(); // count shrank: still 2
    assertThat(ledger.takeWholeBucketPlace(M - 3, 1, NOW)).isFalse();
    ledger.returnWholeBucketPlace(M - 3);
    assertThat(ledger.takeWholeBucketPlace(M - 3, 1, NOW)).isTrue();
  }

  @Test
  void overCapacityIdsAreNotRememberedAndCountAsTheirCookiesSay() {
    var ledger = new TicketLedger(2);
    ledger.recordAdmission(1, NOW, M + 10, M + 11);
    ledger.recordAdmission(2, NOW, M + 10, M + 11);
    ledger.recordAdmission(3, NOW, M + 10, M + 11);

    assertThat(ledger.size()).isEqualTo(2);
    assertThat(ledger.waitingStatus(3, NOW)).isEqualTo(TicketLedger.WaitingStatus.WAITING);
    assertThat(ledger.revoke(3, M + 10, NOW)).isEqualTo(M + 10);
  }

  @Test
  void theCapacityGrowsWithTheRoomWithinBounds() {
    assertThat(TicketLedger.capacityFor(100)).isEqualTo(1 << 16);
    assertThat(TicketLedger.capacityFor(100_000)).isEqualTo(800_000);
    assertThat(TicketLedger.capacityFor(100_000_000)).isEqualTo(1 << 23);
  }
}
