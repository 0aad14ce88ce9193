package io.anteroom.room;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.room.AccountPlaces.Place;
import org.junit.jupiter.api.Test;

/** Each account's one place: the rules of {@link AccountPlaces#place}. */
class AccountPlacesTest {
  static final long NOW = 1_000_000;
  final AccountPlaces places = new AccountPlaces(2);

  static Place place(long id, long expires) {
    return new Place(id, "sealed-" + id, expires, false);
  }

  static Place admitted(long id, long expires, String admission) {
    return new Place(id, "sealed-" + id + "-" + admission, expires, true);
  }

  @Test
  void theFirstBrowserOfAnAccountToOfferAPlaceMakesItTheAccountsAndTheSecondGetsThatOne() {
    assertThat(places.place("alice", null, 0, NOW).place()).as("no place yet").isNull();

    var first = places.place("alice", place(1, NOW + 60_000), 0, NOW);
    var second = places.place("alice", place(2, NOW + 60_000), 0, NOW + 1);

    assertThat(first.stored()).isTrue();
    assertThat(second.stored()).as("a second place for the account").isFalse();
    assertThat(second.place()).isEqualTo(place(1, NOW + 60_000));
    assertThat(places.place("alice", null, 0, NOW + 2).place().ticketId()).isEqualTo(1);
    assertThat(places.place("bob", place(3, NOW + 60_000), 0, NOW).stored())
        .as("another account, its own place")
        .isTrue();
  }

  @Test
  void aPlaceIsReplacedOnlyByWhoNamesItAsOverOrBringsItsNewerState() {
    places.place("alice", place(1, NOW + 60_000), 0, NOW);

    assertThat(places.place("alice", place(1, NOW + 90_000), 1, NOW).stored())
        .as("the same place, admitted")
        .isTrue();
    assertThat(places.place("alice", place(2, NOW + 90_000), 7, NOW).stored())
        .as("naming another place as over")
        .isFalse();
    assertThat(places.place("alice", place(2, NOW + 90_000), 1, NOW).stored())
        .as("its session is over: a new place")
        .isTrue();
    assertThat(places.place("alice", null, 0, NOW).place().ticketId()).isEqualTo(2);
  }

  @Test
  void anExpiredPlaceIsForgottenAndAFullMemoryNeverForgetsALiveOne() {
    places.place("alice", place(1, NOW + 10), 0, NOW);
    places.place("bob", place(2, NOW + 60_000), 0, NOW);

    var carol = places.place("carol", place(3, NOW + 60_000), 0, NOW + 5);
    assertThat(carol.full()).as("full of live places").isTrue();
    assertThat(carol.stored()).isFalse();
    assertThat(places.place("alice", null, 0, NOW + 5).place()).isNotNull();

    assertThat(places.place("alice", null, 0, NOW + 10).place()).as("expired").isNull();
    assertThat(places.place("carol", place(3, NOW + 60_000), 0, NOW + 2_000).stored()).isTrue();
  }

  @Test
  void theAccountsWaitingPlaceIsAdmittedOnceAndASecondAdmissionIsAnsweredTheFirst() {
    places.place("alice", place(1, NOW + 60_000), 0, NOW);

    var dublin = places.place("alice", admitted(1, NOW + 90_000, "dublin"), 0, NOW + 1);
    var nairobi = places.place("alice", admitted(1, NOW + 90_000, "nairobi"), 0, NOW + 2);

    assertThat(dublin.stored()).as("the place's first admission").isTrue();
    assertThat(nairobi.stored()).as("a second admission of the same place").isFalse();
    assertThat(nairobi.place()).isEqualTo(admitted(1, NOW + 90_000, "dublin"));
    assertThat(places.place("alice", admitted(1, NOW + 120_000, "dublin-renewed"), 1, NOW + 3))
        .as("the admitted place renewed (it names itself)")
        .extracting(AccountPlaces.Reply::stored)
        .isEqualTo(true);
  }

  @Test
  void anAdmissionOfAnotherPlaceThanTheAccountsIsRefused() {
    places.place("alice", place(1, NOW + 60_000), 0, NOW);

    var other = places.place("alice", admitted(2, NOW + 60_000, "b"), 0, NOW);

    assertThat(other.stored()).isFalse();
    assertThat(other.place().ticketId()).isEqualTo(1);
  }
}
